/**
 * Who may re-run what: the user's own witnesses of records made here by default, anything
 * else — pulled witnesses and every agent-written command — only when the policy names it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY } from '../../src/app/policy/local.js';
import { parsePolicy } from '../../src/app/policy/schema.js';
import { rerunDecision, setupSteps, type RerunPolicy } from '../../src/app/policy/rerun-policy.js';

const byDefault: RerunPolicy = DEFAULT_POLICY.rerun;
const naming: RerunPolicy = { recordedHere: true, commands: ['npm test'] };

describe('rerunDecision', () => {
  it('re-runs a witness the user gave, in a record made in this clone', () => {
    expect(
      rerunDecision(byDefault, { origin: 'witness', command: 'npm test', recordedHere: true }),
    ).toEqual({ allowed: true });
  });

  it('never re-runs an agent-written command by default, even in a record made here', () => {
    const decision = rerunDecision(byDefault, {
      origin: 'claim',
      command: 'npm test',
      recordedHere: true,
    });
    expect(decision.allowed).toBe(false);
    expect(decision.allowed === false && decision.reason).toMatch(/written by the agent/);
  });

  it('re-runs an agent-written command when the policy names exactly that command', () => {
    expect(
      rerunDecision(naming, { origin: 'claim', command: 'npm test', recordedHere: false }),
    ).toEqual({ allowed: true });
    expect(
      rerunDecision(naming, { origin: 'claim', command: 'npm test ', recordedHere: true }).allowed,
    ).toBe(false);
  });

  it('does not re-run a pulled witness unless named, nor one made here when recordedHere is off', () => {
    expect(
      rerunDecision(byDefault, { origin: 'witness', command: 'make', recordedHere: false }).allowed,
    ).toBe(false);
    expect(
      rerunDecision(
        { recordedHere: false, commands: [] },
        { origin: 'witness', command: 'make', recordedHere: true },
      ).allowed,
    ).toBe(false);
  });
});

describe('the rerun policy', () => {
  it('reads setup steps as strings or objects, with their own time limit and network', () => {
    const policy = parsePolicy(
      JSON.stringify({
        version: 1,
        rerun: {
          recordedHere: true,
          commands: [],
          setup: [
            'npm ci --offline',
            { command: 'pip install -r req.txt', timeoutSeconds: 30, network: true },
          ],
          isolation: { required: true, network: false, readOnly: ['~/.npm'] },
        },
        witnessTimeoutSeconds: 120,
      }),
    );
    expect(setupSteps(policy.rerun, policy.witnessTimeoutSeconds)).toEqual([
      { command: 'npm ci --offline', timeoutMs: 120_000, network: false },
      { command: 'pip install -r req.txt', timeoutMs: 30_000, network: true },
    ]);
  });

  it('keeps a policy written before these options exactly as it was (its digest ties attestations)', () => {
    const text = JSON.stringify({
      version: 1,
      rerun: { recordedHere: true, commands: ['npm test'] },
      witnessTimeoutSeconds: 600,
    });
    expect(parsePolicy(text)).toEqual(JSON.parse(text));
  });

  it('refuses unknown isolation options rather than ignoring a typo', () => {
    expect(() =>
      parsePolicy(
        JSON.stringify({
          version: 1,
          rerun: { recordedHere: true, commands: [], isolation: { requried: true } },
          witnessTimeoutSeconds: 600,
        }),
      ),
    ).toThrow(/not a ledger policy/);
  });
});
