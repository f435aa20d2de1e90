/**
 * `ledger record`: validate every input first (exit 2 before anything is written), then
 * observe — snapshot the work tree, digest the artifacts, run the witnesses — and seal the
 * record into the ledger.
 */
import { createHash } from 'node:crypto';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { encodeCanonical, toRecordId, type CborValue } from '../canonical/index.js';
import {
  detectFormat,
  formatModule,
  issuesToProblems,
  malformedHandoffFormat,
  type FormatModule,
  type ParsedHandoff,
  type ParseResult,
} from '../formats/index.js';
import { appendRecord } from '../ledger/append.js';
import { LedgerError, type Problem } from '../model/errors.js';
import { killPoint } from '../model/faults.js';
import {
  Claims,
  RECORD_SCHEMA,
  RECORD_SCHEMA_V3,
  Record as RecordSchema,
  type Evidence,
  type FormatName,
  type LedgerRecord,
  type ObservedArtifact,
  type Reason,
  type Status,
  type WitnessIsolation,
  type WitnessObservation,
} from '../model/record.js';
import { LEDGER_VERSION } from '../model/version.js';
import {
  checkRepoPath,
  readRegularFile,
  resolveInside,
  resolveMemo,
  sanitizeLine,
} from '../paths/index.js';
import { deriveStatus, type DerivableRecord, type KeptInputs } from '../record/derive.js';
import { parseCommit } from '../store/objects.js';
import type { ObjectStore } from '../store/port.js';
import { runGit } from '../store/git/exec.js';
import { branchOf, readHead, type Head } from '../store/git/head.js';
import type { GitStore } from '../store/git/store.js';
import type { RepoPaths } from '../store/git/repo.js';
import {
  DEFAULT_UNTRACKED_BUDGET,
  snapshotWorktree,
  type UntrackedBudget,
} from '../store/git/snapshot.js';
import { USER_SCOPES } from '../store/git/config.js';
import { openLocalState } from './local-state.js';
import { claimedArtifacts } from './claimed-artifacts.js';
import { findSecrets, secretRefusal } from './secrets.js';
import { signByDefault } from './sign-setting.js';
import { requireWorkTree, withRepo } from './repo.js';

/** A handoff already read (standard input, a library caller): its bytes and its name as given. */
export interface HandoffBytes {
  bytes: Uint8Array;
  fileName: string;
}

export interface RecordRequest {
  cwd: string;
  /**
   * The handoff: a file to read (`path`, relative to `cwd`; read as a regular file only, within
   * `MAX_HANDOFF_FILE_BYTES`, never through a link that leaves the repository), or bytes
   * already read.
   */
  from?: HandoffBytes | { path: string };
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
  /**
   * Untracked files to store although they look secret (`--include-untracked`); without it an
   * untracked, non-ignored file that looks secret is refused (SECRET_FILE, app/secrets.ts).
   */
  includeUntracked?: readonly string[];
  /** Snapshot tracked files only: untracked files stay out unless named (`--tracked-only`). */
  trackedOnly?: boolean;
  witnesses?: readonly string[];
  /** Extra evidence files (validation logs…): name → path. */
  evidence?: ReadonlyMap<string, string>;
  witnessTimeoutMs?: number;
  witnessOutputCap?: number;
  /** False: keep no witness output in the record (`--no-keep-output`); default true. */
  keepOutput?: boolean;
  /** Sign the record id with the user's SSH key; undefined: `ledger.sign` in the user's git config decides. */
  sign?: boolean;
  /**
   * What the signature says: `producer` (default) signs the record id — "I made this";
   * `recorder` signs `recorderMessage(id)` — "ledger recorded this on my machine", all that an
   * MCP server or hook can vouch for when the agent, not the user, supplies the handoff.
   */
  signAs?: 'producer' | 'recorder';
  /**
   * Run the witnesses as `verify --rerun` runs them (a sandbox, a checkout of the candidate
   * tree, a scrubbed environment with a throw-away HOME) instead of in the work tree with the
   * user's environment; the record then says how (`observed.isolation`, schema v3).
   */
  isolate?: boolean;
  /** As git's user.signingKey: a key file, a `.pub`, or `key::…` (in ssh-agent); else user.signingKey, else the agent's first key. */
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
  /** When the format was detected: which, how sure, and the signals it rested on. */
  detected?: { format: FormatName; confidence: number; signals: string[] };
}

