/**
 * How anything thrown becomes an exit code (src/cli/errors.ts), in memory: oclif's errors by
 * their classes, Node's system errors, ledger's own codes, and everything else as a bug.
 */
import { Errors, Flags, Parser } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import { toFailure } from '../../src/cli/errors.js';
import { closest, closestFlag, editDistance } from '../../src/cli/suggest.js';
import { LedgerError } from '../../src/model/errors.js';

function errorOf(failure: ReturnType<typeof toFailure>): LedgerError {
  if (!('error' in failure)) throw new TypeError('expected an error, got an exit');
  return failure.error;
}

describe('toFailure', () => {
  it('keeps a LedgerError and its exit code', () => {
    const e = errorOf(toFailure(new LedgerError('CORRUPT', 'tree x is malformed')));
    expect([e.code, e.exitCode]).toEqual(['CORRUPT', 3]);
  });

  it("oclif's parse error for a nonexistent flag is a usage error naming the flag meant", async () => {
    const thrown = await Parser.parse(['--statsu', 'x'], {
      flags: { status: Flags.string(), summary: Flags.string() },
    }).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(Errors.CLIError);
    const e = errorOf(toFailure(thrown, { command: 'record', flagNames: ['status', 'summary'] }));
    expect([e.code, e.exitCode]).toEqual(['USAGE', 2]);
    expect(e.problems).toEqual([
      { path: '--statsu', message: 'unknown flag', expected: '--status', got: '--statsu' },
    ]);
    expect(e.hint).toContain('Did you mean --status?');
  });

  it('any other CLIError is a usage error (exit 2), whatever exit code oclif gave it', () => {
    const e = errorOf(toFailure(new Errors.CLIError('nope', { exit: 127 })));
    expect([e.code, e.exitCode, e.message]).toEqual(['USAGE', 2, 'nope']);
  });

  it('an ExitError passes its exit code through without a message', () => {
    expect(toFailure(new Errors.ExitError(0))).toEqual({ exit: 0 });
  });

  it('a ModuleLoadError (a broken installation) and a TypeError (a bug) exit 4', () => {
    const load = errorOf(toFailure(new Errors.ModuleLoadError('cannot find x')));
    expect([load.code, load.exitCode]).toEqual(['INTERNAL', 4]);
    expect(load.hint).toContain('reinstall');
    const bug = errorOf(
      toFailure(new TypeError("cannot read properties of undefined (reading 'x')")),
    );
    expect([bug.code, bug.exitCode]).toEqual(['INTERNAL', 4]);
    expect(bug.hint).toContain('please report it');
  });

  it('a system error (errno and syscall) is SYSTEM, exit 2, naming what failed', () => {
    const errno = Object.assign(new Error('EACCES: permission denied'), {
      code: 'EACCES',
      syscall: 'open',
      path: '/x/y',
    });
    const e = errorOf(toFailure(errno));
    expect([e.code, e.exitCode, e.message]).toEqual(['SYSTEM', 2, 'open /x/y failed: EACCES']);
  });
});

describe('suggestions', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('recrod', 'record')).toBe(1);
    expect(editDistance('verfy', 'verify')).toBe(1);
    expect(editDistance('', 'log')).toBe(3);
  });

  it('suggests only what is close enough', () => {
    const commands = ['record', 'verify', 'log', 'show', 'sync', 'sign'];
    expect(closest('recrod', commands)).toBe('record');
    expect(closest('VERIFY', commands)).toBe('verify');
    expect(closest('verify', commands)).toBeUndefined(); // no typo to correct
    expect(closest('frobnicate', commands)).toBeUndefined();
    expect(closestFlag('--witnes=npm test', ['witness', 'witness-timeout'])).toBe('--witness');
    expect(closestFlag('-x', ['json'])).toBeUndefined();
  });
});
