/**
 * A handoff that claims no status reads as "no status" wherever a person reads the claim —
 * never as an empty slot ("claimed , effective partial", "status:  (claimed by the agent)").
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, gitdir, runCli } from '../helpers/git.js';

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
    const made = await runCli(['record', '--from', file, '--format', 'maxsim', '--json'], dir);
    expect(made.code, made.stderr).toBe(0);
    const record = JSON.parse(made.stdout);
    expect(record.claimedStatus).toBe('');
    const id: string = record.id;

    const recorded = await runCli(['record', '--from', file, '--format', 'maxsim'], dir);
    expect(recorded.stderr).toMatch(/no status claimed/);

    const show = await runCli(['show', id], dir);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/status: no status \(claimed by the agent\) → partial/);

    const log = await runCli(['log'], dir);
    expect(log.stdout).toMatch(/partial \(claimed no status\)/);
    expect(log.stdout).not.toMatch(/claimed \)/);

    const report = await runCli(['report', id, '--markdown', '-'], dir);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/\| no status \|/);
  });
});