export const DEFAULT_WITNESS_TIMEOUT_MS = 10 * 60 * 1000;
export const DEFAULT_WITNESS_OUTPUT_CAP = 1024 * 1024;
/** The largest handoff file read (the formats refuse larger ones anyway). */
export const MAX_HANDOFF_FILE_BYTES = 16 * 1024 * 1024;
/** The largest `--evidence` file read: a validation log, not a data set. */
export const MAX_EVIDENCE_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The untracked budget from the user's own git config (`ledger.maxUntrackedFileBytes`,
 * `ledger.maxUntrackedBytes`, git's k/m/g suffixes), never the repository's: the agent could
 * otherwise set it to 0 and keep its own files out of the candidate tree.
 */
function untrackedBudget(repo: RepoPaths): UntrackedBudget {
  const size = (key: string, fallback: number): number => {
    const raw = repo.config.get(key, USER_SCOPES)?.trim().toLowerCase();
    const match = raw === undefined ? null : /^(\d+)([kmg]?)$/.exec(raw);
    if (match === null) return fallback;
    const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match[2] as '' | 'k' | 'm' | 'g'];
    return Number(match[1]) * unit;
  };
  return {
    maxFileBytes: size('ledger.maxuntrackedfilebytes', DEFAULT_UNTRACKED_BUDGET.maxFileBytes),
    maxTotalBytes: size('ledger.maxuntrackedbytes', DEFAULT_UNTRACKED_BUDGET.maxTotalBytes),
  };
}

/** A request whose handoff, if any, has been read. */
type ReadRequest = Omit<RecordRequest, 'from'> & { from?: HandoffBytes };

