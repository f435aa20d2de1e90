/**
 * `ledger verify`: the pure verifier over the repository, plus the impure parts — the policy,
 * re-running witnesses in a throw-away checkout of the candidate tree (only when the policy
 * allows), noticing a rolled-back or moved ledger ref, and writing or reading attestations.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendLeaves,
  bySubject,
  leafId,
  readAttestations,
  readSignatures,
  signatureObject,
} from '../ledger/leaves.js';
import { ATTESTATIONS_DIR, LOG_REF, SIGNATURES_DIR } from '../ledger/layout.js';
import { readLedgerIndex } from '../ledger/read.js';
import { ATTESTATION_SCHEMA, type Attestation } from '../model/attestation.js';
import { LedgerError } from '../model/errors.js';
import { LEDGER_VERSION } from '../model/version.js';
import type { SshKeygenSigner } from '../sign/index.js';
import { runGit } from '../store/git/exec.js';
import type { RepoPaths } from '../store/git/repo.js';
import type { ObjectReader } from '../store/port.js';
import { judgeSignature, type Trust } from '../verify/signatures.js';
import type { Check, Rerunner, VerifyReport } from '../verify/types.js';
import { exitCodeOf, verifyLedger } from '../verify/verify.js';
import { materializeTree, runWitness, scrubbedEnv } from '../witness/index.js';
import type { Policy } from './local.js';
import { loadPolicy, noteKnownEntry, readKnownEntries, readRecordedHere } from './local.js';
import { resolveId } from './query.js';
import { addWorktreeChecks } from './worktree.js';
import { requireWorkTree, withRepo } from './repo.js';
import { policyNotes, resolveSigner, signByDefault, signId, trustFrom } from './trust.js';

export interface VerifyRequest {
  cwd: string;
  ids?: readonly string[];
  rerun?: boolean;
  strict?: boolean;
  policyFile?: string;
  timeoutMs?: number;
  /** Also compare each recorded artifact with the work tree now (`stale` when it changed). */
  worktree?: boolean;
  /** Store the verdicts of each verified record as an attestation in the ledger. */
  record?: boolean;
  /** Sign the attestations (`--record`); undefined: the user's `ledger.sign` git config decides. */
  sign?: boolean;
  signingKey?: string;
  /** Take re-run verdicts from a trusted, signed attestation under the same policy. */
  fromAttestation?: boolean;
  now?: Date;
  onProgress?: (message: string) => void;
}

