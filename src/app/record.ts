/**
 * `ledger record`: validate every input first (exit 2 before anything is written), then
 * observe — snapshot the work tree, digest the artifacts, run the witnesses — and seal the
 * record into the ledger.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { encodeCanonical, toRecordId, type CborValue } from '../canonical/index.js';
import { detectFormat, formatModule } from '../formats/index.js';
import { emptyHandoff } from '../formats/mainark.js';
import type { ParsedHandoff } from '../formats/types.js';
import { appendRecord } from '../ledger/append.js';
import { LedgerError, type Problem } from '../model/errors.js';
import { killPoint } from '../model/faults.js';
import {
  Claims,
  RECORD_SCHEMA,
  Record as RecordSchema,
  STATUSES,
  type Evidence,
  type FormatName,
  type LedgerRecord,
  type ObservedArtifact,
  type Status,
  type WitnessObservation,
} from '../model/record.js';
import { LEDGER_VERSION } from '../model/version.js';
import { checkRepoPath, resolveInside, sanitizeLine } from '../paths/index.js';
import { deriveEffectiveStatus } from '../record/status.js';
import { parseCommit } from '../store/objects.js';
import type { ObjectStore } from '../store/port.js';
import { runGit } from '../store/git/exec.js';
import { snapshotWorktree } from '../store/git/snapshot.js';
import { maskSecrets, runWitness, secretsOf } from '../witness/index.js';
import { noteKnownEntry, noteRecordedHere } from './local.js';
import { resolveSigner, signByDefault, signId } from './trust.js';
import { withRepo } from './repo.js';

export interface RecordRequest {
  cwd: string;
  /** A handoff file: its bytes and its name as given. */
  from?: { bytes: Uint8Array; fileName: string };
  format?: FormatName;
  status?: string;
  summary?: string;
  task?: string;
  run?: string;
  attempt?: string;
  intent?: string;
  reworkOf?: string;
  producer?: string;
  base?: string;
  artifacts?: readonly string[];
  witnesses?: readonly string[];
  /** Extra evidence files (validation logs…): name → path. */
  evidence?: ReadonlyMap<string, string>;
  witnessTimeoutMs?: number;
  witnessOutputCap?: number;
  /** False: keep no witness output in the record (`--no-keep-output`); default true. */
  keepOutput?: boolean;
  /** Sign the record id with the user's SSH key; undefined: `ledger.sign` in the user's git config decides. */
  sign?: boolean;
  /** A key file, a `.pub` in ssh-agent or `key::…`; else the user's `user.signingKey`, else ssh-agent. */
  signingKey?: string;
  now?: Date;
  onProgress?: (message: string) => void;
}

export interface RecordOutcome {
  id: string;
  entryId: string;
  commit: string;
  added: boolean;
  record: LedgerRecord;
}

export const DEFAULT_WITNESS_TIMEOUT_MS = 10 * 60 * 1000;
export const DEFAULT_WITNESS_OUTPUT_CAP = 1024 * 1024;