export function recordHandoff(given: RecordRequest): Promise<RecordOutcome> {
  return withRepo(given.cwd, async ({ repo, store }) => {
    const root = requireWorkTree(repo, 'ledger record');
    const now = given.now ?? new Date();
    const progress = given.onProgress ?? (() => undefined);
    const problems: Problem[] = [];

    // 1. Everything the user gave us, checked before anything is written.
    const { from: named, ...rest } = given;
    const from = await readHandoff(named, given.cwd, root, problems);
    const request: ReadRequest = from === undefined ? rest : { ...rest, from };
    const evidenceFiles = await readEvidenceFiles(request.evidence, request.cwd, root, problems);
    // A handoff file that could not be read is already a problem; parsing nothing would only
    // add a misleading one ("a status is required").
    const handoff =
      named !== undefined && from === undefined
        ? undefined
        : await parseInput(request, root, now, evidenceFiles, problems);
    const artifacts = await checkArtifacts(request.artifacts ?? [], request.cwd, root, problems);
    const kept = await checkArtifacts(
      request.includeUntracked ?? [],
      request.cwd,
      root,
      problems,
      'include-untracked',
    );
    const witnesses = (request.witnesses ?? []).map((w, i) => {
      if (w.trim() === '')
        problems.push({ path: `witness[${i}]`, message: 'empty witness command' });
      return w;
    });
    const head = await readHead(repo);
    const base = await resolveBase(repo, store, head, request.base, problems);
    // Signing and witnesses load on first use: most records have neither, and their modules
    // (ssh-keygen, policy parsing, process groups) are start-up time every record would pay.
    const trust = (request.sign ?? signByDefault(repo)) ? await import('./trust.js') : undefined;
    const signer = trust && (await trust.resolveSigner(repo, request.signingKey, request.cwd));
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
    const snapshot = await snapshotWorktree(repo, store, {
      include: [...new Set([...artifacts, ...kept])],
      untracked: untrackedBudget(repo),
      ...(request.trackedOnly === true ? { trackedOnly: true } : {}),
    });
    for (const file of snapshot.skipped) progress(`not stored: ${file.path} (${file.reason})`);
    // Before any witness runs or anything is written: nothing secret is stored by accident.
    const secrets = await findSecrets(
      store,
      [...snapshot.untracked].flatMap((path) => snapshot.files.get(path) ?? []),
      new Set(kept),
    );
    if (secrets.length > 0) throw secretRefusal(secrets);
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
    const isolated =
      request.isolate === true && witnesses.length > 0
        ? await isolatedWitnesses(repo, store, request, progress)
        : undefined;
    let observations: WitnessObservation[];
    try {
      observations = await observeWitnesses(
        witnesses,
        isolated === undefined ? inWorkTree(root, request) : isolated.run(snapshot.tree),
        request,
        keep,
        progress,
      );
    } finally {
      await isolated?.close();
    }
    const source = request.from ? await keep(request.from.bytes) : undefined;
    const keptEvidence = [];
    for (const [name, bytes] of evidenceFiles) keptEvidence.push({ name, file: await keep(bytes) });

    const baseCommitBytes =
      base.commit === null ? undefined : await readBaseCommit(store, base.commit);
    // Before the first commit the base is the empty tree, written so that it is a real object
    // of the ledger's tree like any other base.
    const baseTree =
      baseCommitBytes === undefined
        ? await store.write('tree', new Uint8Array())
        : parseCommit(baseCommitBytes, base.commit ?? undefined).tree;
    // Claimed files the trees confirm are observed artifacts too, digested from the candidate
    // tree (not named with --artifact: a hook or MCP record has no one to name them).
    observedArtifacts.push(
      ...(await claimedArtifacts(
        store,
        handoff.claims.artifacts ?? [],
        { base: baseTree, candidate: snapshot.tree },
        snapshot.files,
        new Set(artifacts),
      )),
    );
    const branch = await currentBranch(repo, head);
    const input =
      request.from === undefined ? undefined : { ...sourceName(request.from.fileName), root };
    const { status, reasons } = sealedStatus(
      {
        schema: RECORD_SCHEMA,
        format: handoff.format,
        claims: handoff.claims,
        observed: {
          recordedAt: now.toISOString(),
          witnesses: observations,
          ...(input === undefined ? {} : { input }),
        },
      },
      { source: request.from?.bytes, attachments: evidenceFiles },
    );

    // 3. Seal.
    const record: LedgerRecord = {
      schema:
        isolated === undefined && snapshot.skipped.length === 0 ? RECORD_SCHEMA : RECORD_SCHEMA_V3,
      format: handoff.format,
      claims: handoff.claims,
      observed: {
        recordedAt: now.toISOString(),
        ledgerVersion: LEDGER_VERSION,
        ...(request.producer === undefined ? {} : { producer: request.producer }),
        base: { commit: base.commit, tree: baseTree },
        candidate: { tree: snapshot.tree },
        ...(branch === undefined ? {} : { branch }),
        artifacts: observedArtifacts,
        witnesses: observations,
        evidence: keptEvidence,
        ...(source === undefined ? {} : { source }),
        ...(input === undefined ? {} : { input }),
        ...(snapshot.skipped.length === 0 ? {} : { skipped: snapshot.skipped }),
        effectiveStatus: status,
        reasons,
        ...(isolated === undefined ? {} : { isolation: isolated.isolation }),
      },
    };
    const checked = RecordSchema.safeParse(record);
    if (!checked.success) {
      throw new LedgerError('INVALID_INPUT', 'the record does not fit the record schema', {
        problems: issuesToProblems(checked.error.issues, record),
      });
    }
    const recordBytes = encodeCanonical(stripUndefined(record) as CborValue);
    // Signed before anything is appended: a key that cannot sign leaves the ledger untouched.
    const sign = request.signAs === 'recorder' ? trust?.signAsRecorder : trust?.signId;
    const signatures = sign && signer ? [await sign(toRecordId(recordBytes), signer)] : [];
    killPoint('before-append');
    progress('writing the record');
    const appended = await appendRecord(
      store,
      {
        recordBytes,
        candidateTree: snapshot.tree,
        baseTree,
        baseCommitBytes,
        evidence,
        signatures,
      },
      now,
    );
    const local = openLocalState(repo, store);
    await local.noteRecordedHere(appended.id);
    if (appended.entryId !== '') await local.noteKnownEntry(appended.entryId);
    return {
      ...appended,
      id: toRecordId(recordBytes),
      record,
      ...(handoff.detected ? { detected: handoff.detected } : {}),
    };
  });
}

