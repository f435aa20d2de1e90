/**
 * The fresh round of attacks on issue 16's edges, by someone who did not build them. Each `it`
 * is one attack, titled by what the agent tried and the promise (issue 16's item) it tests;
 * attacks that held are kept as regression tests.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeMarkdown } from '../../src/report/escape.js';
import { maskSecrets, secretsOf } from '../../src/witness/mask.js';
import { runnerCommands } from '../action/workflow-commands.js';
import { mkfifo, withFifoRelease } from '../helpers/fifo.js';
import { cleanup, git, gitdir, tempDir } from '../helpers/git.js';
import { keygen } from '../export/helpers.js';
import { forgeRecord } from '../helpers/forge.js';
import { signingUser } from '../helpers/signing-user.js';
import {
  allChecks,
  cli,
  cliBinInProcess,
  cliText,
  cliTextBinInProcess,
  makeUser,
  record,
  repoWithRecord,
  safeGit,
} from './helpers.js';

/**
 * The CLI in this process, routed as bin/run.js routes it, where what a command decides is
 * tested. A FIFO in the way runs `node bin/run.js` (`cli`, `cliText`): a read that blocked
 * would hold the test's own process, where a child's can be released and seen to have waited.
 */
const inProcess = cliBinInProcess;
const inProcessText = cliTextBinInProcess;

afterAll(cleanup);

