/**
 * Another process that packs a repository's refs and moves some back to loose files, over and
 * over (`git pack-refs --all --prune`, then `git update-ref --stdin`), for tests of reads that
 * race it. `forward` and `back` are update-ref scripts (`update <ref> <oid>` lines) run in turn.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PackChurn {
  /** Stops the loop; resolves to the rounds it ran. */
  stop(): Promise<number>;
}

export function startPackChurn(dir: string, forward: string, back: string): PackChurn {
  const script = [
    'i=0',
    'while [ ! -e stop ]; do',
    '  git pack-refs --all --prune',
    `  printf '${forward}\\n' | git update-ref --stdin`,
    '  git pack-refs --all --prune',
    `  printf '${back}\\n' | git update-ref --stdin`,
    '  i=$((i+1)); echo $i > rounds',
    'done',
  ].join('\n');
  const churn = spawn('sh', ['-c', script], { cwd: dir, stdio: 'ignore' });
  const ended = new Promise((resolve) => churn.on('exit', resolve));
  return {
    async stop() {
      mkdirSync(join(dir, 'stop'));
      await ended;
      return Number(readFileSync(join(dir, 'rounds'), 'utf8').trim());
    },
  };
}