export function recordHandoff(request: RecordRequest): Promise<RecordOutcome> {
  return withRepo(request.cwd, async ({ repo, store }) => {
    const now = request.now ?? new Date();
    const progress = request.onProgress ?? (() => undefined);
    const problems: Problem[] = [];

    // 1. Everything the user gave us, checked before anything is written.
    const evidenceFiles = await readEvidenceFiles(request.evidence, request.cwd, problems);
    const handoff = parseInput(request, repo.root, now, evidenceFiles, problems);
    const artifacts = await checkArtifacts(
      request.artifacts ?? [],
      request.cwd,
      repo.root,
      problems,
    );
    const witnesses = (request.witnesses ?? []).map((w, i) => {
      if (w.trim() === '')
        problems.push({ path: `witness[${i}]`, message: 'empty witness command' });
      return w;
    });
    const base = await resolveBase(repo.root, request.base ?? 'HEAD', problems);
    const signer =
      (request.sign ?? (await signByDefault()))
        ? await resolveSigner(request.signingKey)
        : undefined;
    if (problems.length > 0 || !handoff || !base) {
      throw new LedgerError(
        'INVALID_INPUT',
        `cannot record: ${problems.length} problem(s) in the input`,
        {
          problems,
          hint: 'Nothing was written. Fix the listed fields and run ledger record again.',
        },
      );
    }

    // 2. Observe: candidate tree first (what the agent handed over), then the witnesses.
    progress('snapshotting the work tree');
    const snapshot = await snapshotWorktree(repo, store, { include: artifacts });
    const observedArtifacts: ObservedArtifact[] = artifacts.map((path) => {
      const file = snapshot.files.get(path);
      if (!file) {
        throw new LedgerError(
          'ARTIFACT_NOT_FOUND',
          `artifact ${path} disappeared while the work tree was read`,
          {
            problems: [{ path: 'artifact', message: 'removed during the snapshot', got: path }],
            hint: 'Something changed the work tree while ledger record ran; nothing was written. Run it again.',
          },
        );
      }
      return { path, sha256: file.sha256, size: file.size, blob: file.blob };
    });
    const evidence = new Map<string, string>();
    const keep = async (bytes: Uint8Array, truncated = false): Promise<Evidence> => {
      const blob = await store.write('blob', bytes);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      evidence.set(sha256, blob);
      return { sha256, size: bytes.length, blob, ...(truncated ? { truncated } : {}) };
    };
    const observations = await observeWitnesses(witnesses, repo.root, request, keep, progress);
    const source = request.from ? await keep(request.from.bytes) : undefined;
    const keptEvidence = [];
    for (const [name, bytes] of evidenceFiles) keptEvidence.push({ name, file: await keep(bytes) });

    const baseObject = await store.read(base);
    if (!baseObject) {
      throw new LedgerError('CORRUPT', `the base commit ${base} cannot be read any more`, {
        hint: 'It was resolved a moment ago; the object database is damaged or was pruned meanwhile (git fsck). Nothing was written.',
      });
    }
    const baseTree = parseCommit(baseObject.bytes, base).tree;
    const branch = await currentBranch(repo.root);
    const { status, reasons } = deriveEffectiveStatus(
      handoff.status,
      handoff.reasons,
      observations,
    );

    // 3. Seal.
    const record: LedgerRecord = {
      schema: RECORD_SCHEMA,
      format: handoff.format,
      claims: handoff.claims,
      observed: {
        recordedAt: now.toISOString(),
        ledgerVersion: LEDGER_VERSION,
        ...(request.producer === undefined ? {} : { producer: request.producer }),
        base: { commit: base, tree: baseTree },
        candidate: { tree: snapshot.tree },
        ...(branch === undefined ? {} : { branch }),
        artifacts: observedArtifacts,
        witnesses: observations,
        evidence: keptEvidence,
        ...(source === undefined ? {} : { source }),
        ...(request.from === undefined
          ? {}
          : { input: { ...sourceName(request.from.fileName), root: repo.root } }),
        effectiveStatus: status,
        reasons,
      },
    };
    const checked = RecordSchema.safeParse(record);
    if (!checked.success) {
      throw new LedgerError('INVALID_INPUT', 'the record does not fit the record schema', {
        problems: checked.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      });
    }
    const recordBytes = encodeCanonical(stripUndefined(record) as CborValue);
    // Signed before anything is appended: a key that cannot sign leaves the ledger untouched.
    const signatures = signer ? [await signId(toRecordId(recordBytes), signer)] : [];
    killPoint('before-append');
    progress('writing the record');
    const appended = await appendRecord(
      store,
      {
        recordBytes,
        candidateTree: snapshot.tree,
        baseTree,
        baseCommitBytes: baseObject.bytes,
        evidence,
        signatures,
      },
      now,
    );
    await noteRecordedHere(repo, appended.id);
    if (appended.entryId !== '') await noteKnownEntry(repo, appended.entryId);
    return { ...appended, id: toRecordId(recordBytes), record };
  });
}

/** How often a running witness reports its elapsed time. */
const WITNESS_HEARTBEAT_MS = 10_000;

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * Runs the user's witnesses in the work tree, one after another, with the user's own
 * environment (it is their command) — but what they print travels with the ledger, so the
 * values of secret-looking variables are masked before the output is hashed and kept, and the
 * evidence names the variables (`masked`). With `keepOutput: false` no output is kept at all.
 * Ctrl-C while one runs ends its whole process group (`runWitness`).
 */
