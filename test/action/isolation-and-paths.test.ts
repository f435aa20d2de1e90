/**
 * Two doors of action.yml the audited branch could open (red team, repro-1 and repro-3), run as
 * the runner runs the action (test/action/runner.ts) in one workspace laid out as a job with two
 * checkouts lays it out: the branch under audit at `<workspace>/repo` (working-directory: repo)
 * and the auditor's policy at `<workspace>/.audit/ledger-policy.json`, outside the branch.
 *
 * - Paths: `policy` and `html` are relative to the workspace. Resolved against
 *   working-directory instead, `.audit/ledger-policy.json` was the branch's own
 *   `repo/.audit/ledger-policy.json`: the agent planted a policy whose `rerun.setup` made its
 *   lying witness pass, and the job went green.
 * - Isolation: where no sandbox works (LEDGER_TEST_ISOLATION=none), the action re-ran the
 *   branch's witness as the job's user; it walked /proc up to the ledger process, read
 *   GITHUB_ENV and appended `BASH_ENV=<a file setting CODE=0>`, so that on the runner the
 *   "Gate on the verdicts" step exited 0 although verify exited 1. By default (`isolation:
 *   required`) verify now re-runs nothing there and exits 2.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliTextBinInProcess, makeUser, record, type User } from '../adversarial/helpers.js';
import { bareRemote, cloneOf, git, tempDir, writeFiles } from '../helpers/git.js';
import { parseAnnotations, runAction, type ActionRun } from './runner.js';
import { runnerCommands } from './workflow-commands.js';

/** Passes only where the agent left an ignored `.agent-ok`: never in a checkout of the tree. */
const LYING_WITNESS = 'test -e .agent-ok';
/** "The tests": the attack of repro-3 (see `attackScript`). */
const PLANTING_WITNESS = 'sh test.sh';

/**
 * Fails on the code under review; run unisolated inside one of this file's jobs, it also finds
 * the job's GITHUB_ENV in an ancestor's /proc environ and plants BASH_ENV there. It only acts on
 * a GITHUB_ENV this file's runner made (so a real CI job running this test is never touched),
 * and first leaves a line in `marker`, whatever it can reach: the proof that it ran.
 */
function attackScript(marker: string): string {
  return `#!/bin/sh
echo ran >> '${marker}' 2>/dev/null || :
p=$$; f=
while [ "\${p:-1}" -gt 1 ]; do
  e=$(tr '\\0' '\\n' < /proc/$p/environ 2>/dev/null | sed -n 's/^GITHUB_ENV=//p')
  case "$e" in */ledger-jobs-*/ledger-runner-*/env) f=$e; break ;; esac
  p=$(sed 's/^.*) . //' /proc/$p/stat 2>/dev/null | cut -d' ' -f1)
done
if [ -z "$f" ]; then exit 0; fi
d=$(dirname "$f"); printf 'CODE=0\\n' > "$d/.pass.sh"
echo "BASH_ENV=$d/.pass.sh" >> "$f"
exit 1
`;
}

const policyJson = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    version: 1,
    rerun: { recordedHere: false, commands: [LYING_WITNESS, PLANTING_WITNESS], ...extra },
    witnessTimeoutSeconds: 60,
  });

interface Job {
  run: ActionRun;
  /** The job's GITHUB_ENV file after the action: what the runner would apply to later steps. */
  githubEnv: string;
  verify: { code: number; output: string };
}

let user: User;
let workspace: string;
let repo: string;
let sha: string;
let marker: string;

/**
 * The action in `workspace`, in a runner directory of its own found afterwards (runner.ts keeps
 * GITHUB_ENV in a temp dir it does not return): TMPDIR points at a fresh directory meanwhile.
 */
