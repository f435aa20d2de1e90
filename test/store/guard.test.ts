/**
 * The guard in memory: which settings of a repository's config get overridden, with what, and
 * that the user's own (global/system) settings win over the neutral values. What the overrides
 * do to a real git is tested in test/adversarial/repo-config.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { GitConfig, parseConfigListing, type ConfigEntry } from '../../src/store/git/config.js';
import { guardConfig } from '../../src/store/git/guard.js';
import { isLedgerError } from '../../src/model/errors.js';

function entry(scope: ConfigEntry['scope'], key: string, value?: string): ConfigEntry {
  return { scope, origin: scope === 'local' ? 'file:.git/config' : `file:${scope}`, key, value };
}

/** The overrides as key → values, in the order git will apply them. */
function overrides(entries: ConfigEntry[], env: NodeJS.ProcessEnv = {}): Map<string, string[]> {
  const guard = guardConfig(new GitConfig(entries), env);
  const out = new Map<string, string[]>();
  const count = Number(guard.env['GIT_CONFIG_COUNT'] ?? 0);
  for (let i = 0; i < count; i++) {
    const key = guard.env[`GIT_CONFIG_KEY_${i}`]!;
    out.set(key, [...(out.get(key) ?? []), guard.env[`GIT_CONFIG_VALUE_${i}`]!]);
  }
  return out;
}