describe('red team: CI output (item 10) and hostile refs (item 8)', () => {
  it('a FIFO among the ledger refs named with ##[warning] or a newline then ::warning:: starts no workflow command on stderr (items 8, 10)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    for (const name of ['##[warning]pwned', 'a\n::warning::pwned', '   ::add-mask::x']) {
      const path = join(dir, '.git', 'refs', 'ledger', name);
      mkfifo(path);
      try {
        const result = await cliText(user, dir, ['verify', '--annotations', 'github']);
        expect(result.code, result.stderr).toBe(3);
        expect(result.stderr).toMatch(/FIFO/);
        const commands = runnerCommands(`${result.stdout}\n${result.stderr}`, { lenient: true });
        expect(commands, result.stderr).toEqual([]);
      } finally {
        rmSync(path, { force: true });
      }
    }
  });

  it('refs/ledger/log as a symlink to a FIFO outside .git: verify fails at once (exit 3), never waits on it (item 8)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const outside = mkdtempSync(join(tmpdir(), 'ledger-red-'));
    try {
      const fifo = join(outside, 'fifo');
      mkfifo(fifo);
      const ref = join(dir, '.git', 'refs', 'ledger', 'log');
      const tip = safeGit(dir, 'rev-parse', 'refs/ledger/log');
      rmSync(ref);
      symlinkSync(fifo, ref);
      const result = await cliText(user, dir, ['verify']);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(/refs\/ledger\/log/);
      rmSync(ref);
      safeGit(dir, 'update-ref', 'refs/ledger/log', tip);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('red team: the reviewed head (item 14)', () => {
  it('a replace ref swapping the head commit for one with the fabricated tree does not make verify --head pass', async () => {
    const user = makeUser();
    const dir = gitdir({ files: { 'test.sh': 'exit 0\n' } });
    // The fabricated candidate: a file the head never gets, recorded with a passing witness.
    git(dir, 'checkout', '-q', '-b', 'work');
    writeFileSync(join(dir, 'f.txt'), 'feature\n');
    await record(user, dir, { status: 'success', summary: 'fabricated' });
    // What the agent pushes: a head whose tree is not the recorded one.
    rmSync(join(dir, 'f.txt'));
    writeFileSync(join(dir, 'test.sh'), 'exit 1\n');
    git(dir, 'commit', '-qam', 'head');
    const head = git(dir, 'rev-parse', 'HEAD');
    const before = await inProcessText(user, dir, ['verify', `--head=${head}`]);
    expect(before.code, before.stdout).toBe(1);
    // The agent plants refs/replace/<head> → a commit whose tree is the fabricated candidate.
    writeFileSync(join(dir, 'test.sh'), 'exit 0\n');
    writeFileSync(join(dir, 'f.txt'), 'feature\n');
    git(dir, 'add', '-A');
    const tree = git(dir, 'write-tree');
    const fake = git(dir, 'commit-tree', tree, '-p', `${head}~1`, '-m', 'head');
    git(dir, 'update-ref', `refs/replace/${head}`, fake);
    for (const rev of [head, 'work']) {
      const after = await inProcessText(user, dir, ['verify', `--head=${rev}`]);
      expect(after.code, after.stdout).toBe(1);
      expect(after.stdout).toMatch(/head\.tree/);
    }
  });
});

describe('red team: encoded secrets (item 13)', () => {
  const secret = 'hunter2-Sup3rS3cretValue!';
  const secrets = secretsOf({ MY_TOKEN: secret });
  const hex = Buffer.from(secret).toString('hex');
  const b64 = Buffer.from(secret).toString('base64');
  const cases: [string, string][] = [
    ['xxd -u -p (upper-case hex)', `${hex.toUpperCase()}\n`],
    ['base64 -w 4 (wrapped every 4 characters)', `${b64.match(/.{1,4}/g)!.join('\n')}\n`],
    ['base64url inside a JSON string', `{"t":"${Buffer.from(secret).toString('base64url')}"}`],
    [
      'percent-encoded, lower-case escapes',
      encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    ],
    ['hex split by CRLF line ends', `${hex.slice(0, 20)}\r\n${hex.slice(20)}\r\n`],
  ];
  for (const [name, printed] of cases) {
    it(`a witness printing the secret as ${name} stores none of it`, () => {
      const masked = maskSecrets(Buffer.from(printed), secrets);
      const text = masked.bytes.toString('latin1');
      expect(text).not.toContain(secret);
      expect(text.replace(/\s/g, '').toLowerCase()).not.toContain(hex);
      expect(text.replace(/\s/g, '')).not.toContain(b64.replace(/=+$/, ''));
      expect(masked.names).toEqual(['MY_TOKEN']);
    });
  }
});

describe('red team: identity and attestations (items 3, 4)', () => {
  /** alice (the user: ledger.sign, her key) and bob (an agent's key), both producers. */
  function twoSigners() {
    const user = signingUser();
    const bob = join(user.home, 'bob');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'bob', '-f', bob]);
    const line = (principal: string, pub: string) =>
      `${principal} namespaces="ledger" ${readFileSync(pub, 'utf8').trim()}\n`;
    const allowed = join(user.home, 'allowed_signers');
    writeFileSync(
      allowed,
      line('alice@example.com', `${user.key}.pub`) + line('bob@example.com', `${bob}.pub`),
    );
    const policy = join(user.home, 'policy-auditor.json');
    writeFileSync(
      policy,
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: false, commands: ['true'] },
        witnessTimeoutSeconds: 30,
        signatures: {
          allowedSigners: allowed,
          required: false,
          roles: {
            producer: ['alice@example.com', 'bob@example.com'],
            auditor: ['alice@example.com'],
          },
        },
      }),
    );
    return { user, bob, policy };
  }

  it('a record claiming producer bob, signed by the user (alice) through ledger.sign, is never "bob verified" (item 4)', async () => {
    const { user } = twoSigners();
    const dir = gitdir({ files: { 'a.txt': 'a\n' } });
    const made = await inProcessText(user, dir, [
      'record',
      '--producer',
      'bob@example.com',
      '--status',
      'success',
      '--summary',
      'x',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const result = await inProcess(user, dir, ['verify', '--strict']);
    const producer = allChecks(result.json).filter((c) => c.check === 'producer');
    expect(producer).toHaveLength(1);
    expect(producer[0]!.verdict).not.toBe('verified');
    expect(result.code).not.toBe(0);
  });

  it('an attestation the agent signs with its own producer key is not taken by export --from-attestation when the policy names the auditors (item 3)', async () => {
    const { user, bob, policy } = twoSigners();
    const dir = gitdir({ files: { 'a.txt': 'a\n' } });
    const made = await inProcess(user, dir, [
      'record',
      '--witness',
      'true',
      '--status',
      'success',
      '--no-sign',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const id: string = made.json.id;
    // The agent: a re-run under the user's own policy, stored as an attestation signed by bob.
    const attested = await inProcessText(user, dir, [
      'verify',
      '--rerun',
      '--record',
      '--sign',
      '--signing-key',
      bob,
      '--policy',
      policy,
    ]);
    expect(attested.code, attested.stderr).toBe(0);
    // A process of its own: `--out -` is its standard output.
    const exported = await cliText(user, dir, [
      'export',
      id,
      '--from-attestation',
      '--policy',
      policy,
      '--in-toto-statement',
      '--out',
      '-',
    ]);
    expect(exported.code, exported.stdout).toBe(1);
    expect(exported.stdout).toBe('');
    expect(exported.stderr).toMatch(/not verified at export time/);
  });
});

describe('red team: export products (item 3)', () => {
  it('--products artifacts on a record whose artifact digest the agent rewrote (git plumbing) is refused (exit 3), nothing signed', async () => {
    const user = makeUser();
    const dir = gitdir({ files: { 'a.txt': 'a\n' } });
    writeFileSync(join(dir, 'out.bin'), 'honest\n');
    const made = await record(user, dir, {
      status: 'success',
      summary: 's',
      artifacts: ['out.bin'],
    });
    const forged = await forgeRecord(dir, made.id, (value) => {
      value['observed']['artifacts'][0]['sha256'] = 'ab'.repeat(32);
    });
    const key = keygen(tempDir(), 'auditor');
    const out = join(dir, 'link-out');
    const result = await inProcess(user, dir, [
      'export',
      forged,
      '--in-toto-link',
      '--key',
      key.key,
      '--products',
      'artifacts',
      '--out',
      out,
    ]);
    expect(result.code).toBe(3);
    expect(result.json.error.code).toBe('INTEGRITY');
    expect(existsSync(out)).toBe(false);
  });
});

describe('red team: what record reads (items 5, 9)', () => {
  it('an artifact named through a symlink to a file in HOME (a key the sandboxed agent cannot read) is refused, never stored in the ledger', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const secret = join(user.home, 'id_ed25519');
    writeFileSync(secret, 'PRIVATE-KEY-MATERIAL\n');
    symlinkSync(secret, join(dir, 'out.bin'));
    const before = safeGit(dir, 'rev-parse', 'refs/ledger/log');
    for (const artifact of ['out.bin', '../' + join('..', secret)]) {
      const result = await inProcess(user, dir, [
        'record',
        '--status',
        'success',
        '--artifact',
        artifact,
      ]);
      expect(result.code, result.stdout).toBe(2);
    }
    expect(safeGit(dir, 'rev-parse', 'refs/ledger/log')).toBe(before);
  });
});

describe('red team: other files git opens in .git (item 8)', () => {
  it('a FIFO as objects/info/alternates, commondir, info/exclude, info/grafts, shallow or the commit-graph: record fails at once (exit 3) naming it', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const paths = [
      'objects/info/alternates',
      'commondir',
      'info/exclude',
      'info/grafts',
      'shallow',
      'objects/info/commit-graph',
    ];
    for (const path of paths) {
      const fifo = join(dir, '.git', path);
      rmSync(fifo, { force: true });
      mkdirSync(join(fifo, '..'), { recursive: true });
      mkfifo(fifo);
      try {
        const { value: r, blocked } = await withFifoRelease(fifo, () =>
          cli(user, dir, ['record', '--status', 'success']),
        );
        expect(blocked, `record waited on ${path}`).toBe(false);
        expect(r.code, `${path}: ${r.stdout}${r.stderr}`).toBe(3);
        expect(r.json.error.message).toContain(path);
      } finally {
        rmSync(fifo, { force: true });
      }
    }
  });

  it('a FIFO for a pack index, a pack or the multi-pack index: verify and record fail at once (exit 3) naming it', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    safeGit(dir, 'repack', '-a', '-d', '-q');
    const packDir = join(dir, '.git', 'objects', 'pack');
    const idx = readdirSync(packDir).find((name) => name.endsWith('.idx'))!;
    for (const name of [idx, idx.replace(/\.idx$/, '.pack'), 'multi-pack-index']) {
      const path = join(packDir, name);
      const saved = `${path}.saved`;
      if (existsSync(path)) renameSync(path, saved);
      mkfifo(path);
      try {
        for (const args of [['verify'], ['record', '--status', 'success']]) {
          const { value: r, blocked } = await withFifoRelease(path, () => cli(user, dir, args));
          expect(blocked, `${args[0]} waited on objects/pack/${name}`).toBe(false);
          expect(r.code, `${name}: ${r.stdout}${r.stderr}`).toBe(3);
          expect(r.json.error.message).toContain(`objects/pack/${name}`);
        }
      } finally {
        rmSync(path, { force: true });
        if (existsSync(saved)) renameSync(saved, path);
      }
    }
    expect((await cli(user, dir, ['verify'])).code).toBe(0);
  });
});

