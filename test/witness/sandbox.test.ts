/**
 * The isolation a re-run gets, checked from inside the witness: its own PID namespace (it
 * cannot see the test process), only its checkout writable, the repository and other temp
 * directories invisible, no capabilities, no network unless allowed, and no daemon that
 * outlives it. Run for every mechanism that works here (bubblewrap, and unshare by switching
 * bubblewrap off), and `none` is reported as such.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitdir, tempDir } from '../helpers/git.js';
import { eventually, processesRunning } from './helpers.js';
import {
  forgetIsolationProbe,
  probeIsolation,
  runWitness,
  scrubbedEnv,
  type IsolationMode,
  type WitnessRun,
} from '../../src/witness/index.js';
import {
  readOnlyPaths,
  sandboxArgv,
  sandboxBase,
  type SandboxBase,
} from '../../src/witness/sandbox.js';
import { resolverTargets } from '../../src/witness/sandbox-argv.js';

async function probeWith(forced: string | undefined) {
  if (forced === undefined) delete process.env['LEDGER_TEST_ISOLATION'];
  else process.env['LEDGER_TEST_ISOLATION'] = forced;
  forgetIsolationProbe();
  try {
    return await probeIsolation();
  } finally {
    delete process.env['LEDGER_TEST_ISOLATION'];
    forgetIsolationProbe();
  }
}

let server: Server;
let port = 0;
const working: IsolationMode[] = [];

beforeAll(async () => {
  server = createServer((socket) => socket.end('hello\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  const best = await probeWith(undefined);
  if (best.mode === 'bwrap') working.push('bwrap');
  if ((await probeWith('unshare')).mode === 'unshare') working.push('unshare');
});

afterAll(() => {
  server.close();
});

async function sandboxed(
  mode: IsolationMode,
  command: string,
  options: {
    network?: boolean;
    readOnly?: string[];
    hidden?: string[];
    tmpfsBytes?: number;
    base?: SandboxBase;
  } = {},
): Promise<{ run: WitnessRun; writable: string }> {
  const base = tempDir('ledger-rerun-');
  const writable = join(base, 't0');
  const work = join(writable, 'work');
  mkdirSync(work, { recursive: true });
  mkdirSync(join(base, 'root'));
  const argv = await sandboxArgv(
    mode,
    {
      writable,
      cwd: work,
      hidden: options.hidden ?? [],
      readOnly: options.readOnly ?? [],
      network: options.network ?? false,
      ...(options.tmpfsBytes === undefined ? {} : { tmpfsBytes: options.tmpfsBytes }),
    },
    command,
    join(base, 'root'),
    options.base,
  );
  const run = await runWitness({
    command,
    cwd: work,
    env: scrubbedEnv(process.env, { HOME: writable }),
    timeoutMs: 20_000,
    maxOutputBytes: 1 << 20,
    ...(argv ? { argv } : {}),
  });
  return { run, writable };
}

describe('isolation probe', () => {
  it('reports none, with the reason for each mechanism, when both are switched off', async () => {
    const isolation = await probeWith('none');
    expect(isolation.mode).toBe('none');
    expect(isolation.namespaces).toEqual([]);
    expect(isolation.unavailable.map((u) => u.mode)).toEqual(['bwrap', 'unshare']);
  });

  it('finds at least one working mechanism on this machine (bubblewrap is installed by .ci/run; root can unshare)', () => {
    expect(working.length).toBeGreaterThan(0);
  });

  // bubblewrap sizes a tmpfs from 0.7 on, and never when installed setuid: bounded re-runs
  // then take unshare rather than failing every sandbox (each witness unverifiable).
  it('with tmpfsBytes, passes over a bubblewrap that cannot size a tmpfs, for unshare', async (ctx) => {
    if (!working.includes('bwrap') || !working.includes('unshare')) ctx.skip();
    const real = execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim();
    const bin = tempDir('ledger-old-bwrap-');
    writeFileSync(
      join(bin, 'bwrap'),
      [
        '#!/bin/sh',
        'for a in "$@"; do [ "$a" = --size ] && { echo "bwrap: Unknown option --size" >&2; exit 1; }; done',
        `exec '${real}' "$@"`,
      ].join('\n'),
      { mode: 0o755 },
    );
    const path = process.env['PATH'];
    process.env['PATH'] = `${bin}:${path}`;
    try {
      forgetIsolationProbe();
      const bounded = await probeIsolation(1 << 20);
      expect(bounded.mode).toBe('unshare');
      expect(bounded.unavailable).toEqual([
        { mode: 'bwrap', reason: expect.stringMatching(/Unknown option --size/) },
      ]);
      expect((await probeIsolation()).mode).toBe('bwrap');
    } finally {
      process.env['PATH'] = path;
      forgetIsolationProbe();
    }
  });
});

describe.each(['bwrap', 'unshare'] as const)('a witness isolated with %s', (mode) => {
  it('sees only its own processes, cannot write outside its checkout, cannot see the repository, has no capabilities and no network', async (ctx) => {
    if (!working.includes(mode)) ctx.skip();
    const repo = gitdir();
    const other = tempDir();
    writeFileSync(join(other, 'secret.txt'), 'do not read\n');
    const script = [
      'fail() { echo "FAIL: $*"; exit 1; }',
      'n=$(ls -d /proc/[0-9]* | wc -l); [ "$n" -lt 20 ] || fail "sees $n processes"',
      `test ! -e /proc/${process.pid}/environ || fail "sees the parent's /proc entry"`,
      `test ! -e '${repo}' || fail "sees the repository"`,
      `test ! -e '${other}/secret.txt' || fail "sees another temp directory"`,
      'touch /usr/ledger-probe 2>/dev/null && fail "can write /usr"',
      'touch /ledger-probe 2>/dev/null && fail "can write /"',
      'touch ./checkout-is-writable || fail "cannot write its checkout"',
      'grep -Eq "^CapEff:[[:space:]]+0+$" /proc/self/status || fail "has capabilities"',
      `node -e "const s=require('net').connect(${port},'127.0.0.1');s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(7))"; [ $? -eq 7 ] || fail "reaches the network"`,
      'echo pid $$',
    ].join('\n');
    const { run, writable } = await sandboxed(mode, script, { hidden: [repo] });
    expect(run.stdout.toString() + run.stderr.toString()).not.toMatch(/FAIL/);
    expect(run.exitCode).toBe(0);
    expect(run.sandboxFailed).toBe(false);
    expect(readdirSync(join(writable, 'work'))).toContain('checkout-is-writable');
    if (mode === 'bwrap') expect(run.stdout.toString()).toMatch(/^pid 2$/m);
  });

  // Red team, round eight: as root under bubblewrap, /proc/sys stayed writable, and a witness
  // set kernel.core_pattern to a program of its checkout, which the kernel then ran as root
  // outside every namespace. The probe writes back the value it read, so even a sandbox that
  // let it through changes nothing on the host.
  it('cannot write the kernel settings, SysRq, IRQs or buses under /proc, as root too', async (ctx) => {
    if (!working.includes(mode)) ctx.skip();
    const script = [
      'v=$(cat /proc/sys/kernel/core_pattern) || exit 3',
      'printf "%s\\n" "$v" 2>/dev/null > /proc/sys/kernel/core_pattern && echo "WROTE core_pattern"',
      'for p in /proc/sys /proc/sysrq-trigger /proc/irq /proc/bus; do',
      '  [ -e "$p" ] || continue',
      '  awk -v p="$p" \'$5 == p { print p, $6 }\' /proc/self/mountinfo',
      'done',
      'true',
    ].join('\n');
    const { run } = await sandboxed(mode, script);
    const out = run.stdout.toString();
    expect(out + run.stderr.toString()).not.toMatch(/WROTE/);
    expect(run.exitCode).toBe(0);
    expect(out).toMatch(/^\/proc\/sys ro[,\s]/m);
    for (const line of out.trim().split('\n')) expect(line).toMatch(/^\/proc\/\S+ ro(,|$)/);
  });

  // Red team, round eight, left open then: /tmp and /dev are tmpfs of up to half of RAM each,
  // pages no process owns, so the OOM killer cannot free them by killing the witness. With
  // rerun.isolation.tmpfsBytes every in-memory file system it can write is bounded.
  it('bounded by tmpfsBytes: /tmp, /dev/shm and a hidden cover fill up at the bound, /dev is read-only, its devices still work', async (ctx) => {
    if (!working.includes(mode)) ctx.skip();
    const fill = (path: string) =>
      `dd if=/dev/zero of=${path} bs=65536 count=32 2>/dev/null && echo "FILLED ${path}"`;
    const script = [
      fill('/tmp/big'),
      fill('/dev/shm/big'),
      fill('/etc/ssh/big'),
      '(echo x > /dev/planted) 2>/dev/null && echo "WROTE /dev"',
      'echo ok > /dev/null && head -c 3 /dev/zero | wc -c',
      'rm -f /tmp/big && dd if=/dev/zero of=/tmp/small bs=65536 count=8 2>/dev/null && echo "small fits"',
      'true',
    ].join('\n');
    const hidden = ['/etc/ssh'];
    const bounded = await sandboxed(mode, script, { tmpfsBytes: 1 << 20, hidden });
    const out = bounded.run.stdout.toString();
    expect(bounded.run.exitCode, bounded.run.stderr.toString()).toBe(0);
    expect(out).not.toMatch(/FILLED|WROTE/);
    expect(out).toMatch(/^3$/m);
    expect(out).toMatch(/^small fits$/m);
    // The same script unbounded: 2 MiB fit everywhere, so the bound is what stopped them.
    const unbounded = await sandboxed(mode, script, { hidden });
    const free = unbounded.run.stdout.toString();
    for (const path of ['/tmp/big', '/dev/shm/big', '/etc/ssh/big'])
      expect(free).toContain(`FILLED ${path}`);
  });

  it('reaches the network only when allowed', async (ctx) => {
    if (!working.includes(mode)) ctx.skip();
    const connect = `node -e "const s=require('net').connect(${port},'127.0.0.1');s.on('data',()=>process.exit(0));s.on('error',()=>process.exit(7))"`;
    const { run } = await sandboxed(mode, connect, { network: true });
    expect(run.exitCode).toBe(0);
  });

  // Red team, round ten: under unshare the new network namespace's loopback stayed down, and an
  // honest test serving and fetching on 127.0.0.1 failed with ENETUNREACH: contradicted.
  it('serves and connects on 127.0.0.1 with the network cut: loopback is up', async (ctx) => {
    if (!working.includes(mode)) ctx.skip();
    const loopback = `node -e "const s=require('net').createServer(c=>c.end('pong')).listen(0,'127.0.0.1',()=>{require('net').connect(s.address().port,'127.0.0.1').on('data',d=>{console.log(String(d));process.exit(0)}).on('error',e=>{console.error(String(e));process.exit(1)})})"`;
    const { run } = await sandboxed(mode, loopback);
    expect(run.stderr.toString()).toBe('');
    expect(run.stdout.toString()).toBe('pong\n');
    expect(run.exitCode).toBe(0);
  });

  // Red team, round ten: with systemd-resolved, /etc/resolv.conf links into /run, which the
  // view lacked, so a witness allowed the network resolved no name. The link's target is
  // shown read-only, with the network only (here a stand-in target: the host's /etc is as it is).
  it('with the network allowed, shows what the resolver files link to, read-only', async (ctx) => {
    if (!working.includes(mode)) ctx.skip();
    const target = join(tempDir('ledger-resolved-'), 'stub-resolv.conf');
    writeFileSync(target, 'nameserver 127.0.0.53\n');
    const base = { ...(await sandboxBase(mode, [])), resolver: [target] };
    const read = `cat '${target}' && ! (echo x >> '${target}') 2>/dev/null`;
    const allowed = await sandboxed(mode, read, { network: true, base });
    expect(allowed.run.stdout.toString()).toBe('nameserver 127.0.0.53\n');
    expect(allowed.run.exitCode).toBe(0);
    const cut = await sandboxed(mode, `test ! -e '${target}'`, { base });
    expect(cut.run.exitCode).toBe(0);
  });

  it('leaves no setsid daemon behind: it dies with the namespace when the witness ends', async (ctx) => {
    if (!working.includes(mode)) ctx.skip();
    const marker = `61.80${mode === 'bwrap' ? 3 : 4}`;
    const { run } = await sandboxed(
      mode,
      // exits only once the daemon's sleep runs
      `setsid sh -c 'sleep ${marker} & touch up; wait' >/dev/null 2>&1 & while [ ! -e up ]; do sleep 0.01; done; exit 0`,
    );
    expect(run.exitCode).toBe(0);
    await eventually(
      () => processesRunning('sleep', marker).length === 0,
      `sleep ${marker} is gone`,
    );
  });

  it('shows a directory and a file the policy names, read-only', async (ctx) => {
    if (!working.includes(mode)) ctx.skip();
    const shared = tempDir();
    writeFileSync(join(shared, 'cache.txt'), 'cached\n');
    const single = join(tempDir(), 'npmrc');
    writeFileSync(single, 'offline=true\n');
    const { run } = await sandboxed(
      mode,
      `cat '${shared}/cache.txt' '${single}' && ! touch '${shared}/new' 2>/dev/null && ! (echo x >> '${single}') 2>/dev/null`,
      { readOnly: [shared, single] },
    );
    expect(run.stderr.toString()).toBe('');
    expect(run.stdout.toString()).toBe('cached\noffline=true\n');
    expect(run.exitCode).toBe(0);
  });

  it('reports a sandbox that cannot be set up as sandboxFailed, never as a failing command', async (ctx) => {
    if (!working.includes(mode)) ctx.skip();
    const { run } = await sandboxed(mode, 'exit 0', { readOnly: [join(tempDir(), 'missing')] });
    expect(run.sandboxFailed).toBe(true);
    expect(run.exitCode).not.toBe(0);
  });
});

describe('resolverTargets', () => {
  it('follows a resolver file that links outside the system directories to its target, and leaves regular files alone', async () => {
    const etc = tempDir('ledger-etc-');
    const run = join(tempDir('ledger-run-'), 'systemd', 'resolve');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'stub-resolv.conf'), 'nameserver 127.0.0.53\n');
    symlinkSync(join(run, 'stub-resolv.conf'), join(etc, 'resolv.conf'));
    writeFileSync(join(etc, 'hosts'), '127.0.0.1 localhost\n');
    symlinkSync(join(run, 'missing'), join(etc, 'nsswitch.conf'));
    const files = ['resolv.conf', 'hosts', 'nsswitch.conf'].map((f) => join(etc, f));
    expect(await resolverTargets(files)).toEqual([realpathSync(join(run, 'stub-resolv.conf'))]);
  });
});

describe('readOnlyPaths', () => {
  it('shows toolchain directories from PATH, never the repository, HOME itself or what contains them', async () => {
    const home = tempDir('ledger-home-');
    const repo = join(home, 'work', 'repo');
    const nvmBin = join(home, '.nvm', 'versions', 'node', 'v20', 'bin');
    const repoBin = join(repo, 'node_modules', '.bin');
    const outside = tempDir();
    for (const dir of [nvmBin, repoBin]) mkdirSync(dir, { recursive: true });
    const { paths, refused } = await readOnlyPaths({
      env: {
        PATH: [nvmBin, repoBin, home, join(home, 'work'), '/usr/bin', 'relative/bin'].join(':'),
      },
      execPath: '/usr/bin/node',
      policy: [outside, 'relative', join(home, 'missing'), join(home, 'work')],
      never: [repo],
      personal: [home],
    });
    expect(paths).toEqual([nvmBin, outside]);
    expect(refused).toEqual(['relative', join(home, 'missing'), join(home, 'work')]);
  });

  // Red team, round ten: with ~/.pyenv/shims alone on PATH, every witness through a shim exited
  // 127 (the shim runs ~/.pyenv/libexec/pyenv). The root comes along when it has a version
  // manager's shape, never when it holds a secret or contains HOME.
  it("shows a version manager's root with its shims, not a root holding secrets or HOME", async () => {
    const home = tempDir('ledger-home-');
    const tool = (root: string, ...dirs: string[]) => {
      for (const dir of ['shims', ...dirs]) mkdirSync(join(root, dir), { recursive: true });
      return join(root, 'shims');
    };
    const pyenv = join(home, '.pyenv');
    const asdf = join(home, '.asdf');
    const secretive = join(home, '.rbenv');
    const plain = join(home, 'plain');
    const PATH = [
      tool(pyenv, 'libexec', 'versions'),
      tool(asdf, 'bin', 'installs'),
      tool(secretive, 'libexec', 'versions', '.ssh'),
      tool(plain, 'libexec'),
      tool(home, 'bin', 'versions'),
    ].join(':');
    const { paths } = await readOnlyPaths({
      env: { PATH },
      execPath: '/usr/bin/node',
      policy: [],
      never: [],
      personal: [home],
    });
    expect(paths).toEqual([
      join(pyenv, 'shims'),
      pyenv,
      join(asdf, 'shims'),
      asdf,
      join(secretive, 'shims'),
      join(plain, 'shims'),
      join(home, 'shims'),
    ]);
  });
});