async function observeWitnesses(
  witnesses: readonly string[],
  root: string,
  request: RecordRequest,
  keep: (bytes: Uint8Array, truncated?: boolean) => Promise<Evidence>,
  progress: (message: string) => void,
): Promise<WitnessObservation[]> {
  const secrets = secretsOf(process.env);
  const keepMasked = async (bytes: Buffer, truncated: boolean): Promise<Evidence> => {
    const masked = maskSecrets(bytes, secrets, truncated);
    const evidence = await keep(masked.bytes, truncated);
    return masked.names.length === 0 ? evidence : { ...evidence, masked: masked.names };
  };
  const observations: WitnessObservation[] = [];
  for (const [i, command] of witnesses.entries()) {
    const shown = sanitizeLine(command);
    progress(`running witness ${i + 1}/${witnesses.length}: ${shown}`);
    const run = await runWitness({
      command,
      cwd: root,
      env: process.env,
      timeoutMs: request.witnessTimeoutMs ?? DEFAULT_WITNESS_TIMEOUT_MS,
      maxOutputBytes: request.witnessOutputCap ?? DEFAULT_WITNESS_OUTPUT_CAP,
      heartbeat: {
        everyMs: WITNESS_HEARTBEAT_MS,
        notify: (elapsed) => progress(`still running (${seconds(elapsed)}): ${shown}`),
      },
    });
    const how = run.timedOut
      ? 'timed out'
      : run.exitCode === null
        ? `ended by ${run.signal}`
        : `exit ${run.exitCode}`;
    progress(`${how} after ${seconds(run.durationMs)}: ${shown}`);
    observations.push({
      command,
      exitCode: run.exitCode,
      signal: run.signal,
      timedOut: run.timedOut,
      durationMs: Math.round(run.durationMs),
      ...(request.keepOutput === false
        ? {}
        : {
            stdout: await keepMasked(run.stdout, run.stdoutTruncated),
            stderr: await keepMasked(run.stderr, run.stderrTruncated),
          }),
    });
  }
  return observations;
}

/** zod output may carry explicit `undefined` for absent optionals; CBOR has no such value. */
export function stripUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripUndefined);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = stripUndefined(v);
    return out;
  }
  return value;
}

interface Handoff extends ParsedHandoff {
  format: FormatName;
}

function parseInput(
  request: RecordRequest,
  repoRoot: string,
  now: Date,
  attachments: ReadonlyMap<string, Uint8Array>,
  problems: Problem[],
): Handoff | undefined {
  let handoff: Handoff | undefined;
  if (request.from) {
    let module;
    try {
      module = request.format
        ? formatModule(request.format)
        : detectFormat(request.from.bytes, request.from.fileName);
    } catch (error) {
      if (error instanceof LedgerError) {
        problems.push({
          path: 'from',
          message: error.message + (error.hint ? ` ${error.hint}` : ''),
        });
        return undefined;
      }
      throw error;
    }
    const result = module.parse(request.from.bytes, {
      repoRoot,
      ...sourceName(request.from.fileName),
      attachments,
      now,
    });
    if (!result.ok) {
      problems.push(
        ...result.problems.map((p) => ({ ...p, path: p.path === '' ? 'from' : `from:${p.path}` })),
      );
      return undefined;
    }
    handoff = { ...result.handoff, format: module.name };
  } else if (request.format === 'mainark') {
    // A Mainark run that left no partial still yields a record that says so.
    handoff = { ...emptyHandoff(request.task), format: 'mainark' };
  } else if (request.format !== undefined && request.format !== 'ledger') {
    problems.push({
      path: 'from',
      message: `--format ${request.format} needs a handoff file (--from FILE)`,
    });
    return undefined;
  } else {
    if (request.status === undefined) {
      problems.push({
        path: 'status',
        message: 'a status is required when no handoff file is given',
        expected: STATUSES.join(' | '),
      });
      return undefined;
    }
    handoff = {
      format: 'ledger',
      claims: { status: request.status },
      status: 'success',
      reasons: [],
    };
  }
  const claims: Record<string, unknown> = { ...handoff.claims };
  const fields = ['status', 'summary', 'task', 'run', 'attempt', 'intent', 'reworkOf'] as const;
  for (const field of fields) {
    const given = request[field];
    if (given === undefined) continue;
    if (claims[field] !== undefined && claims[field] !== given && request.from) {
      problems.push({
        path: field,
        message: `--${flagName(field)} conflicts with the handoff file`,
        expected: String(claims[field]),
        got: given,
      });
    }
    claims[field] = given;
  }
  const parsed = Claims.safeParse(claims);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      problems.push({ path: issue.path.join('.'), message: issue.message });
    return undefined;
  }
  let status = handoff.status;
  if (handoff.format === 'ledger') {
    if (!(STATUSES as readonly string[]).includes(parsed.data.status)) {
      problems.push({
        path: 'status',
        message: 'unknown status',
        expected: STATUSES.join(' | '),
        got: parsed.data.status,
      });
      return undefined;
    }
    status = parsed.data.status as Status;
  }
  return { ...handoff, claims: parsed.data, status };
}

