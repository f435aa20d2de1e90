/**
 * `ledger verify`: the pure verifier over the repository, plus the impure parts — the policy,
 * re-running witnesses in a throw-away checkout of the candidate tree (only when the policy
 * allows), noticing a rolled-back or moved ledger ref, and writing or reading attestations.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import {
  appendLeaves,
  bySubject,
  leafId,
  readAttestations,
  readSignatures,
  signatureObject,
} from '../ledger/leaves.js';
import { ATTESTATIONS_DIR, LOG_REF, SIGNATURES_DIR } from '../ledger/layout.js';
import { readLedgerIndex, readLedgerIndexAt, type LedgerIndex } from '../ledger/read.js';
import { ATTESTATION_SCHEMA, type Attestation, type AttestedCheck } from '../model/attestation.js';
import { LedgerError } from '../model/errors.js';
import { LEDGER_VERSION } from '../model/version.js';
import type { SshKeygenSigner } from '../sign/index.js';
import { objectTypes } from '../store/git/catfile.js';
import { runGit } from '../store/git/exec.js';
import type { RepoPaths } from '../store/git/repo.js';
import type { ObjectReader } from '../store/port.js';
import { judgeSignature, type Trust } from '../verify/signatures.js';
import type { Check, Rerunner, RerunOutput, VerifyReport } from '../verify/types.js';
import { recordWorkers } from '../verify/parallel.js';
import { exitCodeOf, verifyLedger } from '../verify/verify.js';
import {
  createRerunSession,
  describeIsolation,
  lastLines,
  maskSecrets,
  namespacesOf,
  probeIsolation,
  readOnlyPaths,
  secretsOf,
  type Isolation,
  type IsolationMode,
  type RerunSession,
  type WitnessRun,
} from '../witness/index.js';
import { sanitizeLine } from '../paths/index.js';
import type { Policy } from './local.js';
import { loadPolicy } from './local.js';
import { openLocalState, type LocalState } from './local-state.js';
import { headCheck, resolveHead } from './head.js';
import { recordReads } from './read-recorder.js';
import {
  cacheKey,
  readVerifiedTip,
  timeWindow,
  writeVerifiedTip,
  type ObjectsRead,
} from './verify-cache.js';
import { resolveId } from './query.js';
import { describeSince, resolveSince } from './since-rev.js';
import { attachLifecycles, gateChecks } from './verify-lifecycle.js';
import { addWorktreeChecks } from './worktree.js';
import { requireWorkTree, withRepo } from './repo.js';
import {
  formatOptionsFrom,
  policyNotes,
  resolveSigner,
  signByDefault,
  signId,
  trustFrom,
} from './trust.js';
import { checkoutBudget, policyReadOnly, rerunDecision, setupSteps } from './rerun-policy.js';

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
  /**
   * Use the verified-state cache (`ledger verify` without `--full`): check only what is new
   * since the last tip that verified here under the same policy, version and options.
   */
  cache?: boolean;
  /**
   * False: only checks that did not verify are kept per record, the others counted (text
   * output). Ignored with `record` (attestations store every verdict).
   */
  keepVerified?: boolean;
  /**
   * `--head REV`: the newest record on REV's branch must have REV's tree as its candidate tree
   * (check `head.tree`). Not part of the cache key: the check reads the whole ledger on every
   * run and is never cached.
   */
  head?: string;
  /**
   * `--since REV` (a ledger tip or a commit of the base branch): check the records added since
   * REV and the whole chain (src/app/since-rev.ts). With `head`, the head check binds the
   * records added since; when none was added, no record vouches for the head and it is skipped
   * with a note.
   */
  since?: string;
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
    const local = openLocalState(repo, store);
    // What this clone held is read before the ledger: an entry a racing record or sync notes
    // meanwhile is then in the index read after it, never a false rollback.
    const known = await local.readKnownEntries();
    const index = await readLedgerIndex(store);
    notes.push(...(await local.notes()));
    if (request.since !== undefined && request.ids !== undefined)
      throw new LedgerError('USAGE', '--since and record ids cannot be given together', {
        hint: 'Give either the records to verify or --since REV (the records added since REV).',
      });
    const range =
      request.since === undefined
        ? undefined
        : await resolveSince(repo, store, index, request.since);
    if (range) notes.push(describeSince(range));
    const ids = range ? range.ids : request.ids?.map((given) => resolveId(index, given));
    let head =
      request.head === undefined
        ? undefined
        : { rev: request.head, commit: await resolveHead(repo, request.head) };
    if (head !== undefined && range !== undefined && range.ids.length === 0) {
      // Nothing added: no record speaks for this head (a change no agent recorded).
      notes.push(
        `--head ${head.rev}: no record was added since ${range.rev}, so no record vouches for the head and head.tree is not checked`,
      );
      head = undefined;
    }

    const attested = request.fromAttestation
      ? await trustedAttestations(store, index, loaded.digest, trust)
      : new Map<string, TrustedAttestation>();
    if (request.fromAttestation && trust === undefined)
      notes.push('--from-attestation: the policy trusts no signer, so no attestation is trusted');
    let rerun: Rerunner | undefined;
    let reruns: PreparedReruns | undefined;
    // Re-run checkouts read through this, so that once the cache's recording reader exists
    // (below, after the key is known) the blobs they need are listed in the entry too.
    let checkoutReads: ObjectReader = store;
    if (request.rerun) {
      reruns = await prepareReruns(
        repo,
        {
          read: (oid) => checkoutReads.read(oid),
          readChunks: (oid, onChunk) => checkoutReads.readChunks(oid, onChunk),
        },
        loaded.policy,
        request.timeoutMs,
        request.onProgress,
      );
      notes.push(...reruns.notes);
      const recordedHere = await local.readRecordedHere();
      const inner = makeRerunner(
        reruns.session,
        loaded.policy,
        recordedHere,
        reruns.isolation.mode,
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
    const cache = await openCache(
      ids ? { ...request, ids } : request,
      local,
      loaded.digest,
      index,
      store,
      repo,
      {
        now,
        ...(reruns ? { isolation: reruns.isolation.mode } : {}),
      },
    );
    const baseCommits = new Set<string>();
    // What the verdicts read, for the cache entry to prove still there next time.
    const recording = cache.key === undefined ? undefined : recordReads(store);
    if (recording !== undefined) checkoutReads = recording.reader;
    let report: VerifyReport;
    try {
      const reader = recording?.reader ?? store;
      const options = {
        ...(cache.key === undefined ? {} : { onBaseCommit: (c: string) => baseCommits.add(c) }),
        ...(request.keepVerified === false && !request.record ? { keepVerified: false } : {}),
        ...(rerun ? { rerun } : {}),
        ...(request.strict ? { strict: true } : {}),
        ...(trust ? { trust } : {}),
        now,
        root: repo.root,
        formatOptions: formatOptionsFrom(loaded),
        ...(isShallow(repo) ? { shallow: true } : {}),
        ...recordWorkers(process.env),
      };
      report = await verifyLedger(reader, index, {
        ...options,
        ...(cache.since ? { since: cache.since } : {}),
        ...(ids ? { ids } : {}),
      });
      // Before the re-run session closes: a superseding record may need its witnesses re-run.
      await attachLifecycles(reader, index, report, {
        strict: request.strict ?? false,
        trust,
        requireReviewer: loaded.policy.lifecycle?.requireReviewer ?? false,
        verifyOthers: async (others) =>
          (await verifyLedger(reader, index, { ...options, ids: others, chain: false })).records,
      });
    } finally {
      // No checkout outlives the command, whatever happened.
      await reruns?.session.close();
    }

    // Isolated, a witness cannot see the repository; without isolation it runs as this user
    // and is only kept from finding it. Either way, if a ledger ref moved while witnesses ran,
    // say so loudly.
    if (refsBefore !== undefined) {
      const refsAfter = await ledgerRefs(repo);
      if (refsAfter !== refsBefore) {
        report.ledger.push({
          id: 'refs',
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
    const lost = [...known].filter((entry) => !index.entries.has(entry));
    if (lost.length > 0) {
      report.ledger.push({
        id: 'rollback',
        check: 'rollback',
        subject: LOG_REF,
        verdict: 'contradicted',
        integrity: true,
        detail: `${lost.length} log entr${lost.length === 1 ? 'y' : 'ies'} seen here before ${lost.length === 1 ? 'is' : 'are'} missing (first: ${lost[0]}): the ledger ref was rolled back or replaced (if you replaced this clone on purpose, remove ${await local.cloneDir()} to forget what it held)`,
      });
    }
    if (head !== undefined)
      report.ledger.push(
        await headCheck(store, index, head.rev, head.commit, loaded.policy.head?.witnesses),
      );
    if (workTree !== undefined) await addWorktreeChecks(store, index, workTree, report.records);
    for (const r of report.records) {
      const from = attested.get(r.id);
      if (from) r.checks = applyAttestation(r.checks, from);
    }
    // The one exit decision: a record a lifecycle step resolved fails only on integrity.
    const exitCode = exitCodeOf(gateChecks(report), request.strict ?? false);
    const final: VerifyReport = {
      ...report,
      ok: exitCode === 0,
      exitCode,
      notes,
      scope: {
        repository: repo.root,
        ref: LOG_REF,
        commit: index.tipCommit ?? null,
        entry: index.tipEntry ?? null,
        records: index.records.size,
        verified: report.records.length,
      },
      policy: {
        source: loaded.source,
        ...(loaded.path === undefined ? {} : { path: loaded.path }),
        digest: loaded.digest,
      },
      ...(reruns ? { rerun: reruns.info } : {}),
      ...(range
        ? {
            range: {
              rev: range.rev,
              commit: range.commit,
              mode: range.mode,
              checked: range.ids.length,
              skipped: range.skipped,
            },
          }
        : {}),
      ...(cache.key === undefined && cache.reason === undefined
        ? {}
        : { cache: cacheOutcome(cache, report) }),
    };
    if (
      exitCode === 0 &&
      cache.key !== undefined &&
      index.tipCommit !== undefined &&
      index.tipCommit !== cache.commit
    ) {
      // Only new records were read when the cached state was used: the others' bases and
      // objects are the cached entry's (checked in openCache).
      const read: ObjectsRead = recording?.read() ?? { present: [], absent: [] };
      if (report.since?.used) {
        for (const b of cache.bases ?? []) baseCommits.add(b);
        read.present.push(...(cache.objects?.present ?? []));
        read.absent.push(...(cache.objects?.absent ?? []));
      }
      const dir = await local.cloneDir();
      if (dir !== undefined)
        await writeVerifiedTip(
          dir,
          cache.key,
          index.tipCommit,
          baseCommits,
          read,
          timeWindow(now, trust?.entries),
        );
    }
    if (exitCode !== 3 && index.tipEntry !== undefined && lost.length === 0)
      await local.noteKnownEntry(index.tipEntry);
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
        await local.noteKnownEntry(after.tipEntry);
    }
    return final;
  });
}

interface OpenedCache {
  /** The cache key for this run; undefined when this run neither reads nor writes the cache. */
  key?: string;
  /** Why the cache is not used this run (when it is not). */
  reason?: string;
  /** The cached tip and the ledger as it was there. */
  commit?: string;
  since?: LedgerIndex;
  /** The base commits of the records at the cached tip (all present in the repository). */
  bases?: string[];
  /** The objects the cached verdicts read (as present, or as absent, as they were then). */
  objects?: ObjectsRead;
}

/**
 * Which verified state this run may start from. Runs whose verdicts are about more than the
 * ledger (`--worktree`: the work tree now), about part of it (ids) or that write attestations
 * for every record verified (`--record`) neither read nor write the cache.
 */
async function openCache(
  request: VerifyRequest,
  local: LocalState,
  policyDigest: string,
  index: LedgerIndex,
  store: ObjectReader,
  repo: RepoPaths,
  run: { now: Date; isolation?: IsolationMode },
): Promise<OpenedCache> {
  if (!request.cache)
    return request.cache === false ? { reason: '--full: everything was re-checked' } : {};
  if (request.ids !== undefined || request.worktree || request.record)
    return {
      reason: `${request.ids !== undefined ? 'record ids' : request.worktree ? '--worktree' : '--record'}: the cache applies to a verify of the whole ledger`,
    };
  if (index.tipCommit === undefined) return { reason: 'the ledger is empty' };
  const key = cacheKey({
    policyDigest,
    ledgerVersion: LEDGER_VERSION,
    strict: request.strict ?? false,
    rerun: request.rerun ?? false,
    fromAttestation: request.fromAttestation ?? false,
    ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    ...(run.isolation === undefined ? {} : { isolation: run.isolation }),
  });
  const dir = await local.cloneDir();
  if (dir === undefined) return { key, reason: 'this clone has no local state yet' };
  const found = await readVerifiedTip(dir, key, run.now);
  if (!found.hit) return { key, reason: found.reason };
  const changed = await objectsChanged(repo, found.bases, found.objects).catch(
    (error: Error) => `the objects could not be checked (${error.message})`,
  );
  if (changed !== undefined) return { key, commit: found.commit, reason: changed };
  try {
    return {
      key,
      commit: found.commit,
      bases: found.bases,
      objects: found.objects,
      since: await readLedgerIndexAt(store, found.commit),
    };
  } catch (error) {
    return {
      key,
      commit: found.commit,
      reason: `the cached tip ${found.commit} cannot be read here (${(error as Error).message})`,
    };
  }
}

/**
 * Why the cached verdicts may no longer hold, as far as the object database goes (one
 * batch-check): a base commit or an object they read is gone, or one they found absent is back.
 */
async function objectsChanged(
  repo: RepoPaths,
  bases: readonly string[],
  objects: ObjectsRead,
): Promise<string | undefined> {
  const types = await objectTypes(
    repo.root,
    [...bases, ...objects.present, ...objects.absent],
    repo.guard,
  );
  const base = bases.find((b) => types.get(b) !== 'commit');
  if (base !== undefined)
    return `base commit ${base} of a record verified at the cached tip is no longer in this repository`;
  const gone = objects.present.find((oid) => !types.has(oid));
  if (gone !== undefined)
    return `object ${gone}, read when the cached tip verified, is no longer in this repository`;
  const back = objects.absent.find((oid) => types.has(oid));
  if (back !== undefined)
    return `object ${back}, absent when the cached tip verified, is in this repository now`;
  return undefined;
}

function cacheOutcome(
  cache: OpenedCache,
  report: VerifyReport,
): NonNullable<VerifyReport['cache']> {
  if (report.since?.used)
    return {
      used: true,
      ...(cache.commit === undefined ? {} : { commit: cache.commit }),
      newRecords: report.records.length,
    };
  return {
    used: false,
    ...(cache.commit === undefined ? {} : { commit: cache.commit }),
    reason: report.since?.reason
      ? `the ledger is not the cached tip plus new records (${report.since.reason}): everything was verified`
      : (cache.reason ?? 'not used'),
  };
}

/** Whether this is a shallow clone (git keeps its grafted boundary in `shallow`). */
function isShallow(repo: RepoPaths): boolean {
  return existsSync(join(repo.commonDir, 'shallow'));
}

async function ledgerRefs(repo: RepoPaths): Promise<string> {
  const result = await runGit(
    ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/ledger/'],
    { cwd: repo.root, guard: repo.guard },
  );
  return result.stdout.toString('utf8');
}

export interface TrustedAttestation {
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
      .map((s) => judgeSignature(id, s.signature.armored, trust, 'auditor'))
      .find((v) => v.verified)?.signer;
    if (signer === undefined || signer === null) continue;
    const before = out.get(attestation.subject);
    if (!before || before.attestation.at < attestation.at)
      out.set(attestation.subject, { id, signer, attestation });
  }
  return out;
}

/**
 * Re-run verdicts (witness, claim.check) come from the attestation; everything else is
 * recomputed. A verdict is found by the check's id (v2), never by "the first with this check
 * and subject": a record that repeats a witness command has two such checks, and a recorded
 * contradiction of the second must not be read as the first one's pass. A v1 attestation has
 * no ids: its verdict is used only where (check, subject) names exactly one check on both sides.
 */
export function applyAttestation(checks: Check[], from: TrustedAttestation): Check[] {
  const RERUN = new Set(['witness', 'claim.check']);
  const prior = attestedVerdicts(checks, from.attestation);
  const out = checks.map((check) => {
    if (!RERUN.has(check.check) || check.verdict !== 'unverifiable') return check;
    const found = prior.get(check.id);
    if (!found || found.check !== check.check || found.subject !== check.subject) return check;
    return {
      ...check,
      verdict: found.verdict,
      detail: `${found.detail} (attested by ${from.signer} at ${from.attestation.at})`,
    };
  });
  out.push({
    id: 'attestation',
    check: 'attestation',
    subject: from.id,
    verdict: 'verified',
    detail: `started from an attestation signed by ${from.signer} under this policy (${from.attestation.at})`,
  });
  return out;
}

/** The attestation's verdicts by check id; ids that are ambiguous are left out. */
function attestedVerdicts(
  checks: readonly Check[],
  attestation: Attestation,
): Map<string, Omit<AttestedCheck, 'id'>> {
  const out = new Map<string, Omit<AttestedCheck, 'id'>>();
  const ambiguous = new Set<string>();
  const add = (key: string, verdict: Omit<AttestedCheck, 'id'>) => {
    if (out.has(key) || ambiguous.has(key)) {
      ambiguous.add(key);
      out.delete(key);
    } else out.set(key, verdict);
  };
  if (attestation.schema === ATTESTATION_SCHEMA) {
    for (const v of attestation.verdicts) add(v.id, v);
    return out;
  }
  // v1: by (check, subject), and only where that pair is unique among this record's checks.
  const pair = (c: { check: string; subject: string }) => JSON.stringify([c.check, c.subject]);
  const byPair = new Map<string, Omit<AttestedCheck, 'id'>>();
  for (const v of attestation.verdicts) {
    const key = pair(v);
    if (byPair.has(key) || ambiguous.has(key)) {
      ambiguous.add(key);
      byPair.delete(key);
    } else byPair.set(key, v);
  }
  const counts = new Map<string, number>();
  for (const c of checks) counts.set(pair(c), (counts.get(pair(c)) ?? 0) + 1);
  for (const c of checks) {
    const found = byPair.get(pair(c));
    if (found && counts.get(pair(c)) === 1) out.set(c.id, found);
  }
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
        id: c.id,
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

/** The witness output cap for re-runs (per stream); more than 4× in total ends the command. */
const RERUN_OUTPUT_CAP = 1024 * 1024;

export interface PreparedReruns {
  session: RerunSession;
  isolation: Isolation;
  info: NonNullable<VerifyReport['rerun']>;
  notes: string[];
}

/**
 * Everything `--rerun` needs before the first command: the isolation this machine offers
 * (refused up front when the policy requires isolation and there is none: nothing runs, exit
 * 2), the paths a witness must never see, and a session that owns the throw-away checkouts.
 */
export async function prepareReruns(
  repo: RepoPaths,
  store: ObjectReader,
  policy: Policy,
  timeoutMs: number | undefined,
  onProgress: ((message: string) => void) | undefined,
  /** Record time only: the work tree's git-ignored entries, shown to witnesses. */
  ignored?: readonly string[],
): Promise<PreparedReruns> {
  const isolation = await probeIsolation();
  const network = policy.rerun.isolation?.network ?? false;
  const statement = describeIsolation(isolation, network);
  if (isolation.mode === 'none' && policy.rerun.isolation?.required) {
    throw new LedgerError(
      'POLICY',
      'the policy requires isolated re-runs (rerun.isolation.required), and neither bubblewrap nor unshare can isolate a command here; nothing was re-run',
      {
        problems: isolation.unavailable.map((u) => ({ path: u.mode, message: u.reason })),
        hint: 'Install bubblewrap (Debian: apt-get install bubblewrap), or run verify where user namespaces are allowed.',
      },
    );
  }
  // Never visible to a witness: the repository and its git directories, where ledger runs,
  // and the user's home and XDG directories (the policy, the recorded-here list, keys).
  const never = [repo.root, repo.gitDir, repo.commonDir, process.cwd()];
  const personal = [homedir(), ...XDG_DIRS.map((name) => process.env[name])].filter(
    (path): path is string => path !== undefined && isAbsolute(path),
  );
  const { paths, refused } = await readOnlyPaths({
    env: process.env,
    execPath: process.execPath,
    policy: policyReadOnly(policy.rerun),
    never,
    personal,
  });
  const setup = setupSteps(policy.rerun, policy.witnessTimeoutSeconds);
  const session = createRerunSession({
    reader: store,
    isolation,
    setup,
    timeoutMs: timeoutMs ?? policy.witnessTimeoutSeconds * 1000,
    network,
    maxOutputBytes: RERUN_OUTPUT_CAP,
    checkoutBudget: checkoutBudget(policy.rerun),
    hidden: [...never, ...personal],
    readOnly: paths,
    baseEnv: process.env,
    ...(ignored === undefined
      ? {}
      : {
          workTreeIgnored: {
            root: repo.root,
            paths: ignored,
            never: [repo.gitDir, repo.commonDir],
          },
        }),
    // Commands are record text: escaped here, whatever the renderer does.
    ...(onProgress ? { onProgress: (message: string) => onProgress(sanitizeLine(message)) } : {}),
  });
  return {
    session,
    isolation,
    info: {
      isolation: {
        mode: isolation.mode,
        namespaces: namespacesOf(isolation.mode, network),
        network: isolation.mode === 'none' || network,
        unavailable: isolation.unavailable,
        statement,
      },
      setup: setup.map((step) => step.command),
    },
    notes: [
      statement,
      ...refused.map(
        (path) =>
          `policy rerun.isolation.readOnly: ${path} is not shown to witnesses (it must be an absolute path that exists, neither contains nor lies inside the repository, and does not contain your home)`,
      ),
    ],
  };
}

const XDG_DIRS = ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME'];

/**
 * The policy decides (who wrote the command, where the record was made), the session runs.
 * What a run printed is summarised for the report: digests of the whole kept output, and its
 * last lines with any secret of this process's environment masked (a witness that could read
 * it — only without isolation — must not get it printed).
 */
function makeRerunner(
  session: RerunSession,
  policy: Policy,
  recordedHere: ReadonlySet<string>,
  mode: IsolationMode,
): Rerunner {
  const secrets = secretsOf(process.env);
  const summarise = (run: WitnessRun, setup?: string): RerunOutput => {
    const digest = (bytes: Buffer, truncated: boolean) => ({
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
      truncated,
    });
    return {
      isolation: mode,
      exitCode: run.exitCode,
      signal: run.signal,
      timedOut: run.timedOut,
      durationMs: run.durationMs,
      stdout: digest(run.stdout, run.stdoutTruncated),
      stderr: digest(run.stderr, run.stderrTruncated),
      tail: {
        stdout: lastLines(maskSecrets(run.stdout, secrets, run.stdoutTruncated).bytes),
        stderr: lastLines(maskSecrets(run.stderr, secrets, run.stderrTruncated).bytes),
      },
      ...(setup === undefined ? {} : { setup }),
    };
  };
  return async ({ recordId, command, candidateTree, origin }) => {
    const decision = rerunDecision(policy.rerun, {
      origin,
      command,
      recordedHere: recordedHere.has(recordId),
    });
    if (!decision.allowed) return { ran: false, reason: decision.reason };
    const outcome = await session.run(candidateTree, command);
    if (outcome.kind === 'checkout-refused')
      return { ran: false, reason: `not re-run: ${outcome.reason}` };
    const { run } = outcome;
    const how = run.timedOut ? 'timed out' : `exit ${run.exitCode ?? run.signal}`;
    switch (outcome.kind) {
      case 'setup-failed':
        return {
          ran: false,
          reason: `not re-run: setup step \`${outcome.step}\` failed in the checkout (${how})`,
          output: summarise(run, outcome.step),
        };
      case 'sandbox-failed': {
        const said = lastLines(run.stderr, 1)[0] ?? `exit ${run.exitCode ?? run.signal}`;
        return {
          ran: false,
          reason: `not re-run: the ${mode} sandbox could not be set up (${said})`,
          output: summarise(run, outcome.step),
        };
      }
      case 'ran':
        return {
          ran: true,
          result: {
            exitCode: run.exitCode,
            signal: run.signal,
            timedOut: run.timedOut,
            output: summarise(run),
          },
        };
    }
  };
}
