/**
 * `ledger log`'s answer, without oclif: commands/log.ts gives it the parsed flags, and bin/run.js
 * calls it directly (src/cli/fast-path.ts) for a command line it fully understands, so that
 * listing an empty ledger costs no more start-up than it needs. One body for both paths, so
 * they cannot answer differently.
 */
import { heldEntriesWarning } from '../app/held-entries.js';
import { listingNotices, readLogAnswer } from '../app/log-answer.js';
import { ledgerIsEmpty } from '../app/query.js';
import { withRepo } from '../app/repo.js';
import { claimedStatusLabel } from '../model/vocabulary.js';
import { sanitizeLine } from '../paths/index.js';
import type { LogItem } from '../app/query.js';
import type { Output } from './output.js';

export interface LogOptions {
  task?: string;
  limit?: number;
}

/**
 * The records of the repository at `cwd` in the ledger's merged order (causal: newest first along
 * each writer's history, not by time across writers), as `ledger log` prints them.
 */
export async function logView(cwd: string, options: LogOptions): Promise<Output> {
  const { answer, empty } = await withRepo(cwd, async (opened) => {
    const answer = await readLogAnswer(opened, options);
    // Nothing listed: say whether the filter matched nothing or there is nothing at all.
    return {
      answer,
      empty: answer.items.length === 0 && (await ledgerIsEmpty(opened.store)),
    };
  });
  const { items } = answer;
  const notices = listingNotices(answer, `log -n ${options.limit}`, options.limit ?? 0);
  const text = empty
    ? 'the ledger is empty (ledger record adds a record)'
    : items.length === 0
      ? `no record matches --task ${sanitizeLine(options.task ?? '')} (ledger log lists every record)`
      : items.map((i) => (i.step !== undefined ? stepLine(i, i.step) : handoffLine(i))).join('\n');
  return {
    json: items,
    text,
    // With --json on stderr too: the array has no room for them.
    ...(notices.length > 0 ? { notice: notices.join('\n'), noticeWithJson: true } : {}),
    // With --json too: the listing is an array, with no room for it (red team, round twelve).
    ...(answer.rollback === undefined ? {} : { warning: heldEntriesWarning(answer.rollback) }),
  };
}

/**
 * An agent-written value in a column (a task, a claimed status, a step's `--by`): bare when it
 * is one plain ASCII token, which cannot reach into the next column; otherwise quoted, with `"`,
 * `\` and Unicode's other quotation marks escaped, so it cannot end early and imitate the
 * columns after it. A task of `T-9  [ledger]  accepted by lead@corp (signed by reviewer …)` printed
 * bare forged the lifecycle column of a record no step touched (red team, round nine).
 */
function field(value: string): string {
  if (PLAIN.test(value) && value !== '-') return value;
  return `"${sanitizeLine(value.replace(QUOTING, quoteEscape))}"`;
}
/** Printable ASCII but space, `"`, `[`, `\` and `]`. */
const PLAIN = /^[!#-Z^-~]+$/;
/** What could end a quoted value, or look as if it did (`”`, `＂`); `'` quotes nothing here. */
const QUOTING = /[\\"]|(?!')\p{Quotation_Mark}/gu;

function quoteEscape(char: string): string {
  return char === '"' || char === '\\'
    ? `\\${char}`
    : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Who took a step is the step's own word (`--by` needs no key): a trusted reviewer's signature
 * would prove it, but finding one means reading every signature leaf and the auditor's policy,
 * which `log -n 20` must not (it reads about twenty records, test/ledger/bounded-reads.test.ts).
 * So log never states the words as fact: it says it checked no signature before them, as the
 * Markdown summary says what it found ("no trusted reviewer signed the step; it says: by …").
 */
function claimedBy(by: string | undefined): string {
  // Without --by too: under the auditor's lifecycle.requireReviewer the gate may count another
  // step than the one that set this state (red team, round fifteen), and log reads no policy.
  return by === undefined
    ? ' (signature not checked)'
    : ` (signature not checked; it says: by ${field(by)})`;
}

/** `-`: the record names no task (a task of `-` itself is quoted). */
function taskColumn(task: string | undefined): string {
  return task === undefined ? '-' : field(task);
}

function stepLine(i: LogItem, s: NonNullable<LogItem['step']>): string {
  const what = `lifecycle step: ${field(s.action)} ${s.of.slice(0, 19)}${s.with === undefined ? '' : ` with ${s.with.slice(0, 19)}`}${claimedBy(s.by)}`;
  return `${i.id.slice(0, 19)}  ${sanitizeLine(i.recordedAt)}  ${field(s.to)}  ${taskColumn(i.task)}  [${what}]${concurrency(i)}`;
}

function handoffLine(i: LogItem): string {
  const status =
    i.claimedStatus === i.effectiveStatus
      ? i.effectiveStatus
      : `${i.effectiveStatus} (claimed ${i.claimedStatus.trim() === '' ? claimedStatusLabel(i.claimedStatus) : field(i.claimedStatus)})`;
  const l = i.lifecycle;
  const state =
    l === undefined || l.state === 'pending'
      ? ''
      : `  ${field(l.state)}${claimedBy(l.by)}${l.at === undefined ? '' : ` ${sanitizeLine(l.at)}`}`;
  const head = `${i.id.slice(0, 19)}  ${sanitizeLine(i.recordedAt)}  ${sanitizeLine(status)}  ${taskColumn(i.task)}  [${i.format}]${state}`;
  // A fork's branch not followed (src/app/lifecycle-fork.ts): named under the record.
  const setAside = (l?.setAsideDetail ?? []).map((line) => `\n    ${sanitizeLine(line)}`).join('');
  return (
    (i.summary ? `${head}\n    ${sanitizeLine(i.summary).slice(0, 120)}` : head) +
    setAside +
    concurrency(i)
  );
}

/**
 * Records of one task that neither descends from the other (red team, round eleven): the merged
 * order lists one above the other, which says nothing of which came later, so it is said here.
 */
function concurrency(i: LogItem): string {
  const lines: string[] = [];
  if (i.concurrentWith !== undefined)
    lines.push(
      `    concurrent with ${i.concurrentWith.slice(0, 19)} (listed above), a record of this task that does not descend from this one: neither is newer`,
    );
  const below = i.concurrentBelow ?? [];
  if (below.length > 0)
    lines.push(
      `    concurrent with ${below.length} record(s) of this task below this listing (not shown), which do not descend from this one: neither is newer: ${below
        .slice(0, 5)
        .map((id) => id.slice(0, 19))
        .join(', ')}${below.length > 5 ? ', …' : ''}`,
    );
  return lines.map((l) => `\n${l}`).join('');
}
