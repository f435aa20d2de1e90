import { afterEach, describe, expect, it } from 'vitest';
import { runs, stress, stressLevel } from './stress.js';

const saved = {
  level: process.env['LEDGER_TEST_STRESS'],
  own: process.env['LEDGER_TEST_OWN_SIZE'],
};
function set(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
afterEach(() => {
  set('LEDGER_TEST_STRESS', saved.level);
  set('LEDGER_TEST_OWN_SIZE', saved.own);
});

describe('stress sizes (npm test small, npm run test:stress full)', () => {
  it('is small unless LEDGER_TEST_STRESS=full, and full under it', () => {
    set('LEDGER_TEST_STRESS', undefined);
    expect(stressLevel()).toBe('small');
    expect(stress(4, 50)).toBe(4);
    expect(runs(100, 10_000)).toEqual({ numRuns: 100 });
    set('LEDGER_TEST_STRESS', 'full');
    expect(stressLevel()).toBe('full');
    expect(stress(4, 50)).toBe(50);
    expect(runs(100, 10_000)).toEqual({ numRuns: 10_000 });
  });

  it('refuses a level it does not know rather than quietly running the small size', () => {
    set('LEDGER_TEST_STRESS', 'FULL ');
    expect(() => stress(4, 50)).toThrow(/LEDGER_TEST_STRESS must be "small" or "full"/);
  });

  it('lets a named env var set a size of its own, and refuses one that is not a positive integer', () => {
    set('LEDGER_TEST_STRESS', 'full');
    set('LEDGER_TEST_OWN_SIZE', '7');
    expect(stress(4, 50, 'LEDGER_TEST_OWN_SIZE')).toBe(7);
    set('LEDGER_TEST_OWN_SIZE', '0');
    expect(() => stress(4, 50, 'LEDGER_TEST_OWN_SIZE')).toThrow(/positive integer/);
    set('LEDGER_TEST_OWN_SIZE', undefined);
    expect(stress(4, 50, 'LEDGER_TEST_OWN_SIZE')).toBe(50);
  });
});