/**
 * The handoff's file name as the formats see it, and as the record keeps it so that `verify`
 * parses the kept bytes exactly as `record` did: the last component only (formats read
 * meaning from the name, never from where the file lay), and none for standard input.
 */
function sourceName(given: string): { fileName?: string } {
  const name = basename(given);
  return given === '-' || name === '' ? {} : { fileName: name };
}

function flagName(field: string): string {
  return field === 'reworkOf' ? 'rework-of' : field;
}

async function checkArtifacts(
  paths: readonly string[],
  cwd: string,
  root: string,
  problems: Problem[],
): Promise<string[]> {
  // Checked concurrently (a record may name thousands of artifacts); reported in input order.
  const check = async (given: string, i: number): Promise<string | Problem> => {
    const where = `artifact[${i}]`;
    const absolute = isAbsolute(given) ? given : resolve(cwd, given);
    // Only Windows separates with backslashes; on POSIX one is part of a name, and checkRepoPath
    // refuses it rather than letting `a\b` silently name `a/b`.
    const rel =
      sep === '\\' ? relative(root, absolute).split('\\').join('/') : relative(root, absolute);
    const checked = checkRepoPath(rel === '' ? '.' : rel);
    if (!checked.ok) return { path: where, message: `${given}: ${checked.problem}`, got: given };
    const inside = await resolveInside(root, checked.path);
    if (!inside.ok) return { path: where, message: `${given}: ${inside.problem}`, got: given };
    return checked.path;
  };
  const results: (string | Problem)[] = [];
  for (let start = 0; start < paths.length; start += 64) {
    const chunk = paths.slice(start, start + 64);
    results.push(...(await Promise.all(chunk.map((given, j) => check(given, start + j)))));
  }
  const out = new Set<string>();
  for (const result of results) {
    if (typeof result === 'string') out.add(result);
    else problems.push(result);
  }
  return [...out];
}

async function readEvidenceFiles(
  files: ReadonlyMap<string, string> | undefined,
  cwd: string,
  problems: Problem[],
): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const [name, path] of files ?? []) {
    try {
      out.set(name, await readFile(resolve(cwd, path)));
    } catch (error) {
      problems.push({
        path: `evidence.${name}`,
        message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
      });
    }
  }
  return out;
}

async function resolveBase(
  root: string,
  rev: string,
  problems: Problem[],
): Promise<string | undefined> {
  const result = await runGit(
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`],
    { cwd: root },
  );
  const oid = result.stdout.toString().trim();
  if (result.code !== 0 || !/^[0-9a-f]{40}$/.test(oid)) {
    problems.push({
      path: 'base',
      message:
        rev === 'HEAD'
          ? 'the repository has no commit yet to use as the base'
          : `${rev} does not name a commit in this repository`,
      expected: 'a commit (branch, tag or object id)',
      got: rev,
    });
    return undefined;
  }
  return oid;
}

async function currentBranch(root: string): Promise<string | undefined> {
  const result = await runGit(['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: root });
  const name = result.stdout.toString().trim();
  return result.code === 0 && name !== '' ? name : undefined;
}

export type { ObjectStore };
