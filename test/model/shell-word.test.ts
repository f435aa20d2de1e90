import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/model/shell-word.js';

// The commands ledger prints (sync's `git push … --delete <ref>`) and writes (agents' hook
// command lines) are run by a shell: every word must reach the program as it was.
describe('shellQuote', () => {
  const words = [
    'refs/ledger/writers/abc',
    "refs/ledger/writers/x';touch pwned;'",
    'refs/ledger/$(id)`id`',
    'two words',
    "it's",
    '',
    'a\nb',
    '*',
    '-n',
  ];

  it.each(words)('the shell hands %j to the program unchanged', (word) => {
    const out = execFileSync('/bin/sh', ['-c', `printf '%s' ${shellQuote(word)}`], {
      encoding: 'utf8',
    });
    expect(out).toBe(word);
  });

  it('leaves a plain word as it is, so the commands stay readable', () => {
    expect(shellQuote('refs/ledger/writers/0f3a-b_c@x:y=z,w+1%')).toBe(
      'refs/ledger/writers/0f3a-b_c@x:y=z,w+1%',
    );
  });
});
