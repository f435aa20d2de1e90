/**
 * A realistic small Node project for record-time isolation: `npm test` runs `node --test`,
 * whose test requires a dependency that lives only in the git-ignored `node_modules`. The
 * work tree also holds ignored symlinks to `home/.ssh` (at the top and inside node_modules),
 * which a witness must not reach, and `peek.sh`, a witness that tries.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { git, gitdir, writeFiles } from './git.js';

export const PEEK = 'sh peek.sh';

export function nodeProject(home: string): string {
  const ssh = join(home, '.ssh');
  const repo = gitdir({
    files: {
      '.gitignore': 'node_modules/\nsecrets\n',
      'package.json': JSON.stringify({
        name: 'honest',
        version: '1.0.0',
        private: true,
        // The cache write is what test runners do in node_modules (vitest, jest, babel).
        scripts: {
          test: 'node --test && mkdir -p node_modules/.cache && echo ran > node_modules/.cache/witness',
        },
      }),
      'test/answer.test.js': [
        "const { test } = require('node:test');",
        "const assert = require('node:assert');",
        "const dep = require('dep');",
        "test('the dependency answers', () => assert.strictEqual(dep.answer, 42));",
        '',
      ].join('\n'),
      'peek.sh': [
        'for f in secrets/id_ed25519 node_modules/evil/id_ed25519; do cat "$f" 2>/dev/null && echo "read $f"; done',
        'echo peeked',
        '',
      ].join('\n'),
    },
  });
  writeFiles(repo, {
    'node_modules/dep/package.json': JSON.stringify({ name: 'dep', main: 'index.js' }),
    'node_modules/dep/index.js': 'module.exports = { answer: 42 };\n',
  });
  mkdirSync(ssh, { recursive: true });
  symlinkSync(ssh, join(repo, 'secrets'));
  symlinkSync(ssh, join(repo, 'node_modules', 'evil'));
  // Nothing is staged: only the ignored entries are missing from the candidate tree.
  git(repo, 'status', '--short');
  return repo;
}