export function verifyRepository(request: VerifyRequest): Promise<VerifyReport> {
  return withRepo(request.cwd, async ({ repo, store }) => {
    // A bare repository verifies; only comparing with a work tree needs one.
    const workTree = request.worktree ? requireWorkTree(repo, 'verify --worktree') : undefined;
    const now = request.now ?? new Date();
    const loaded = await loadPolicy(request.policyFile);
    const trust = trustFrom(loaded, now);
    const notes = policyNotes(loaded, trust);
    // Resolve the signer before anything runs, so a missing key is a usage error up front.
    const signer: SshKeygenSigner | undefined =
      request.record && (request.sign ?? signByDefault(repo))
        ? await resolveSigner(repo, request.signingKey, request.cwd)
        : undefined;
    const index = await readLedgerIndex(store);
    const ids = request.ids?.map((given) => resolveId(index, given));

    const attested = request.fromAttestation
      ? await trustedAttestations(store, index, loaded.digest, trust)
      : new Map<string, TrustedAttestation>();
    if (request.fromAttestation && trust === undefined)
      notes.push('--from-attestation: the policy trusts no signer, so no attestation is trusted');
    let rerun: Rerunner | undefined;
    if (request.rerun) {
      const recordedHere = await readRecordedHere(repo);
      const inner = makeRerunner(
        store,
        loaded.policy,
        recordedHere,
        request.timeoutMs,
        request.onProgress,
      );
      rerun = (task) =>
        attested.has(task.recordId)
          ? Promise.resolve({
              ran: false as const,
              reason: 'not re-run: taken from a trusted attestation',
            })
          : inner(task);
    }
    const refsBefore = request.rerun ? await ledgerRefs(repo) : undefined;
    const report = await verifyLedger(store, index, {
      ...(ids ? { ids } : {}),
      ...(rerun ? { rerun } : {}),
      ...(request.strict ? { strict: true } : {}),
      ...(trust ? { trust } : {}),
      now,
    });

    // A witness runs as this user: it cannot be kept from the repository by file permissions,
    // only from finding it. If a ledger ref moved while witnesses ran, say so loudly.
    if (refsBefore !== undefined) {
      const refsAfter = await ledgerRefs(repo);
      if (refsAfter !== refsBefore) {
        report.ledger.push({
          check: 'refs',
          subject: 'refs/ledger',
          verdict: 'contradicted',
          integrity: true,
          detail:
            'a ledger ref moved while witnesses were re-run; the verdicts above describe the ledger as it was before',
        });
      }
    }
    // The log only grows: an entry this user saw before and that is gone now means a rollback.
    const known = await readKnownEntries(repo);
    const lost = [...known].filter((entry) => !index.entries.has(entry));
    if (lost.length > 0) {
      report.ledger.push({
        check: 'rollback',
        subject: LOG_REF,
        verdict: 'contradicted',
        integrity: true,
        detail: `${lost.length} log entr${lost.length === 1 ? 'y' : 'ies'} seen here before ${lost.length === 1 ? 'is' : 'are'} missing (first: ${lost[0]}): the ledger ref was rolled back or replaced`,
      });
    }
    if (workTree !== undefined) await addWorktreeChecks(store, index, workTree, report.records);
    for (const r of report.records) {
      const from = attested.get(r.id);
      if (from) r.checks = applyAttestation(r.checks, from);
    }
    const exitCode = exitCodeOf(
      [...report.ledger, ...report.records.flatMap((r) => r.checks)],
      request.strict ?? false,
    );
    const final: VerifyReport = {
      ...report,
      ok: exitCode === 0,
      exitCode,
      notes,
      policy: {
        source: loaded.source,
        ...(loaded.path === undefined ? {} : { path: loaded.path }),
        digest: loaded.digest,
      },
    };
    if (exitCode !== 3 && index.tipEntry !== undefined && lost.length === 0)
      await noteKnownEntry(repo, index.tipEntry);
    if (request.record) {
      final.attestations = await writeAttestations(
        store,
        final,
        loaded.digest,
        Boolean(request.rerun),
        signer,
        now,
      );
      const after = await readLedgerIndex(store);
      if (after.tipEntry !== undefined && exitCode !== 3)
        await noteKnownEntry(repo, after.tipEntry);
    }
    return final;
  });
}

async function ledgerRefs(repo: RepoPaths): Promise<string> {
  const result = await runGit(
    ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/ledger/'],
    { cwd: repo.root, guard: repo.guard },
  );
  return result.stdout.toString('utf8');
}

interface TrustedAttestation {
  id: string;
  signer: string;
  attestation: Attestation;
}

/**
 * Attestations an auditor-role signer signed under the policy in force now (same digest):
 * one per record, the newest by its `at`.
 */
async function trustedAttestations(
  store: ObjectReader,
  index: Awaited<ReturnType<typeof readLedgerIndex>>,
  digest: string,
  trust: Trust | undefined,
): Promise<Map<string, TrustedAttestation>> {
  const out = new Map<string, TrustedAttestation>();
  if (trust === undefined) return out;
  const [attestations, signatures] = await Promise.all([
    readAttestations(store, index),
    readSignatures(store, index),
  ]);
  const signed = bySubject(signatures.leaves);
  for (const [id, attestation] of attestations.leaves) {
    if (attestation.policy !== digest) continue;
    const signer = (signed.get(id) ?? [])
      .map((s) => judgeSignature(id, s.armored, trust, 'auditor'))
      .find((v) => v.verified)?.signer;
    if (signer === undefined || signer === null) continue;
    const before = out.get(attestation.subject);
    if (!before || before.attestation.at < attestation.at)
      out.set(attestation.subject, { id, signer, attestation });
  }
  return out;
}