/**
 * The effective status a record is sealed with: exactly what `verify` re-derives from the
 * record later (same function, same bytes, same context), so the two cannot disagree.
 */
export function sealedStatus(
  record: DerivableRecord,
  kept: KeptInputs,
): { status: Status; reasons: Reason[] } {
  const derived = deriveStatus(record, kept);
  if (!derived.ok || derived.caveat !== undefined) {
    throw new LedgerError(
      'INVALID_INPUT',
      `cannot derive the effective status: ${derived.ok ? derived.caveat : derived.problem}`,
      { hint: 'Nothing was written. This is a bug in ledger; please report it with the input.' },
    );
  }
  return { status: derived.status, reasons: derived.reasons };
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
  runner: WitnessRunner,
  request: RecordRequest,
  keep: (bytes: Uint8Array, truncated?: boolean) => Promise<Evidence>,
  progress: (message: string) => void,
): Promise<WitnessObservation[]> {
  if (witnesses.length === 0) return [];
  const { maskSecrets, secretsOf } = await import('../witness/index.js');
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
    const run = await runner(command, (elapsed) =>
      progress(`still running (${seconds(elapsed)}): ${shown}`),
    );
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

type WitnessRunner = (
  command: string,
  heartbeat: (elapsedMs: number) => void,
) => Promise<import('../witness/index.js').WitnessRun>;

/** The user's own command, in the work tree, with the user's whole environment. */
function inWorkTree(root: string, request: RecordRequest): WitnessRunner {
  return async (command, heartbeat) => {
    const { runWitness } = await import('../witness/index.js');
    return runWitness({
      command,
      cwd: root,
      env: process.env,
      timeoutMs: request.witnessTimeoutMs ?? DEFAULT_WITNESS_TIMEOUT_MS,
      maxOutputBytes: request.witnessOutputCap ?? DEFAULT_WITNESS_OUTPUT_CAP,
      heartbeat: { everyMs: WITNESS_HEARTBEAT_MS, notify: heartbeat },
    });
  };
}

/**
 * Witnesses run as `verify --rerun` runs them — the same session, sandbox, hidden paths and
 * setup steps of the user's policy — in a checkout of the candidate tree just snapshotted: the
 * command an agent wrote (`npm test`) sees a writable copy of what it handed over, a throw-away
 * HOME and a scrubbed environment (no ssh-agent socket, no credentials), never the user's HOME
 * or the repository. A run the sandbox or a setup step stopped is no observation: nothing is
 * recorded, and the error says why.
 */
async function isolatedWitnesses(
  repo: RepoPaths,
  store: GitStore,
  request: RecordRequest,
  progress: (message: string) => void,
): Promise<{
  isolation: WitnessIsolation;
  run: (tree: string) => WitnessRunner;
  close: () => Promise<void>;
}> {
  const [{ prepareReruns }, { loadPolicy }, { describeIsolation, MAX_WORKTREE_BINDS }] =
    await Promise.all([
      import('./rerun/prepare.js'),
      import('./local.js'),
      import('../witness/index.js'),
    ]);
  const { policy } = await loadPolicy();
  const { listIgnored } = await import('../store/git/ignored.js');
  // The work tree's ignored files (node_modules) are shown too: without them an honest
  // `npm test` fails here while it passes in the work tree.
  const reruns = await prepareReruns(
    repo,
    store,
    policy,
    request.witnessTimeoutMs,
    progress,
    await listIgnored(repo),
    // One tree: its witnesses run one after another whatever the bound.
    1,
  );
  const network = policy.rerun.isolation?.network ?? false;
  const info = reruns.info.isolation;
  return {
    isolation: {
      mode: info.mode,
      namespaces: [...info.namespaces],
      network: info.network,
      statement: `${describeIsolation(reruns.isolation, network, 'witnesses')}; the work tree's git-ignored entries (up to ${MAX_WORKTREE_BINDS}, no symlinks, nothing outside the work tree) shown read-write`,
    },
    run: (tree) => async (command) => {
      const outcome = await reruns.session.run(tree, command);
      if (outcome.kind === 'ran') return outcome.run;
      if (outcome.kind === 'checkout-refused')
        throw new LedgerError(
          'POLICY',
          `cannot record: witness ${sanitizeLine(command)} has no checkout to run in: ${sanitizeLine(outcome.reason)}`,
          {
            hint: "Nothing was written. Raise the policy's rerun.checkout budget, or leave the large files out of the work tree.",
          },
        );
      const said = outcome.run.stderr.toString('utf8').trim().split('\n').slice(-3).join(' / ');
      throw new LedgerError(
        outcome.kind === 'setup-failed' ? 'POLICY' : 'SYSTEM',
        outcome.kind === 'setup-failed'
          ? `cannot record: the policy's setup step ${sanitizeLine(outcome.step)} failed before witness ${sanitizeLine(command)} could run${said === '' ? '' : `: ${sanitizeLine(said)}`}`
          : `cannot record: witness ${sanitizeLine(command)} could not be isolated${said === '' ? '' : `: ${sanitizeLine(said)}`}`,
        {
          hint: 'Nothing was written. Fix the setup step in your policy (rerun.setup), or run the witness where bubblewrap or unshare works.',
        },
      );
    },
    close: () => reruns.session.close(),
  };
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
  detected?: RecordOutcome['detected'];
}

/**
 * The handoff: the input file through its format's module (named, or detected with the
 * signals that decided it), or the module's handoff from flags alone; then the claim flags,
 * which may add to the file but never contradict it.
 */
async function parseInput(
  request: ReadRequest,
  repoRoot: string,
  now: Date,
  attachments: ReadonlyMap<string, Uint8Array>,
  problems: Problem[],
): Promise<Handoff | undefined> {
  let module: FormatModule;
  let detected: Handoff['detected'];
  let result: ParseResult;
  if (request.from) {
    try {
      if (request.format) module = formatModule(request.format);
      else {
        const malformed = malformedHandoffFormat(request.from.bytes, request.from.fileName);
        if (malformed !== undefined) {
          // Meant as a handoff, recognised by no format: its own problems, not "which format?".
          module = malformed;
          detected = {
            format: malformed.name,
            confidence: 0,
            signals: ['a JSON object with a status and handoff keys, which no format recognised'],
          };
        } else {
          const found = detectFormat(request.from.bytes, request.from.fileName);
          module = found.module;
          detected = { format: found.module.name, confidence: found.score, signals: found.signals };
        }
      }
    } catch (error) {
      if (!(error instanceof LedgerError)) throw error;
      problems.push({
        path: 'from',
        // The message and its hint are two sentences; joined bare they read as one.
        message: error.hint ? `${error.message.replace(/\.$/, '')}. ${error.hint}` : error.message,
      });
      return undefined;
    }
    result = module.parse(request.from.bytes, {
      repoRoot,
      worktrees: await otherWorktrees(repoRoot),
      ...sourceName(request.from.fileName),
      attachments,
      now,
      // No policy gates: the stored status is the format's own rule, the same for every
      // auditor, so any verifier can re-derive it; verify applies its policy's gates on top.
    });
  } else {
    module = formatModule(request.format ?? 'ledger');
    if (module.fromFlags === undefined) {
      problems.push({
        path: 'from',
        message: `--format ${module.name} needs a handoff file (--from FILE)`,
      });
      return undefined;
    }
    result = module.fromFlags({
      ...(request.status === undefined ? {} : { status: request.status }),
      ...(request.task === undefined ? {} : { task: request.task }),
    });
  }
  if (!result.ok) {
    const from = request.from;
    const recognised =
      from === undefined || request.format === undefined || looksLike(module.name, from);
    problems.push(
      ...result.problems.map((p) => ({
        ...withoutFileContent(p, recognised),
        path: from ? (p.path === '' ? 'from' : `from:${p.path}`) : p.path,
      })),
    );
    return undefined;
  }
  const handoff = result.handoff;
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
    problems.push(...issuesToProblems(parsed.error.issues, claims));
    return undefined;
  }
  return {
    ...handoff,
    claims: parsed.data,
    format: module.name,
    ...(detected ? { detected } : {}),
  };
}

