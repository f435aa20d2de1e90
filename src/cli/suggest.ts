/**
 * "Did you mean …?" for a misspelt flag or command. oclif's parser reports a nonexistent flag
 * without a suggestion, and @oclif/plugin-not-found offers its suggestion only as an
 * interactive prompt; scripts and `--json` callers get theirs from here.
 */

/**
 * Edit distance where swapping two neighbouring letters costs one (`recrod` → `record`), the
 * typo people make most.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `input`, when it is close enough to be what was meant (at most a
 * third of the word wrong, at least two edits allowed); undefined otherwise, so that a word
 * that resembles nothing gets no misleading guess.
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  const word = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(2, Math.floor(word.length / 3));
  // `VERIFY` means `verify`; `verify` itself is no typo to correct.
  return best !== input && bestDistance <= allowed ? best : undefined;
}

/**
 * The flag meant by a nonexistent one as the parser reported it (`--statsu`, `--statsu=x`,
 * `-x`), among a command's flags given as names without dashes.
 */
export function closestFlag(reported: string, flagNames: readonly string[]): string | undefined {
  const name = reported.replace(/^-+/, '').replace(/=.*$/s, '');
  const match = closest(name, flagNames);
  return match === undefined ? undefined : `--${match}`;
}