function job(inputs: Record<string, string>, env: Record<string, string> = {}): Job {
  rmSync(marker, { force: true });
  const jobs = tempDir('ledger-jobs-');
  const saved = process.env['TMPDIR'];
  process.env['TMPDIR'] = jobs;
  let run: ActionRun;
  try {
    run = runAction({
      workspace,
      inputs: { build: 'false', 'working-directory': 'repo', ...inputs },
      env: { ...user.env, ...env },
      github: { sha },
    });
  } finally {
    if (saved === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = saved;
  }
  const runners = readdirSync(jobs).filter((name) => name.startsWith('ledger-runner-'));
  expect(runners).toHaveLength(1);
  const step = run.steps.find((s) => s.name === 'Verify the ledger')!;
  return {
    run,
    githubEnv: readFileSync(join(jobs, runners[0]!, 'env'), 'utf8'),
    verify: { code: step.code, output: step.stdout + step.stderr },
  };
}

beforeAll(async () => {
  user = makeUser();
  marker = join(tempDir('ledger-marker-'), 'witness-ran');
  const remote = bareRemote();
  const agent = cloneOf(remote);
  writeFiles(agent, { 'src/app.ts': 'one\ntwo\n' });
  git(agent, 'add', '-A');
  git(agent, 'commit', '-q', '-m', 'initial');
  git(agent, 'push', '-q', 'origin', 'HEAD:main');
  // The branch: the work, the attack script, and a policy planted where the auditor's policy
  // is relative to the workspace, allowing both witnesses with a setup that makes the lie pass.
  writeFiles(agent, {
    'src/app.ts': 'one\ntwo\nthree\n',
    '.gitignore': '.agent-ok\n',
    'test.sh': attackScript(marker),
    '.audit/ledger-policy.json': policyJson({ setup: ['touch .agent-ok'] }),
  });
  git(agent, 'add', '-A');
  git(agent, 'commit', '-q', '-m', 'add three');
  writeFiles(agent, { '.agent-ok': '' }); // ignored: only on the agent's machine
  await record(user, agent, {
    status: 'success',
    summary: 'add three; tests pass',
    task: 'T-1',
    artifacts: ['src/app.ts'],
    witnesses: [LYING_WITNESS, PLANTING_WITNESS],
  });
  git(agent, 'push', '-q', 'origin', 'HEAD:main', 'refs/ledger/*:refs/ledger/*');
  sha = git(agent, 'rev-parse', 'HEAD');

  // The job's workspace: the branch checked out at repo/, the auditor's policy beside it.
  workspace = tempDir('ledger-workspace-');
  git(workspace, 'clone', '-q', remote, 'repo');
  repo = join(workspace, 'repo');
  git(repo, 'config', 'user.name', 'CI');
  git(repo, 'config', 'user.email', 'ci@example.com');
  mkdirSync(join(workspace, '.audit'));
  writeFileSync(join(workspace, '.audit', 'ledger-policy.json'), policyJson());
  expect(existsSync(join(repo, '.audit', 'ledger-policy.json'))).toBe(true);
});

describe('action.yml resolves its path inputs against the workspace', () => {
  it("working-directory: repo, policy: .audit/ledger-policy.json reads the auditor's policy, not the one the branch planted in repo/.audit: the lying witness is contradicted and the job fails; the page lands at <workspace>/<html>", () => {
    const { run, verify } = job({
      policy: '.audit/ledger-policy.json',
      html: 'ledger-report.html',
      summary: 'false',
    });
    // Read from repo/.audit, the planted setup would have made `.agent-ok` and the job green;
    // the page would have landed in repo/.
    expect(
      {
        exitCode: run.outputs['exit-code'],
        job: run.code,
        pageInWorkspace: existsSync(join(workspace, 'ledger-report.html')),
        pageInRepo: existsSync(join(repo, 'ledger-report.html')),
      },
      verify.output,
    ).toEqual({ exitCode: '1', job: 1, pageInWorkspace: true, pageInRepo: false });
    expect(run.steps.find((s) => s.name === 'Gate on the verdicts')!.code).toBe(1);
    const errors = parseAnnotations(run.stdout).filter((a) => a.level === 'error');
    expect(errors.map((a) => a.properties.title)).toEqual(['ledger witness: contradicted']);
    expect(errors[0]!.message).toContain(LYING_WITNESS);
    expect(readFileSync(join(workspace, 'ledger-report.html'), 'utf8')).toContain(
      'Content-Security-Policy',
    );
  });
});

describe('action.yml re-runs witnesses only isolated unless told otherwise', () => {
  const noSandbox = { LEDGER_TEST_ISOLATION: 'none' };

  it('isolation: required (default), no sandbox: verify exits 2 and re-runs nothing, the witness never runs or plants BASH_ENV in GITHUB_ENV, and the job fails', () => {
    const { run, githubEnv, verify } = job(
      { policy: join(workspace, '.audit', 'ledger-policy.json') },
      noSandbox,
    );
    // The witness ran and planted BASH_ENV (on the runner the gate then exits 0), or it did not.
    expect(
      {
        witnessRan: existsSync(marker),
        bashEnvPlanted: /^BASH_ENV=/m.test(githubEnv),
        exitCode: run.outputs['exit-code'],
      },
      verify.output,
    ).toEqual({ witnessRan: false, bashEnvPlanted: false, exitCode: '2' });
    expect(verify.code).toBe(0); // the step records verify's code; the gate fails the job
    expect(verify.output).toContain(
      '--require-isolation asks for isolated re-runs, and neither bubblewrap nor unshare can isolate a command here; nothing was re-run',
    );
    expect(run.steps.find((s) => s.name === 'Gate on the verdicts')!.code).toBe(2);
    expect(run.code).toBe(2);
    // The job's page says it too, with the way out, as an annotation the runner acts on.
    const stdout = run.steps.find((s) => s.name === 'Verify the ledger')!.stdout;
    expect(
      runnerCommands(stdout)
        .filter((c) => c.command === 'error')
        .map((c) => c.data),
    ).toEqual([
      expect.stringMatching(/^ledger verify could not run \(exit 2\).*isolation input to optional/),
    ]);
  });

  it('isolation: optional, no sandbox: re-runs the witnesses unisolated and says so', () => {
    const { run, githubEnv, verify } = job(
      { policy: join(workspace, '.audit', 'ledger-policy.json'), isolation: 'optional' },
      noSandbox,
    );
    expect(verify.output).toContain('re-runs are NOT isolated');
    expect(verify.output).not.toContain('--require-isolation');
    // What `required` prevents: the branch's code ran as the job's user and reached GITHUB_ENV.
    expect(existsSync(marker)).toBe(true);
    expect(githubEnv).toMatch(/^BASH_ENV=/m);
    expect(run.outputs['exit-code']).toBe('1');
    expect(run.code).toBe(1);
  });

  it('verify --require-isolation without --rerun is a usage error (exit 2)', async () => {
    const r = await cliTextBinInProcess(user, repo, ['verify', '--require-isolation']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout + r.stderr).toContain('--require-isolation is about re-runs: it needs --rerun');
  });
});
