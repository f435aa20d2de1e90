/**
 * What the lifecycle tests set up again and again: a lie (a handoff that says its tests pass
 * while its witness fails) and an honest record beside it, a policy that trusts a reviewer's or
 * an auditor's key, and a witness that passes here but not in a clean checkout. Real
 * repositories, real `ssh-keygen` keys; each test still says what it does with them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordHandoff } from '../../src/app/record.js';
import { verifyRepository } from '../../src/app/verify.js';
import type { VerifyReport } from '../../src/verify/types.js';
import { tempDir } from './git.js';
import { sshKeyPair } from './ssh-key.js';

/** A handoff that says its tests pass while its witness fails: `claims.status` contradicted. */
export async function lie(cwd: string, summary = 'all tests pass'): Promise<string> {
  return (
    await recordHandoff({ cwd, status: 'success', summary, witnesses: ['false'], sign: false })
  ).id;
}

/** A handoff whose witness passes. */
export async function honest(cwd: string, summary = 'the fix'): Promise<string> {
  return (
    await recordHandoff({ cwd, status: 'success', summary, witnesses: ['true'], sign: false })
  ).id;
}

/** `verify --full`: no verified-state cache. */
export const verify = (cwd: string, extra: Partial<Parameters<typeof verifyRepository>[0]> = {}) =>
  verifyRepository({ cwd, cache: false, ...extra });

export const lifecycleOf = (report: VerifyReport, id: string) =>
  report.records.find((r) => r.id === id)?.lifecycle;

/**
 * Writes `dir/allowed_signers` (`signers`, one line each) and `dir/policy.json`: re-run what was
 * recorded here, trust the signers in `roles`, and the lifecycle rule when one is given.
 */
export function writePolicy(
  dir: string,
  options: {
    signers: readonly string[];
    roles: Record<string, readonly string[]>;
    required?: boolean;
    lifecycle?: { requireReviewer: boolean };
  },
): string {
  const allowed = join(dir, 'allowed_signers');
  writeFileSync(allowed, options.signers.map((line) => `${line}\n`).join(''));
  const policy = join(dir, 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({
      version: 1,
      rerun: { recordedHere: true, commands: [] },
      witnessTimeoutSeconds: 30,
      signatures: {
        allowedSigners: allowed,
        required: options.required ?? false,
        roles: options.roles,
      },
      ...(options.lifecycle === undefined ? {} : { lifecycle: options.lifecycle }),
    }),
  );
  return policy;
}

/**
 * A policy under `lifecycle.requireReviewer` that trusts rita@reviewers.example.com as
 * reviewer and the agent's key (bot@agents.example.com) as producer only, with both keys.
 */
export function reviewerPolicy(
  signatures: { required: boolean; producer: string[] } = { required: false, producer: ['*'] },
): { policy: string; reviewer: string; agent: string } {
  const dir = tempDir();
  const reviewer = sshKeyPair(dir, 'reviewer');
  const agent = sshKeyPair(dir, 'agent');
  const policy = writePolicy(dir, {
    signers: [
      `rita@reviewers.example.com namespaces="ledger" ${reviewer.pub}`,
      `bot@agents.example.com namespaces="ledger" ${agent.pub}`,
    ],
    roles: { producer: signatures.producer, reviewer: ['*@reviewers.example.com'] },
    required: signatures.required,
    lifecycle: { requireReviewer: true },
  });
  return { policy, reviewer: reviewer.key, agent: agent.key };
}

/** A policy in `dir` that trusts ci@auditors.example.com, whose public key is `publicKey`, as auditor. */
export function auditorPolicy(dir: string, publicKey: string): string {
  return writePolicy(dir, {
    signers: [`ci@auditors.example.com namespaces="ledger" ${publicKey}`],
    roles: { auditor: ['ci@auditors.example.com'] },
  });
}

/** A witness that passes while `flag` (in `dir`) exists and fails once it is gone (a re-run elsewhere). */
export function flagWitness(dir: string): { witness: string; flag: string } {
  const flag = join(dir, 'passes-here');
  writeFileSync(flag, '');
  return { witness: `test -f ${flag}`, flag };
}
