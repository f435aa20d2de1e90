/**
 * Wording a person reads: a handoff that claims no status reads as "no status" wherever the claim
 * is shown — never as an empty slot ("claimed , effective partial", "status:  (claimed by the
 * agent)") — and an error's message and hint read as separate sentences.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBinInProcess } from '../helpers/cli-in-process.js';
import { cleanup, gitdir, runCli } from '../helpers/git.js';

/**
 * `ledger ARGS` in this process, routed as bin/run.js routes it: what the command answers is
 * tested, not the process around it (test/helpers/cli-in-process.ts).
 * `report … -` writes to its standard output, and runs as a process of its own.
 */
const inProcess = runBinInProcess;

afterEach(cleanup);

const NO_STATUS = `### Key Decisions
- Kept it small

### Artifacts
- Modified: README.md

### Deferred Items
- none
`;

describe('an empty claimed status', () => {
  it('record, show, log and report --markdown say "no status"', async () => {
    const dir = gitdir({ files: { 'README.md': 'hello\n' } });
    writeFileSync(join(dir, 'README.md'), 'hello, changed\n');
    const file = join(dir, '..', `SUMMARY-${process.pid}.md`);
    writeFileSync(file, NO_STATUS);
    const made = await inProcess(['record', '--from', file, '--format', 'maxsim', '--json'], dir);
    expect(made.code, made.stderr).toBe(0);
    const record = JSON.parse(made.stdout);
    expect(record.claimedStatus).toBe('');
    const id: string = record.id;

    const recorded = await inProcess(['record', '--from', file, '--format', 'maxsim'], dir);
    expect(recorded.stderr).toMatch(/no status claimed/);

    const show = await inProcess(['show', id], dir);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/status: no status \(claimed by the agent\) → partial/);

    const log = await inProcess(['log'], dir);
    expect(log.stdout).toMatch(/partial \(claimed no status\)/);
    expect(log.stdout).not.toMatch(/claimed \)/);

    const report = await runCli(['report', id, '--markdown', '-'], dir);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/\| no status \|/);
  });
});

describe('a handoff no format recognises', () => {
  it('says so in two sentences, then how to name the format (exit 2)', async () => {
    const dir = gitdir({ files: { 'a.txt': 'a\n' } });
    const file = join(dir, '..', `notes-${process.pid}.txt`);
    writeFileSync(file, 'hello world\nnothing here\n');
    const r = await inProcess(['record', '--from', file], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /could not tell which handoff format \S+ is in\. No format recognised anything in it\. Name it with --format/,
    );
  });
});
