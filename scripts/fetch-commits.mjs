// Fetches commits by id for action.yml's "Fetch the ledger" step: `node fetch-commits.mjs REMOTE`,
// the ids on stdin, one a line (the pull request's head and base first, then the records' base
// commits from base-commits.mjs), in groups an empty line separates. Prints one line per fetch and, when some could not be fetched,
// one warning annotation saying how many and why.
//
// Why not one `git fetch REMOTE id…`: git's fetch is all-or-nothing, and one id the remote does
// not serve ("not our ref") fails it whole. A record's base commit can be on no remote honestly
// (the commit was amended or reworded after the record was made, before its push) or because an
// agent planted records naming commits it never pushes; one such id then kept every other base
// (a squashed or force-pushed branch's old commit, which the forge still serves by id) from
// being fetched, on every later run (red team, round seventeen). So a failed batch is split in
// halves, depth first, down to single ids: k unservable ids among n cost about 2k·log2(n/k)
// fetches, and every servable id that the budget reaches is fetched.
//
// The budget: a planted flood of unservable ids must not stall the job. At most MAX_FETCHES
// fetches, and none started once SECONDS have passed since the first failure (a running fetch is
// not cut short: a servable commit may bring many objects, and an unservable id fails in the
// negotiation, at once). What the budget leaves untried is counted as not fetched and said so.
// LEDGER_ACTION_MAX_FETCHES and LEDGER_ACTION_FETCH_SECONDS set them (the tests lower them).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const remote = process.argv[2];
if (remote === undefined) {
  process.stderr.write('usage: node fetch-commits.mjs REMOTE < ids\n');
  process.exit(2);
}
const positive = (value, fallback) => {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
};
const MAX_FETCHES = positive(process.env.LEDGER_ACTION_MAX_FETCHES, 64);
const SECONDS = positive(process.env.LEDGER_ACTION_FETCH_SECONDS, 120);
// Ids on one command line: 256 sha256 ids are 16 KiB, far below any argument limit.
const BATCH = 256;

// Groups are separated by an empty line and fetched in order: the pull request's own commits
// (its head, base, and its records' bases, from base-commits.mjs) before the rest of the
// ledger's, so ids planted elsewhere spend the budget only after those (red team, round eighteen).
const seen = new Set();
const groups = readFileSync(0, 'utf8')
  .split(/\n[ \t]*\n/)
  .map((group) =>
    group
      .split('\n')
      .map((line) => line.trim())
      // Only full object ids: nothing read here can become an option or a refspec.
      .filter((line) => /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(line))
      .filter((id) => !seen.has(id) && seen.add(id)),
  )
  .filter((group) => group.length > 0);
const ids = groups.flat();

const pending = [];
for (const group of groups)
  for (let at = 0; at < group.length; at += BATCH) pending.push(group.slice(at, at + BATCH));
pending.reverse(); // a stack: the first batch (the pull request's own commits) is fetched first

let fetches = 0;
let failedAt;
const refused = [];
const untried = [];
while (pending.length > 0) {
  const group = pending.pop();
  const overBudget =
    fetches >= MAX_FETCHES || (failedAt !== undefined && Date.now() - failedAt > SECONDS * 1000);
  if (overBudget) {
    untried.push(...group);
    continue;
  }
  fetches += 1;
  const run = spawnSync('git', ['fetch', '-q', '--no-tags', '--', remote, ...group], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const what = group.length === 1 ? group[0] : `${group.length} commit(s)`;
  if (run.status === 0) {
    process.stdout.write(`fetching ${what} by id: done\n`);
    continue;
  }
  failedAt ??= Date.now();
  const reason = (run.stderr ?? String(run.error)).trim().split('\n').at(-1) ?? '';
  process.stdout.write(`fetching ${what} by id: failed (${reason})\n`);
  if (group.length === 1) refused.push(group[0]);
  else {
    const half = Math.ceil(group.length / 2);
    pending.push(group.slice(half), group.slice(0, half));
  }
}

const missing = [...refused, ...untried];
if (missing.length === 0) {
  if (ids.length > 0) process.stdout.write(`fetched ${ids.length} commit(s) by id\n`);
} else {
  const parts = [];
  if (refused.length > 0)
    parts.push(
      `${refused.length} the remote does not serve (a commit never pushed, such as one amended after its record was made)`,
    );
  if (untried.length > 0)
    parts.push(
      `${untried.length} not tried (the step's limit of ${MAX_FETCHES} fetches or ${SECONDS} s after the first failure was reached)`,
    );
  const shown = missing.slice(0, 5).join(', ');
  const more = missing.length > 5 ? ` and ${missing.length - 5} more` : '';
  process.stdout.write(
    `::warning title=ledger::could not fetch ${missing.length} of ${ids.length} commit(s) the records or the pull request name, in ${fetches} fetches: ${parts.join('; ')}. A record whose base commit is missing has its base checks unverifiable. Not fetched: ${shown}${more}\n`,
  );
}
