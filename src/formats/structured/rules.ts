/**
 * A structured handoff's fields → claims, and the skill's validation rules as reasons (never
 * refusals):
 *   STRUCTURED_COMPLETED_WITHOUT_VERIFICATION  completed, no passed/failed row, and not a
 *       read-only or documentation-only task with an explicit skip reason → partial
 *   STRUCTURED_COMPLETED_WITH_FAILED_VERIFICATION  completed but a row failed → failed
 *   STRUCTURED_COMPLETED_WITH_BLOCKING_FINDING     completed with a `block` finding → partial
 *   STRUCTURED_NO_VERIFICATION_ROW   no row at all (the skill asks for a skipped row) — a note
 *   STRUCTURED_SKIP_WITHOUT_REASON   a skipped row that does not say why — a note
 */
import type {
  Claims,
  ClaimedArtifact,
  ClaimedCheck,
  Finding,
  Reason,
  Status,
} from '../../model/record.js';
import type { ParseContext } from '../contract.js';
import { verdict } from '../kit/claims.js';
import { unwrap } from '../kit/markdown.js';
import { mapPath, renamedPaths, splitPathAndNote, struckOut, type PathText } from '../kit/paths.js';
import { STRUCTURED_VOCABULARY, type Shape } from './shape.js';

const DOC_FILE =
  /(?:^|\/)(?:docs?|documentation)\/|\.(?:md|mdx|markdown|txt|rst|adoc|asciidoc)$|(?:^|\/)(?:README|CHANGELOG|LICENSE|CONTRIBUTING)(?:\.[^/]*)?$/i;

/** A skip reason counts as explicit when it says something (not `...`, `-`, `n/a`). */
function explicit(details: string | null): boolean {
  return details !== null && !/^\s*(?:\.{2,}|…|-+|n\/?a|none|null|tbd|todo)?\s*$/i.test(details);
}

/** A JSON artifact is one path (spaces and all); a Markdown item may carry a note after it. */
function artifactText(raw: string, json: boolean): PathText {
  if (!json) return splitPathAndNote(raw);
  const t = raw.trim();
  if (t !== '' && (!/\s/.test(t) || /[/\\]|\.[A-Za-z0-9_+-]{1,12}$/.test(t)))
    return { kind: 'path', path: t, ticked: false };
  return splitPathAndNote(raw);
}

export function toClaims(
  shape: Shape,
  ctx: ParseContext,
  extra: Record<string, unknown>,
): { claims: Claims; status: Status; reasons: Reason[] } {
  const roots = [ctx.repoRoot, ...(ctx.worktrees ?? [])];
  const json = extra['shape'] === 'json';
  const artifacts: ClaimedArtifact[] = [];
  const notes: Record<string, string> = {};
  const prose: { action: string; text: string; why: string }[] = [];
  const claimPath = (path: string, raw: string): void => {
    const mapped = mapPath(path, roots);
    if (mapped.kind === 'repo')
      artifacts.push({
        path: mapped.path,
        action: 'touched',
        ...(mapped.as === undefined ? {} : { as: mapped.as }),
      });
    else if (mapped.kind === 'outside')
      artifacts.push({ path: mapped.raw.slice(0, 4096), action: 'touched' });
    else prose.push({ action: 'Touched', text: raw, why: 'not a usable path' });
  };
  const withdrawn: { text: string; why: string }[] = [];
  for (const written of shape.artifacts) {
    // `~~src/old.ts~~ (dropped)`: a file withdrawn, kept (and written back) with no verdict.
    const struck = struckOut(written);
    if (struck !== undefined && struck.standing === undefined) {
      withdrawn.push({ text: written, why: struck.why });
      continue;
    }
    const raw = struck?.standing ?? written;
    // `src/old.ts -> src/new.ts`: both paths are claims, each kept with the line it came from
    // (the emitter writes that line once).
    const renamed = renamedPaths(raw);
    if (renamed !== undefined) {
      for (const path of [renamed.from, renamed.to]) {
        if (!json) notes[path] = raw;
        claimPath(path, raw);
      }
      continue;
    }
    const split = artifactText(raw, json);
    if (split.kind === 'prose') {
      prose.push({ action: 'Touched', text: split.text, why: split.why });
      continue;
    }
    if (!json && raw.trim() !== split.path) notes[split.path] = raw;
    claimPath(split.path, raw);
  }
  if (prose.length > 0) extra['proseArtifacts'] = prose;
  if (withdrawn.length > 0) extra['withdrawnArtifacts'] = withdrawn;
  if (Object.keys(notes).length > 0) extra['artifactLines'] = notes;

  const checks: ClaimedCheck[] = shape.verification.map((r) => ({
    ...(r.command === null ? {} : { command: r.command.slice(0, 4096) }),
    result: r.result as ClaimedCheck['result'],
    ...(r.details === null ? {} : { details: r.details }),
  }));
  const pathsAs: Record<string, string> = {};
  const findings: Finding[] = shape.findings.map((f, i) => {
    let path = f.path;
    if (path !== null) {
      const mapped = mapPath(path, roots);
      if (mapped.kind === 'repo') {
        if (mapped.as !== undefined) pathsAs[`findings[${i}].path`] = mapped.as;
        path = mapped.path;
      }
    }
    return {
      severity: f.severity,
      summary: f.summary,
      ...(path === null ? {} : { path: path.slice(0, 4096) }),
      ...(f.line === null ? {} : { line: f.line }),
    };
  });
  if (Object.keys(pathsAs).length > 0) extra['pathsAs'] = pathsAs;

  const v = verdict(STRUCTURED_VOCABULARY.statusOf(shape.status) ?? 'partial');
  if (checks.length === 0)
    v.note(
      'STRUCTURED_NO_VERIFICATION_ROW',
      'no verification row: when no command was run the skill asks for one skipped row that explains why',
      'verification',
    );
  shape.verification.forEach((r, i) => {
    if (r.result === 'skipped' && !explicit(r.details))
      v.note(
        'STRUCTURED_SKIP_WITHOUT_REASON',
        `verification row ${i} is skipped without saying why`,
        `verification[${i}]`,
      );
  });
  if (shape.status === 'completed') {
    const ran = shape.verification.filter((r) => r.result !== 'skipped');
    if (ran.some((r) => r.result === 'failed')) {
      v.lower(
        'failed',
        'STRUCTURED_COMPLETED_WITH_FAILED_VERIFICATION',
        'status is completed but a verification row failed',
        'verification',
      );
    } else if (ran.length === 0) {
      const docsOnly = shape.artifacts.every((a) => DOC_FILE.test(unwrap(a.split(/\s+/)[0] ?? a)));
      const explained =
        shape.verification.length > 0 && shape.verification.every((r) => explicit(r.details));
      if (!(docsOnly && explained))
        v.lower(
          'partial',
          'STRUCTURED_COMPLETED_WITHOUT_VERIFICATION',
          docsOnly
            ? 'status is completed without a run verification and without an explicit skip reason'
            : 'status is completed but no verification ran, and the task is not read-only or documentation-only',
          'verification',
        );
    }
    if (findings.some((f) => f.severity === 'block'))
      v.lower(
        'partial',
        'STRUCTURED_COMPLETED_WITH_BLOCKING_FINDING',
        'status is completed but a finding has severity block',
        'findings',
      );
  }
  const claims: Claims = {
    status: shape.status,
    summary: shape.summary,
    artifacts,
    checks,
    findings,
    ...(shape.next === null ? {} : { nextStep: shape.next }),
    extra,
  };
  return { claims, status: v.status, reasons: v.reasons };
}