/**
 * The other worktrees of this repository (`git worktree list`): an agent that worked in one
 * writes absolute paths under it, which map into the repository as well.
 */
async function otherWorktrees(root: string): Promise<string[]> {
  const listed = await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: root });
  if (listed.code !== 0) return [];
  return listed.stdout
    .toString()
    .split('\0')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length))
    .filter((p) => p !== root);
}

/** Whether detection, too, would read these bytes as `format`: the file is such a handoff. */
function looksLike(format: FormatName, from: HandoffBytes): boolean {
  if (malformedHandoffFormat(from.bytes, from.fileName)?.name === format) return true;
  try {
    return detectFormat(from.bytes, from.fileName).module.name === format;
  } catch {
    return false;
  }
}

/**
 * A parse problem that quotes nothing of the file, when the file may not be a handoff at all
 * (`--from ~/.aws/credentials --format kxm` must not print the keys): the whole-document
 * problems ("no handoff section found, got <the first line>") never quote it, field problems
 * quote it only when the file is recognisably a handoff of that format, and a JSON syntax
 * error never carries the snippet V8 puts in its message.
 */
function withoutFileContent(problem: Problem, recognised: boolean): Problem {
  const wholeDocument = problem.path === '' || problem.path === '(document)';
  const { got, ...rest } = problem;
  const kept = got !== undefined && recognised && !wholeDocument ? { ...rest, got } : rest;
  return {
    ...kept,
    message: kept.message.replace(
      /Unexpected token .*? is not valid JSON/s,
      'an unexpected character: not valid JSON',
    ),
  };
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
  field = 'artifact',
): Promise<string[]> {
  // Checked concurrently (a record may name thousands of artifacts); reported in input order.
  const memo = resolveMemo();
  const check = async (given: string, i: number): Promise<string | Problem> => {
    const where = `${field}[${i}]`;
    const absolute = isAbsolute(given) ? given : resolve(cwd, given);
    // Only Windows separates with backslashes; on POSIX one is part of a name, and checkRepoPath
    // refuses it rather than letting `a\b` silently name `a/b`.
    const rel =
      sep === '\\' ? relative(root, absolute).split('\\').join('/') : relative(root, absolute);
    const checked = checkRepoPath(rel === '' ? '.' : rel);
    if (!checked.ok) return { path: where, message: `${given}: ${checked.problem}`, got: given };
    const inside = await resolveInside(root, checked.path, memo);
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
  root: string,
  problems: Problem[],
): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const [name, path] of files ?? []) {
    const read = await readRegularFile(resolve(cwd, path), {
      root,
      maxBytes: MAX_EVIDENCE_FILE_BYTES,
    });
    if (read.ok) out.set(name, read.bytes);
    else
      problems.push({ path: `evidence.${name}`, message: `cannot read ${path}: ${read.problem}` });
  }
  return out;
}

