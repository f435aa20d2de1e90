/**
 * The typed library's input checked at run time, as the CLI's flag parser checks flags: a
 * JavaScript caller (or a TypeScript one holding `any`) can pass `ids: 'sha256:…'`, a timeout of
 * `Infinity` or no object at all, and must get a `LedgerError` naming the field, never a bare
 * `TypeError` from deep inside, or a timer Node silently turns into 1 ms. Fields are only
 * checked here, never rewritten: what passes goes on as given.
 */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { issuesToProblems } from '../formats/kit/problems.js';
import { LedgerError } from '../model/errors.js';
import { MAX_TIMEOUT_SECONDS } from '../model/vocabulary.js';

const timeout = z
  .number()
  .refine((n) => Number.isFinite(n) && n > 0 && n <= MAX_TIMEOUT_SECONDS, {
    message: `a finite number of seconds, more than 0 and at most ${MAX_TIMEOUT_SECONDS}`,
  })
  .optional();
const text = z.string().optional();
const flag = z.boolean().optional();
const strings = z.array(z.string()).optional();

const RecordInputShape = z.object({
  handoff: z.union([z.string(), z.instanceof(Uint8Array)]).optional(),
  fileName: text,
  from: text,
  // Checked against the known formats by the caller, with the CLI's message.
  format: text,
  status: text,
  summary: text,
  task: text,
  run: text,
  attempt: text,
  intent: text,
  reworkOf: text,
  producer: text,
  base: text,
  artifacts: strings,
  witnesses: strings,
  witnessTimeoutSeconds: timeout,
  evidence: z.record(z.string(), z.string()).optional(),
  sign: flag,
  signingKey: text,
  signAs: z.enum(['producer', 'recorder']).optional(),
  signingKeyScopes: z.enum(['user', 'all']).optional(),
  isolate: flag,
  ownGitDirOnly: flag,
});

const VerifyInputShape = z
  .object({
    ids: strings,
    rerun: flag,
    strict: flag,
    worktree: flag,
    policyFile: text,
    timeoutSeconds: timeout,
    head: text,
    tasks: flag,
  })
  .optional();

const ref = z.union([z.string(), z.object({ latest: z.string() })]);
const ShowArgs = z.tuple([ref, z.object({ policyFile: text }).optional()]);
const ShowAsArgs = z.tuple([ref, z.string()]);
const LogOptionsShape = z
  .object({ task: text, limit: z.number().int().min(1).optional() })
  .optional();
const OpenOptionsShape = z.union([z.string(), z.object({ cwd: text })]).optional();

export const LIBRARY_INPUT = {
  openLedger: OpenOptionsShape,
  record: RecordInputShape,
  verify: VerifyInputShape,
  show: ShowArgs,
  showAs: ShowAsArgs,
  log: LogOptionsShape,
  logWithNotices: LogOptionsShape,
} as const;

/**
 * `value` checked against the method's input: `USAGE` (exit 2), as the CLI answers a flag of
 * the wrong kind, with one problem per field (`verify.ids`, `show[0].latest`).
 */
export function checkLibraryInput(method: keyof typeof LIBRARY_INPUT, value: unknown): void {
  const parsed = LIBRARY_INPUT[method].safeParse(value);
  if (parsed.success) return;
  const problems = issuesToProblems(parsed.error.issues, value, { prefix: [method] });
  throw new LedgerError(
    'USAGE',
    `${method}: ${problems.length} problem(s) in the input: ${problems.map((p) => p.path).join(', ')}`,
    { problems, hint: 'Nothing was written.' },
  );
}

/** The library's `cwd` must exist: git started in a missing directory says `spawn git ENOENT`. */
export async function checkDirectory(cwd: string): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(cwd)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new LedgerError(
      'USAGE',
      code === 'ENOENT'
        ? `the directory ${cwd} does not exist`
        : `cannot open the directory ${cwd}: ${code ?? String(error)}`,
      { problems: [{ path: 'cwd', message: 'not an existing directory', got: cwd }] },
    );
  }
  if (!isDirectory)
    throw new LedgerError('USAGE', `${cwd} is not a directory`, {
      problems: [{ path: 'cwd', message: 'not a directory', got: cwd }],
    });
}