/** Re-run verdicts (witness, claim.check) come from the attestation; everything else is recomputed. */
function applyAttestation(checks: Check[], from: TrustedAttestation): Check[] {
  const RERUN = new Set(['witness', 'claim.check']);
  const out = checks.map((check) => {
    if (!RERUN.has(check.check) || check.verdict !== 'unverifiable') return check;
    const prior = from.attestation.verdicts.find(
      (v) => v.check === check.check && v.subject === check.subject,
    );
    if (!prior) return check;
    return {
      ...check,
      verdict: prior.verdict,
      detail: `${prior.detail} (attested by ${from.signer} at ${from.attestation.at})`,
    };
  });
  out.push({
    check: 'attestation',
    subject: from.id,
    verdict: 'verified',
    detail: `started from an attestation signed by ${from.signer} under this policy (${from.attestation.at})`,
  });
  return out;
}

async function writeAttestations(
  store: Parameters<typeof appendLeaves>[0],
  report: VerifyReport,
  policyDigest: string,
  rerun: boolean,
  signer: SshKeygenSigner | undefined,
  now: Date,
): Promise<{ record: string; id: string; signed: boolean }[]> {
  if (report.ledger.some((c) => c.integrity && c.verdict !== 'verified')) {
    throw new LedgerError(
      'INTEGRITY',
      'not recording attestations: the ledger itself failed its integrity checks',
      {
        hint: 'Run ledger verify without --record to see what is damaged.',
      },
    );
  }
  const leaves: Parameters<typeof appendLeaves>[1][number][] = [];
  const written: { record: string; id: string; signed: boolean }[] = [];
  for (const r of report.records) {
    const attestation: Attestation = {
      schema: ATTESTATION_SCHEMA,
      subject: r.id,
      policy: policyDigest,
      ledgerVersion: LEDGER_VERSION,
      rerun,
      verdicts: r.checks.map((c) => ({
        check: c.check,
        subject: c.subject,
        verdict: c.verdict,
        detail: c.detail,
      })),
      at: now.toISOString(),
    };
    const id = leafId(attestation);
    leaves.push({ dir: ATTESTATIONS_DIR, value: attestation });
    if (signer)
      leaves.push({ dir: SIGNATURES_DIR, value: signatureObject(id, await signId(id, signer)) });
    written.push({ record: r.id, id, signed: signer !== undefined });
  }
  if (leaves.length > 0)
    await appendLeaves(store, leaves, `attest ${written.length} record(s)`, now);
  return written;
}

function makeRerunner(
  store: ObjectReader,
  policy: Policy,
  recordedHere: ReadonlySet<string>,
  timeoutMs: number | undefined,
  onProgress: ((message: string) => void) | undefined,
): Rerunner {
  return async ({ recordId, command, candidateTree }) => {
    const allowed =
      policy.rerun.commands.includes(command) ||
      (policy.rerun.recordedHere && recordedHere.has(recordId));
    if (!allowed) {
      return {
        ran: false,
        reason: recordedHere.has(recordId)
          ? 'not re-run: the policy does not allow this command'
          : 'not re-run: the record was not made in this clone and the policy does not allow the command',
      };
    }
    onProgress?.(`re-running in a clean checkout: ${command}`);
    // A throw-away directory outside the repository: HOME, the git config dirs and TMPDIR point
    // into it, and GIT_CEILING_DIRECTORIES stops a git run by the witness from finding any
    // repository above it (even when TMPDIR lies inside the audited one). It is removed on
    // every path out, error or not.
    const dir = await mkdtemp(join(tmpdir(), 'ledger-rerun-'));
    try {
      const work = join(dir, 'tree');
      await mkdir(join(dir, 'tmp'));
      await materializeTree(store, candidateTree, work);
      const run = await runWitness({
        command,
        cwd: work,
        env: scrubbedEnv(process.env, {
          HOME: dir,
          TMPDIR: join(dir, 'tmp'),
          XDG_CONFIG_HOME: join(dir, '.config'),
          GIT_CEILING_DIRECTORIES: dir,
          GIT_CONFIG_NOSYSTEM: '1',
        }),
        timeoutMs: timeoutMs ?? policy.witnessTimeoutSeconds * 1000,
        maxOutputBytes: 1024 * 1024,
      });
      return { ran: true, result: { exitCode: run.exitCode, timedOut: run.timedOut } };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