describe('red team: the job summary (items 10, 11)', () => {
  const hostile = [
    '![x](https://evil.example/p.png)',
    '[ok](javascript:alert(1))',
    '<img src=x onerror=alert(1)>',
    '&#60;img src=x&#62;',
    'https://evil.example/x www.evil.example',
    '@octocat #123 :shipit:',
    '| contradicted | verified |',
  ];
  for (const text of hostile) {
    it(`agent text ${JSON.stringify(text)} in a Markdown cell makes no link, image, HTML, mention or cell`, () => {
      const out = escapeMarkdown(text);
      expect(out).not.toMatch(/(^|[^\\])[[\]()!<>|@#:]/u);
      expect(out).not.toMatch(/&#|https:\/\/|www\.e/u);
    });
  }
});

describe('red team: the same files seen from a linked work tree (item 8)', () => {
  it('from a linked work tree, a FIFO as the common dir’s alternates or info/exclude, or the linked git dir’s commondir: record fails at once (exit 3) naming it', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const linked = join(tempDir(), 'linked');
    safeGit(dir, 'worktree', 'add', '-q', linked);
    const name = linked.split('/').pop()!;
    const paths = [
      join(dir, '.git', 'objects', 'info', 'alternates'),
      join(dir, '.git', 'info', 'exclude'),
      join(dir, '.git', 'worktrees', name, 'commondir'),
    ];
    for (const fifo of paths) {
      const kept = existsSync(fifo) ? readFileSync(fifo) : undefined;
      rmSync(fifo, { force: true });
      mkdirSync(join(fifo, '..'), { recursive: true });
      mkfifo(fifo);
      try {
        const { value: r, blocked } = await withFifoRelease(fifo, () =>
          cli(user, linked, ['record', '--status', 'success']),
        );
        expect(blocked, `record waited on ${fifo}`).toBe(false);
        expect(r.code, `${fifo}: ${r.stdout}${r.stderr}`).toBe(3);
        expect(r.json.error.message).toContain(fifo.split('/').pop()!);
      } finally {
        rmSync(fifo, { force: true });
        if (kept !== undefined) writeFileSync(fifo, kept);
      }
    }
  });
});
