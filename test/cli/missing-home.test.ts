/**
 * CI containers and service accounts often run with a HOME that was never created. Reading the
 * user's git settings (`ledger.policy`, signing keys) must then find none, not fail as if git
 * were missing.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, gitdir, runCli, tempDir } from '../helpers/git.js';

afterEach(cleanup);

describe('a HOME that does not exist', () => {
  it('record, verify and log work (exit 0), as they do with an empty home', async () => {
    const dir = gitdir({ files: { 'a.txt': 'a\n' } });
    const env = { HOME: join(tempDir('gone'), 'never-created') };
    const made = await runCli(['record', '--status', 'success', '--summary', 'x'], dir, env);
    expect(made.code, made.stderr).toBe(0);
    const verified = await runCli(['verify', '--json'], dir, env);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout).records).toHaveLength(1);
    const log = await runCli(['log'], dir, env);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stderr).not.toMatch(/ENOENT/);
  });
});