/**
 * The handoff file, read as a regular file only (no FIFO, device or directory), within
 * `MAX_HANDOFF_FILE_BYTES`, and never through a symlink that leads out of the repository: an
 * agent's `HANDOFF.md -> ~/.ssh/id_ed25519` must not be stored and pushed.
 */
async function readHandoff(
  from: RecordRequest['from'],
  cwd: string,
  root: string,
  problems: Problem[],
): Promise<HandoffBytes | undefined> {
  if (from === undefined || !('path' in from)) return from;
  const read = await readRegularFile(resolve(cwd, from.path), {
    root,
    maxBytes: MAX_HANDOFF_FILE_BYTES,
  });
  if (read.ok) return { bytes: read.bytes, fileName: from.path };
  problems.push({ path: 'from', message: `cannot read ${from.path}: ${read.problem}` });
  return undefined;
}

/**
 * The base commit: `--base REV`, else HEAD. When HEAD names a branch with no commit yet (a new
 * repository) the base is `null` — the empty tree — so an agent's first run in a new project
 * can be recorded. Any other revision that names no commit is an input problem.
 */
async function resolveBase(
  repo: RepoPaths,
  store: GitStore,
  head: Head,
  given: string | undefined,
  problems: Problem[],
): Promise<{ commit: string | null } | undefined> {
  const rev = given ?? 'HEAD';
  if (rev === 'HEAD') {
    // The common case without a spawn: HEAD read in-process, the commit through the object
    // reader record needs anyway. Anything less plain (a tag, a missing object) goes to git.
    const named = await headCommit(store, head);
    if (named !== undefined) return { commit: named };
  }
  const result = await runGit(
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`],
    { cwd: repo.root, guard: repo.guard },
  );
  const oid = result.stdout.toString().trim();
  if (result.code === 0 && /^[0-9a-f]{40}$/.test(oid)) return { commit: oid };
  // `--base HEAD` (the CLI's default) on an unborn branch means the same: no commit yet.
  if (rev === 'HEAD' && (await isUnborn(repo))) return { commit: null };
  problems.push({
    path: 'base',
    message:
      rev === 'HEAD'
        ? 'HEAD does not name a commit'
        : `${rev} does not name a commit in this repository`,
    expected: 'a commit (branch, tag or object id)',
    got: rev,
  });
  return undefined;
}

/**
 * The commit HEAD names, read in-process; undefined when git must answer: HEAD names no ref
 * (an unborn branch, which git tells apart from a broken ref), something other than a commit
 * (a tag), or was not recognised.
 */
async function headCommit(store: GitStore, head: Head): Promise<string | undefined> {
  let oid: string | undefined;
  if (head.kind === 'detached') oid = head.oid;
  else if (head.kind === 'symbolic') oid = await store.readRef(head.ref).catch(() => undefined);
  if (oid === undefined) return undefined;
  const object = await store.read(oid);
  return object?.type === 'commit' ? oid : undefined;
}

/** HEAD names a branch with no commit yet (a new repository, or `git checkout --orphan`). */
async function isUnborn(repo: RepoPaths): Promise<boolean> {
  const head = await runGit(['symbolic-ref', '--quiet', 'HEAD'], {
    cwd: repo.root,
    guard: repo.guard,
  });
  const ref = head.stdout.toString().trim();
  if (head.code !== 0 || ref === '') return false;
  const exists = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', ref], {
    cwd: repo.root,
    guard: repo.guard,
  });
  return exists.code !== 0;
}

async function readBaseCommit(store: ObjectStore, oid: string): Promise<Uint8Array> {
  const object = await store.read(oid);
  if (object?.type !== 'commit') {
    throw new LedgerError('CORRUPT', `the base commit ${oid} cannot be read from the repository`, {
      hint: 'Check the repository with git fsck.',
    });
  }
  return object.bytes;
}

async function currentBranch(repo: RepoPaths, head: Head): Promise<string | undefined> {
  const branch = branchOf(head);
  if (branch !== undefined) return branch;
  if (head.kind !== 'unknown') return undefined; // detached, or a symbolic ref outside refs/heads
  const result = await runGit(['symbolic-ref', '-q', '--short', 'HEAD'], {
    cwd: repo.root,
    guard: repo.guard,
  });
  const name = result.stdout.toString().trim();
  return result.code === 0 && name !== '' ? name : undefined;
}

export type { ObjectStore };
