/**
 * A record for people: every field labelled with its author, agent text escaped so that it
 * cannot drive the terminal.
 */
import type { ObservedProof } from '../app/observed-proof.js';
import type { LedgerRecord } from '../model/record.js';
import { claimedStatusLabel } from '../model/vocabulary.js';
import type { SignatureVerdict } from '../verify/signatures.js';
import { escapeForTerminal, quotedBy, sanitizeLine } from '../paths/index.js';

export function renderRecord(
  id: string,
  record: LedgerRecord,
  signatures: readonly SignatureVerdict[],
  proof: ObservedProof,
): string {
  const { claims, observed } = record;
  const proven = proof.by !== 'unproven';
  const out: string[] = [];
  const line = (label: string, value: string) => out.push(`  ${label.padEnd(16)} ${value}`);
  const text = (value: string) => escapeForTerminal(value).replace(/\n/g, '\n' + ' '.repeat(19));

  out.push(`record ${id}`);
  out.push(`format ${record.format}  ·  schema ${record.schema}`);
  out.push('');
  out.push(
    `status: ${sanitizeLine(claimedStatusLabel(claims.status))} (claimed by the agent) → ${observed.effectiveStatus} (${proven ? 'derived by ledger' : 'derived from the observed part below, unproven here'})`,
  );
  for (const r of observed.reasons) out.push(`  ${r.code}: ${sanitizeLine(r.message)}`);
  out.push('');
  out.push('Authored by the agent (claims — untrusted until verified):');
  for (const key of [
    'task',
    'run',
    'attempt',
    'intent',
    'reworkOf',
    'summary',
    'nextStep',
  ] as const) {
    const value = claims[key];
    if (value !== undefined) line(key, text(value));
  }
  if (claims.confidence) {
    line(
      'confidence',
      `${claims.confidence.value}${claims.confidence.justification ? ` — ${text(claims.confidence.justification)}` : ''}`,
    );
  }
  for (const d of claims.decisions ?? [])
    line('decision', text(d.reason ? `${d.text} (because ${d.reason})` : d.text));
  for (const a of claims.assumptions ?? []) line('assumption', text(a));
  for (const q of claims.openQuestions ?? []) line('open question', text(q));
  for (const d of claims.deferred ?? [])
    line(`deferred [${sanitizeLine(d.category)}]`, text(d.description));
  for (const f of claims.findings ?? []) {
    const where = f.path ? ` ${sanitizeLine(f.path)}${f.line ? `:${f.line}` : ''}` : '';
    line(`finding ${sanitizeLine(f.severity)}`, `${text(f.summary)}${where}`);
  }
  for (const r of claims.references ?? []) {
    line(
      'reference',
      `${sanitizeLine(r.path)}${r.line ? `:${r.line}` : ''}${r.unverified ? ' [UNVERIFIED]' : ''}`,
    );
  }
  for (const a of claims.artifacts ?? [])
    line(`artifact ${a.action}`, sanitizeLine(a.path) + (a.sha256 ? ` sha256:${a.sha256}` : ''));
  for (const c of claims.checks ?? [])
    line(`check ${c.result}`, sanitizeLine(c.command ?? c.details ?? ''));
  for (const i of claims.insights ?? [])
    line(`insight ${sanitizeLine(i.category)}`, text(i.content));
  if (claims.anchors) {
    for (const [k, v] of Object.entries(claims.anchors))
      if (v !== undefined) line(`claimed ${k}`, sanitizeLine(v));
  }
  if (claims.extra && Object.keys(claims.extra).length > 0)
    line('extra fields', Object.keys(claims.extra).map(sanitizeLine).join(', '));
  out.push('');
  out.push(observedHeading(proof));
  line('recorded at', `${observed.recordedAt} by ledger ${sanitizeLine(observed.ledgerVersion)}`);
  const signers = signatures.filter((s) => s.verified).map((s) => sanitizeLine(s.signer ?? ''));
  if (observed.producer !== undefined) {
    // Quoted: a step's is its --by, and bare it could write "(claimed; signed by …)" itself.
    line(
      'producer',
      `${sanitizeLine(quotedBy(observed.producer))} (claimed${signers.length > 0 ? `; signed by ${signers.join(', ')}` : ', no trusted signature'})`,
    );
  }
  for (const s of signatures) {
    line(
      'signature',
      s.verified
        ? `verified: ${sanitizeLine(s.signer ?? '')} (${s.key ?? ''})`
        : typeof s.recorder === 'string'
          ? sanitizeLine(s.reason)
          : `not trusted: ${sanitizeLine(s.reason)}`,
    );
  }
  line(
    'base',
    observed.base.commit === null
      ? `no commit yet (the empty tree ${observed.base.tree})`
      : `commit ${observed.base.commit} (tree ${observed.base.tree})`,
  );
  line('candidate tree', observed.candidate.tree);
  if (observed.branch !== undefined) line('branch', sanitizeLine(observed.branch));
  for (const a of observed.artifacts)
    line(
      'artifact',
      `${sanitizeLine(a.path)}  sha256:${a.sha256}  ${a.size} bytes  blob ${a.blob.slice(0, 12)}`,
    );
  const outputSizes = (w: (typeof observed.witnesses)[number]) =>
    w.stdout === undefined && w.stderr === undefined
      ? 'output not kept'
      : `stdout ${w.stdout?.size ?? '-'} B, stderr ${w.stderr?.size ?? '-'} B`;
  for (const w of observed.witnesses) {
    const result = w.timedOut
      ? 'timed out'
      : w.exitCode === null
        ? `killed by ${w.signal}`
        : `exit ${w.exitCode}`;
    line(
      'witness',
      `${sanitizeLine(w.command)} → ${result} in ${w.durationMs} ms (${outputSizes(w)})`,
    );
  }
  for (const e of observed.evidence)
    line('evidence', `${sanitizeLine(e.name)} sha256:${e.file.sha256} ${e.file.size} bytes`);
  if (observed.source)
    line(
      'source',
      `${record.format} handoff, ${observed.source.size} bytes, sha256:${observed.source.sha256}`,
    );
  return out.join('\n');
}

/**
 * Whose word the observed part is on this machine (src/app/observed-proof.ts): "Observed by
 * ledger" only where this machine can tell, since a record appended with git plumbing carries
 * whatever witness results its writer chose (red team, round twelve).
 */
function observedHeading(proof: ObservedProof): string {
  switch (proof.by) {
    case 'recorded-here':
      return 'Observed by ledger (made by your ledger on this machine):';
    case 'trusted-signature':
      return `Observed by ledger (attested by ${sanitizeLine(proof.signer)}'s trusted signature):`;
    case 'unproven':
      return 'Observed by the ledger that recorded it (not recorded here and no signature the policy trusts: witness results unproven until ledger verify --rerun):';
  }
}
