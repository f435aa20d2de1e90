/**
 * Who may receive the user's credentials is the user's to decide (red team, round nine). Over
 * https, git asks the user's own credential helper for the host it believes it talks to; a
 * repository that switched off certificate checks, or trusted a certificate authority of its
 * own, had `ledger sync --no-push` (the CI gate) send the user's token to whoever answered —
 * here a server with a certificate nobody trusts. Plain git, which reads the repository's
 * config, is the control: it sends the token.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, gitdir, runCli, tempDir } from '../helpers/git.js';

const TOKEN = 'ghp_S3CRETTOKEN0123456789';
let server: Server;
let url = '';
let certificate = '';
const seen: string[] = [];

beforeAll(async () => {
  const dir = tempDir('ledger-tls-');
  certificate = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      certificate,
    ],
    { stdio: 'ignore' },
  );
  server = createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(certificate) },
    (request, response) => {
      seen.push(request.headers.authorization ?? '');
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as { port: number }).port}/team/project.git`;
  // The user's own helper, in their global config: it answers for any host git asks about.
  git(
    tempDir(),
    'config',
    '--global',
    'credential.helper',
    `!f() { echo username=alice; echo password=${TOKEN}; }; f`,
  );
});

afterAll(() => {
  server.close();
});

const leaked = () =>
  seen.some((h) =>
    Buffer.from(h.replace(/^Basic /, ''), 'base64')
      .toString()
      .includes(TOKEN),
  );

describe('the repository cannot choose who receives the user’s credentials', () => {
  for (const [what, settings] of [
    ['http.sslVerify=false', (): [string, string][] => [['http.sslVerify', 'false']]],
    [
      'a planted certificate authority (http.sslCAInfo)',
      (): [string, string][] => [['http.sslCAInfo', certificate]],
    ],
  ] as const) {
    it(`attack: ${what}: sync --no-push sends no credential; plain git does`, async () => {
      const dir = gitdir();
      git(dir, 'remote', 'add', 'origin', url);
      for (const [key, value] of settings()) git(dir, 'config', key, value);
      seen.length = 0;
      // Not spawnSync: the server answers from this process's event loop.
      const control = await new Promise<number | null>((resolve) =>
        execFile(
          'git',
          ['ls-remote', 'origin'],
          { cwd: dir, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } },
          (error) => resolve(error ? (typeof error.code === 'number' ? error.code : 1) : 0),
        ),
      );
      expect(control).not.toBe(0);
      expect(leaked(), 'plain git, the control, sends the token').toBe(true);

      seen.length = 0;
      for (const args of [['sync', '--no-push'], ['sync']]) {
        const run = await runCli([...args, '--json'], dir);
        expect(run.code, run.stdout).toBe(2);
        expect(leaked(), `${args.join(' ')} sent the user's token`).toBe(false);
      }
    });
  }
});
