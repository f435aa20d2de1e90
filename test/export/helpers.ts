/**
 * Driving the real in-toto from export tests: Debian's `in-toto-*` commands and the Python
 * side in intoto_peer.py (run with /usr/bin/python3). .ci/run installs the `in-toto` package.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { PROJECT_ROOT } from '../helpers/git.js';

const PYTHON = '/usr/bin/python3';
export const PEER = join(PROJECT_ROOT, 'test', 'export', 'intoto_peer.py');

export function run(cmd: string, args: readonly string[], cwd: string) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C.UTF-8' },
  });
  if (r.error) throw r.error;
  return { code: r.status ?? 128, stdout: r.stdout, stderr: r.stderr };
}

export function peer(args: readonly string[], cwd: string) {
  const r = run(PYTHON, [PEER, ...args], cwd);
  if (r.code !== 0) throw new Error(`intoto_peer ${args[0]} failed: ${r.stderr}`);
  return r.stdout;
}

/** `in-toto-keygen -t ed25519 NAME` in `dir`: returns the private key path and its key id. */
export function keygen(dir: string, name: string): { key: string; pub: string; keyid: string } {
  const r = run('in-toto-keygen', ['-t', 'ed25519', name], dir);
  expect(r.code, r.stderr).toBe(0);
  const key = join(dir, name);
  return { key, pub: `${key}.pub`, keyid: JSON.parse(readFileSync(key, 'utf8')).keyid };
}

export function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}
