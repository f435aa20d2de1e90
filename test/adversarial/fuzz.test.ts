/**
 * Property-based fuzzing of every decoder and parser an attacker can reach: 10,000 generated
 * inputs each under `npm run test:stress`, 1,000 under `npm test` (test/helpers/stress.ts; the
 * titles say which ran), every one ending in a value or a clean error — never an uncaught
 * exception. (Canonical CBOR and the SSH signature parsers have their own in test/canonical
 * and test/sign.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stress } from '../helpers/stress.js';
import { decodeCanonical } from '../../src/canonical/index.js';
import { formatModule } from '../../src/formats/index.js';
import { createSniff } from '../../src/formats/kit/sniff.js';
import { parsePolicy } from '../../src/app/policy/schema.js';
import { Attestation, SignatureObject } from '../../src/model/attestation.js';
import { isLedgerError } from '../../src/model/errors.js';
import { FORMATS, LEDGER_AUTHORED_FIELDS } from '../../src/model/record.js';
import { judgeSignature, parseTrust } from '../../src/verify/signatures.js';

const RUNS = stress(1_000, 10_000, 'LEDGER_TEST_FUZZ_RUNS');
/** The size in the titles, so a report says how many inputs each parser got in this run. */
const N = RUNS.toLocaleString('en-US');
const enc = new TextEncoder();

/** JSON values biased towards the shapes parsers look at, with hostile keys and text mixed in. */
const hostileKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'status',
  'summary',
  'findings',
  'artifacts',
  'checks',
  ...LEDGER_AUTHORED_FIELDS,
);
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('success', 'PASS', '\u001b[2J', '.git/config', '../x', 'a\u0000b', '\ud800'),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    tie('object'),
  ),
  object: fc.dictionary(fc.oneof(hostileKey, fc.string({ maxLength: 8 })), tie('value'), {
    maxKeys: 6,
  }),
})).value;

const markdown = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '# Handoff',
        '## Status',
        '## Key Decisions',
        '## Artifacts',
        '## Deferred Items',
        '## Summary',
        '## Findings',
        '## Key References',
        '## Confidence',
        'Status: PASS',
        'Status: SUCCESS',
        '- [x] ',
        '| a | b |',
        '|---|---|',
        '```',
        '[INSIGHT]',
        'src/app.ts:12',
        '**Evidence:**',
      ),
      fc.string({ maxLength: 30 }),
    ),
    { maxLength: 20 },
  )
  .map((lines) => lines.join('\n'));

const inputs = fc.oneof(
  json.map((v) => enc.encode(JSON.stringify(v) ?? 'null')),
  markdown.map((m) => enc.encode(m)),
  fc.uint8Array({ maxLength: 200 }),
);

function cleanResult(result: unknown): boolean {
  const r = result as { ok: boolean; problems?: unknown[]; handoff?: unknown };
  return r.ok ? r.handoff !== undefined : Array.isArray(r.problems) && r.problems.length > 0;
}

describe('adversarial fuzzing: every decoder and parser ends in a value or a clean error', () => {
  const available = FORMATS.flatMap((name) => {
    try {
      return [formatModule(name)];
    } catch {
      return [];
    }
  });

  it.each(available.map((m) => [m.name, m] as const))(
    `handoff parser %s: ${N} inputs`,
    (_name, module) => {
      fc.assert(
        fc.property(inputs, (bytes) => {
          expect(
            cleanResult(
              module.parse(bytes, { repoRoot: '/repo', fileName: 'handoff', now: new Date(0) }),
            ),
          ).toBe(true);
          module.detect(createSniff(bytes, 'handoff'));
          expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
        }),
        { numRuns: RUNS },
      );
    },
  );

  it(`policy parser: ${N} inputs, a policy or a POLICY error`, () => {
    const policyish = fc.record(
      {
        version: fc.oneof(fc.constant(1), json),
        rerun: fc.oneof(
          fc.record({
            recordedHere: fc.oneof(fc.boolean(), json),
            commands: fc.oneof(fc.array(text), json),
          }),
          json,
        ),
        witnessTimeoutSeconds: fc.oneof(fc.integer(), json),
        signatures: fc.oneof(
          fc.record(
            { allowedSigners: text, required: fc.boolean(), roles: json },
            { requiredKeys: [] },
          ),
          json,
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          policyish.map((p) => JSON.stringify(p)),
          fc.string({ maxLength: 100 }),
        ),
        (textInput) => {
          try {
            const policy = parsePolicy(textInput);
            expect(policy.version).toBe(1);
          } catch (error) {
            expect(isLedgerError(error, 'POLICY')).toBe(true);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it(`allowed_signers through the verify path: ${N} files, never a throw and never a trusted signer for garbage`, () => {
    const line = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc
        .tuple(
          fc.constantFrom('*', 'alice@x', '!bob', 'a,b'),
          fc.constantFrom(
            '',
            'namespaces="ledger" ',
            'cert-authority ',
            'valid-before="2000" ',
            'valid-after=x ',
          ),
          fc.constantFrom('ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256', 'x'),
          fc.base64String({ maxLength: 80 }),
        )
        .map((p) => p.join(' ')),
    );
    const armored = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc
        .base64String({ maxLength: 200 })
        .map((b) => `-----BEGIN SSH SIGNATURE-----\n${b}\n-----END SSH SIGNATURE-----\n`),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), armored, (lines, sig) => {
        const trust = parseTrust(lines.join('\n'), { required: true, now: new Date(0) });
        const verdict = judgeSignature('sha256:' + '0'.repeat(64), sig, trust, 'producer');
        expect(verdict.verified).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it(`signature and attestation leaves: ${N} byte strings decode to a schema-valid leaf or a clean error`, () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 120 }),
          json.map((v) => enc.encode(JSON.stringify(v) ?? '')),
        ),
        (bytes) => {
          let value: unknown;
          try {
            value = decodeCanonical(bytes);
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
            return;
          }
          SignatureObject.safeParse(value);
          Attestation.safeParse(value);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