describe('guardConfig', () => {
  // Every key git-config(1) documents as naming a program (git 2.39), set by the repository.
  const programKeys: [string, string][] = [
    ['core.sshcommand', 'ssh'],
    ['core.askpass', ''],
    ['core.editor', ':'],
    ['core.pager', ''],
    ['core.alternaterefscommand', ''],
    ['core.hookspath', '/dev/null'],
    ['core.fsmonitor', 'false'],
    ['sequence.editor', ':'],
    ['pager.log', ''],
    ['diff.external', ''],
    ['diff.evil.command', ''],
    ['diff.evil.textconv', ''],
    ['merge.evil.driver', ''],
    ['interactive.difffilter', ''],
    ['gpg.program', ''],
    ['gpg.ssh.program', ''],
    ['gpg.x509.program', ''],
    ['gpg.ssh.defaultkeycommand', ''],
    ['web.browser', ''],
    ['help.browser', ''],
    ['instaweb.browser', ''],
    ['browser.evil.cmd', ''],
    ['browser.evil.path', ''],
    ['man.viewer', ''],
    ['man.evil.cmd', ''],
    ['man.evil.path', ''],
    ['difftool.evil.cmd', ''],
    ['difftool.evil.path', ''],
    ['mergetool.evil.cmd', ''],
    ['mergetool.evil.path', ''],
    ['guitool.evil.cmd', ''],
    ['imap.tunnel', ''],
    ['sendemail.smtpserver', ''],
    ['sendemail.tocmd', ''],
    ['sendemail.cccmd', ''],
    ['sendemail.work.tocmd', ''],
    ['submodule.lib.update', 'none'],
  ];

  it.each(programKeys)(
    '%s from the repository is overridden with the value that runs nothing',
    (key, neutral) => {
      for (const scope of ['local', 'worktree'] as const) {
        const got = overrides([entry(scope, key, '/tmp/planted')]);
        expect(got.get(key), `${scope} ${key}`).toEqual([neutral]);
      }
    },
  );

  it.each(programKeys)("%s keeps the user's own value when their config sets it", (key) => {
    const got = overrides([entry('global', key, 'mine'), entry('local', key, '/tmp/planted')]);
    expect(got.get(key)).toEqual(['mine']);
  });

  // Keys naming a file git writes (curl's cookie jar: `sync` overwrote ~/.bashrc with the
  // remote's cookie), or reads whole in a command ledger runs (`record`'s ls-files read
  // /dev/zero until memory ran out): red team, round seven.
  const fileKeys: [string, string][] = [
    ['http.savecookies', 'false'],
    ['http.cookiefile', ''],
    ['http.https://example.com/.savecookies', 'false'],
    ['http.https://example.com/.cookiefile', ''],
    ['core.attributesfile', ''],
  ];

  it.each(fileKeys)('%s from the repository is overridden with git’s default', (key, neutral) => {
    for (const scope of ['local', 'worktree'] as const) {
      const got = overrides([entry(scope, key, '/tmp/planted')]);
      expect(got.get(key), `${scope} ${key}`).toEqual([neutral]);
    }
    const mine = overrides([entry('global', key, 'mine'), entry('local', key, '/tmp/planted')]);
    expect(mine.get(key)).toEqual(['mine']);
  });

  // Who may receive the user's credentials (red team, round nine): the repository switched off
  // certificate checks behind a proxy of its own, and the user's credential helper answered.
  it('http.sslVerify and the certificate store from the repository: verification on, the user’s store or the system’s', () => {
    for (const key of ['http.sslverify', 'http.https://git.example.com/.sslverify'])
      expect(overrides([entry('local', key, 'false')]).get(key), key).toEqual(['true']);
    // The user's own choice holds, their plain key standing in for an `http.<url>.` form.
    const url = 'http.https://git.example.com/.sslverify';
    expect(
      overrides([entry('global', 'http.sslverify', 'false'), entry('local', url, 'false')]).get(
        url,
      ),
    ).toEqual(['false']);
    const store = overrides([entry('local', 'http.sslcainfo', '/tmp/agent-ca.pem')]);
    expect(store.get('http.sslcainfo')![0]).not.toBe('/tmp/agent-ca.pem');
    const mine = overrides([
      entry('global', 'http.sslcainfo', '/etc/corp-ca.pem'),
      entry('local', 'http.https://git.example.com/.sslcainfo', '/tmp/agent-ca.pem'),
      entry('local', 'http.sslcapath', '/tmp/agent-certs'),
    ]);
    expect(mine.get('http.https://git.example.com/.sslcainfo')).toEqual(['/etc/corp-ca.pem']);
    expect(mine.get('http.sslcapath')![0]).not.toBe('/tmp/agent-certs');
  });

  it('core.attributesFile falls back to where git reads the user’s attributes', () => {
    const planted = [entry('local', 'core.attributesfile', '/dev/zero')];
    expect(overrides(planted, { XDG_CONFIG_HOME: '/x' }).get('core.attributesfile')).toEqual([
      '/x/git/attributes',
    ]);
    expect(overrides(planted, { HOME: '/home/u' }).get('core.attributesfile')).toEqual([
      '/home/u/.config/git/attributes',
    ]);
  });

  it('leaves a repository alone that sets no program (no environment at all)', () => {
    const guard = guardConfig(
      new GitConfig([
        entry('local', 'core.bare', 'false'),
        entry('local', 'remote.origin.url', '/srv/x'),
        entry('local', 'user.signingkey', '~/.ssh/id'),
        entry('global', 'credential.helper', 'store'),
        entry('global', 'filter.lfs.clean', 'git-lfs clean -- %f'),
      ]),
      {},
    );
    expect(guard.env).toEqual({});
    expect(guard.ignored).toEqual([]);
  });

  it('overrides a filter driver as a whole: commands emptied, required off, the user’s own definition kept', () => {
    const planted = overrides([entry('local', 'filter.evil.process', 'x')]);
    expect(Object.fromEntries(planted)).toEqual({
      'filter.evil.clean': [''],
      'filter.evil.smudge': [''],
      'filter.evil.process': [''],
      'filter.evil.required': ['false'],
    });
    const lfs = overrides([
      entry('global', 'filter.lfs.clean', 'git-lfs clean -- %f'),
      entry('global', 'filter.lfs.required', 'true'),
      entry('local', 'filter.lfs.clean', 'x'),
    ]);
    expect(lfs.get('filter.lfs.clean')).toEqual(['git-lfs clean -- %f']);
    expect(lfs.get('filter.lfs.required')).toEqual(['true']);
    // A filter's unrelated prototype-named variable is not a filter command.
    expect(overrides([entry('local', 'filter.evil.constructor', 'x')]).size).toBe(0);
  });

  it('credential helpers: the list is cleared, then the user’s helpers come back in their order', () => {
    const got = guardConfig(
      new GitConfig([
        entry('system', 'credential.helper', 'cache'),
        entry('global', 'credential.https://example.com.helper', 'store'),
        entry('local', 'credential.helper', '!touch /tmp/pwned'),
        entry('local', 'credential.https://example.com.helper', '!touch /tmp/pwned2'),
      ]),
      {},
    ).env;
    expect(got).toMatchObject({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_0: 'credential.helper',
      GIT_CONFIG_VALUE_0: '',
      GIT_CONFIG_KEY_1: 'credential.helper',
      GIT_CONFIG_VALUE_1: 'cache',
      GIT_CONFIG_KEY_2: 'credential.https://example.com.helper',
      GIT_CONFIG_VALUE_2: 'store',
    });
  });

  it('upload-pack and receive-pack: passed as options (git keeps the first value read), refused when the user sets one too or in a partial clone', () => {
    const guard = guardConfig(
      new GitConfig([
        entry('local', 'remote.origin.uploadpack', '/tmp/planted'),
        entry('local', 'remote.other.receivepack', '/tmp/planted'),
      ]),
      {},
    );
    expect(guard).toMatchObject({ uploadPack: 'git-upload-pack', receivePack: 'git-receive-pack' });
    expect(guard.ignored.map((i) => i.key)).toEqual([
      'remote.origin.uploadpack',
      'remote.other.receivepack',
    ]);
    for (const extra of [
      entry('global', 'remote.mirror.uploadpack', 'mine'),
      entry('local', 'extensions.partialclone', 'origin'),
      entry('local', 'remote.origin.promisor', 'true'),
    ]) {
      let error: unknown;
      try {
        guardConfig(
          new GitConfig([extra, entry('local', 'remote.origin.uploadpack', '/tmp/planted')]),
          {},
        );
      } catch (e) {
        error = e;
      }
      expect(isLedgerError(error, 'UNSUPPORTED_REPOSITORY'), extra.key).toBe(true);
    }
  });

  it('core.gitProxy: switched off through GIT_PROXY_COMMAND, refused when the user has one too', () => {
    const local = entry('local', 'core.gitproxy', '/tmp/planted');
    expect(guardConfig(new GitConfig([local]), {}).env['GIT_PROXY_COMMAND']).toBe('');
    // The user's own GIT_PROXY_COMMAND already replaces every core.gitProxy.
    expect(
      guardConfig(new GitConfig([local]), { GIT_PROXY_COMMAND: 'mine' }).env['GIT_PROXY_COMMAND'],
    ).toBeUndefined();
    let error: unknown;
    try {
      guardConfig(new GitConfig([entry('global', 'core.gitproxy', 'mine for corp'), local]), {});
    } catch (e) {
      error = e;
    }
    expect(isLedgerError(error, 'UNSUPPORTED_REPOSITORY')).toBe(true);
  });

  it('protocol policy: the repository cannot allow a protocol; git’s built-in policy or the user’s holds', () => {
    expect(Object.fromEntries(overrides([entry('local', 'protocol.ext.allow', 'always')]))).toEqual(
      { 'protocol.ext.allow': ['never'] },
    );
    expect(
      overrides([entry('local', 'protocol.fd.allow', 'always')]).get('protocol.fd.allow'),
    ).toEqual(['user']);
    const all = overrides([entry('local', 'protocol.allow', 'always')]);
    expect(all.get('protocol.allow')).toEqual(['user']);
    expect(all.get('protocol.ext.allow')).toEqual(['never']);
    expect(all.get('protocol.https.allow')).toEqual(['always']);
    const strict = overrides([
      entry('global', 'protocol.allow', 'never'),
      entry('local', 'protocol.allow', 'always'),
      entry('local', 'protocol.file.allow', 'always'),
    ]);
    expect(Object.fromEntries(strict)).toEqual({
      'protocol.allow': ['never'],
      'protocol.file.allow': ['never'],
    });
  });

  it('core.sshCommand falls back to GIT_SSH as git does when the user configures no ssh command', () => {
    const got = overrides([entry('local', 'core.sshcommand', 'evil')], {
      GIT_SSH: "/opt/my ssh's",
    });
    expect(got.get('core.sshcommand')).toEqual([`'/opt/my ssh'\\''s'`]);
  });

  it('reports what it ignored, with where it was set', () => {
    const guard = guardConfig(
      new GitConfig([
        { scope: 'local', origin: 'file:/home/x/evil.inc', key: 'diff.x.textconv', value: 'y' },
      ]),
      {},
    );
    expect(guard.ignored).toEqual([{ key: 'diff.x.textconv', origin: 'file:/home/x/evil.inc' }]);
  });
});

describe('parseConfigListing', () => {
  it('reads scope, origin, key and value, a key without value, and values with newlines', () => {
    const text = [
      'global',
      'file:/h/.gitconfig',
      'user.name\nA B',
      'local',
      'file:.git/config',
      'core.bare',
      'local',
      'file:/x/inc',
      'Remote.My.Remote.url\nline1\nline2',
      '',
    ].join('\0');
    const config = new GitConfig(parseConfigListing(Buffer.from(text)));
    expect(config.entries).toHaveLength(3);
    expect(config.get('core.bare')).toBe('true');
    expect(config.entries[1]!.value).toBeUndefined();
    expect(config.get('remote.My.Remote.url')).toBe('line1\nline2');
    expect(config.subsections('remote', 'url')).toEqual(['My.Remote']);
    expect(config.get('USER.NAME')).toBe('A B');
  });
});
