#!/usr/bin/env node
/**
 * Judges every format on real documents (issue 9): each document in manifest.json is recorded
 * with the real CLI in a throw-away repository whose tree is what the document claims, then
 * verified. An honest document must record with the status it honestly claims and verify with no
 * contradicted claim; a lie (the same document, edited) must be caught — a lowered status or a
 * contradicted claim. A false alarm on honest work counts as much as a missed lie.
 *
 * The tree comes from the upstream commit when the document names one (`upstream`: the mirror of
 * the repository, fetched by the tool library, cloned --shared and checked out at the candidate,
 * recorded against the base), else it is built from the claims of the honest document: created
 * files only in the candidate, modified ones in both (different), deleted ones only in the base,
 * every `path:line` with enough lines. A lie is recorded against the tree of its honest document.
 *
 *   node test/formats/corpus/run.mjs [--mirrors DIR] [--only ID] [--cli bin/run.js] [--json]
 *
 * Prints one row per document and the totals; exits 1 when any row fails. Not part of `npm test`:
 * it needs the upstream mirrors (`fetch github:maystudios/maxsimcli` …) and a built CLI.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..', '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
/** `--cli` judges another build (an older commit's `bin/run.js`) on the same corpus. */
const CLI = resolve(opt('--cli', join(ROOT, 'bin', 'run.js')));
const MIRRORS = opt('--mirrors', '/work/.mirror');
const ONLY = opt('--only', undefined);
const JSON_OUT = args.includes('--json');

/** Git with no user or system configuration: the documents' trees must not depend on ours. */
const ENV = {
  ...process.env,
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Corpus',
  GIT_AUTHOR_EMAIL: 'corpus@example.com',
  GIT_COMMITTER_NAME: 'Corpus',
  GIT_COMMITTER_EMAIL: 'corpus@example.com',
  GIT_AUTHOR_DATE: '2026-03-07T10:00:00Z',
  GIT_COMMITTER_DATE: '2026-03-07T10:00:00Z',
};

function git(cwd, ...a) {
  const r = spawnSync('git', a, { cwd, env: ENV, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`git ${a.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function ledger(cwd, ...a) {
  const r = spawnSync(process.execPath, [CLI, ...a], { cwd, env: ENV, encoding: 'utf8' });
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status ?? 128, json, stderr: r.stderr };
}

function write(dir, path, content) {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
}

const lines = (n, tag) =>
  Array.from({ length: n }, (_, i) => `${tag} line ${i + 1}`).join('\n') + '\n';

/** The claims of a document as ledger reads them (a scratch repository, one commit). */
function claimsOf(docPath, format) {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-claims-'));
  try {
    git(dir, 'init', '-q', '-b', 'main');
    write(dir, 'README.md', '# scratch\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'scratch');
    const rec = ledger(
      dir,
      'record',
      '--from',
      docPath,
      '--json',
      ...(format ? ['--format', format] : []),
    );
    if (rec.code !== 0 || !rec.json?.id) return undefined;
    return ledger(dir, 'show', rec.json.id, '--json').json?.claims;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A repository whose base and candidate trees are what the claims say. Returns its folder.
 * `folders`: where a file the document names without its folder really is (its project's
 * layout), so that verify's by-name reading is judged as on the real tree.
 */
function synthRepo(claims, files = {}, folders = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'corpus-synth-'));
  git(dir, 'init', '-q', '-b', 'main');
  const longest = new Map();
  const need = (path, line) => longest.set(path, Math.max(longest.get(path) ?? 1, line ?? 1));
  for (const r of [...(claims.references ?? []), ...(claims.findings ?? [])]) {
    if (r.path && !r.path.startsWith('/')) need(r.path, Math.max(r.line ?? 1, r.endLine ?? 1) + 5);
  }
  const arts = (claims.artifacts ?? [])
    .filter((a) => !a.path.startsWith('/'))
    .map((a) => ({ ...a, path: folders[a.path] ?? a.path }));
  write(dir, 'README.md', '# corpus\n');
  const created = new Set(arts.filter((a) => a.action === 'created').map((a) => a.path));
  for (const [path, n] of longest)
    if (!created.has(path)) write(dir, path, lines(n, `base ${path}`));
  for (const a of arts) {
    if (a.action === 'modified' || a.action === 'deleted' || a.action === 'touched') {
      write(dir, a.path, lines(longest.get(a.path) ?? 3, `base ${a.path}`));
    }
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  for (const a of arts) {
    if (a.action === 'deleted') rmSync(join(dir, a.path), { force: true });
    else write(dir, a.path, lines(longest.get(a.path) ?? 3, `candidate ${a.path}`));
  }
  for (const [path, n] of longest) {
    if (!arts.some((a) => a.path === path)) write(dir, path, lines(n, `base ${path}`));
  }
  // Files whose bytes the document states (a digest): written as the document says.
  for (const [path, content] of Object.entries(files)) write(dir, path, content);
  return { dir, base: git(dir, 'rev-parse', 'HEAD') };
}

/** A clone of the upstream mirror with the candidate checked out; objects shared, not copied. */
function upstreamRepo(up) {
  const mirror = join(MIRRORS, up.repo.replace('/', '+'), 'repo');
  if (!existsSync(mirror)) throw new Error(`no mirror of ${up.repo} at ${mirror} (fetch it first)`);
  const dir = mkdtempSync(join(tmpdir(), 'corpus-up-'));
  git(dir, 'clone', '-q', '--shared', '--no-checkout', mirror, '.');
  git(dir, 'checkout', '-q', '-f', up.candidate);
  return { dir, base: git(dir, 'rev-parse', up.base) };
}

function applyLie(text, lie) {
  let out = text;
  for (const [from, to] of lie.replace ?? []) {
    if (!out.includes(from)) throw new Error(`lie ${lie.id}: "${from}" is not in the document`);
    out = out.replace(from, to);
  }
  if (lie.append) out += lie.append;
  return out;
}

function judge(doc, lie, rec, ver) {
  const contradicted = (ver.json?.records ?? [])
    .flatMap((r) => r.checks ?? [])
    .filter((c) => c.verdict === 'contradicted');
  const unverifiable = (ver.json?.records ?? [])
    .flatMap((r) => r.checks ?? [])
    .filter((c) => c.verdict === 'unverifiable').length;
  const status = rec.json?.effectiveStatus;
  const row = {
    id: lie ? `${doc.id}~${lie.id}` : doc.id,
    format: doc.format,
    kind: lie ? 'lie' : 'honest',
    recorded: rec.code === 0,
    claimed: rec.json?.claimedStatus ?? '',
    status: status ?? `refused(${rec.code})`,
    verifyExit: ver.code,
    contradicted: contradicted.map((c) => `${c.check}:${c.subject}`),
    unverifiable,
  };
  const honestStatus = doc.expect.status;
  if (!lie) {
    const problems = [];
    if (!row.recorded) problems.push(`not recorded: ${rec.stderr.trim().split('\n')[0]}`);
    else if (!honestStatus.includes(status))
      problems.push(`status ${status}, expected ${honestStatus.join('|')}`);
    // A real document can hold a real discrepancy (named in the manifest, with why): not a false alarm.
    const known = new Set(doc.expect.contradicts ?? []);
    const surprise = row.contradicted.filter((c) => !known.has(c));
    const missing = [...known].filter((c) => !row.contradicted.includes(c));
    if (row.recorded && surprise.length > 0)
      problems.push(`verify exit ${ver.code}: ${surprise.join(', ')}`);
    if (row.recorded && missing.length > 0)
      problems.push(`known discrepancy not found: ${missing.join(', ')}`);
    row.ok = problems.length === 0;
    row.why = problems.join('; ');
  } else {
    const lowered = row.recorded && !honestStatus.includes(status);
    const caught = lowered || contradicted.length > 0 || (lie.refused && !row.recorded);
    row.ok = caught;
    row.why = caught
      ? lowered
        ? `status ${status}`
        : row.contradicted.join(', ') || 'refused'
      : `missed: ${lie.what}`;
  }
  return row;
}

/** The tree git would write for the whole work tree (tracked and untracked), index untouched. */
function workTreeHash(dir) {
  const index = join(dir, '.git', 'corpus-index');
  const env = { ...ENV, GIT_INDEX_FILE: index };
  spawnSync('git', ['add', '-A'], { cwd: dir, env });
  const tree = spawnSync('git', ['write-tree'], { cwd: dir, env, encoding: 'utf8' }).stdout.trim();
  rmSync(index, { force: true });
  return tree;
}

/** A document as the upstream engine fills it: `{{BASE}}`, `{{TREE}}` become this repository's. */
function bind(text, base, tree) {
  return text.replaceAll('{{BASE}}', base).replaceAll('{{TREE}}', tree);
}

function runOne(doc, lie) {
  const docPath = join(HERE, doc.file);
  const honest = readFileSync(docPath, 'utf8');
  const ext = doc.file.slice(doc.file.lastIndexOf('.'));
  const scratch = mkdtempSync(join(tmpdir(), 'corpus-doc-'));
  const placeholder = join(scratch, `claims${ext}`);
  writeFileSync(placeholder, bind(honest, '0'.repeat(40), '0'.repeat(40)));
  const repo = doc.upstream
    ? upstreamRepo(doc.upstream)
    : synthRepo(claimsOf(placeholder, doc.formatFlag) ?? {}, doc.files, doc.folders);
  try {
    const from = join(scratch, `${doc.id.replace(/\//g, '_')}${lie ? `.${lie.id}` : ''}${ext}`);
    const tree = honest.includes('{{TREE}}') ? workTreeHash(repo.dir) : '';
    writeFileSync(from, bind(lie ? applyLie(honest, lie) : honest, repo.base, tree));
    const flags = ['--from', from, '--base', repo.base, '--json'];
    if (doc.formatFlag) flags.push('--format', doc.formatFlag);
    const rec = ledger(repo.dir, 'record', ...flags);
    const ver =
      rec.code === 0 ? ledger(repo.dir, 'verify', '--json') : { code: -1, json: undefined };
    return judge(doc, lie, rec, ver);
  } finally {
    rmSync(repo.dir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

const manifest = JSON.parse(readFileSync(join(HERE, 'manifest.json'), 'utf8'));
const rows = [];
for (const doc of manifest.documents) {
  if (ONLY && !doc.id.startsWith(ONLY)) continue;
  for (const lie of [undefined, ...(doc.lies ?? [])]) {
    try {
      rows.push(runOne(doc, lie));
    } catch (e) {
      rows.push({
        id: lie ? `${doc.id}~${lie.id}` : doc.id,
        format: doc.format,
        kind: lie ? 'lie' : 'honest',
        ok: false,
        why: String(e.message).split('\n')[0],
      });
    }
  }
}

if (JSON_OUT) process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
else {
  const pad = (s, n) =>
    String(s ?? '')
      .padEnd(n)
      .slice(0, n);
  console.log(
    `${pad('document', 44)} ${pad('format', 10)} ${pad('kind', 6)} ${pad('status', 10)} ${pad('verify', 6)} ${pad('ok', 4)} why`,
  );
  for (const r of rows) {
    console.log(
      `${pad(r.id, 44)} ${pad(r.format, 10)} ${pad(r.kind, 6)} ${pad(r.status, 10)} ${pad(r.verifyExit, 6)} ${pad(r.ok ? 'ok' : 'FAIL', 4)} ${r.ok ? '' : r.why}`,
    );
  }
  const by = (kind, format) =>
    rows.filter((r) => r.kind === kind && (!format || r.format === format));
  console.log('');
  for (const format of [...new Set(rows.map((r) => r.format))]) {
    const h = by('honest', format);
    const l = by('lie', format);
    console.log(
      `${pad(format, 10)} honest ${h.filter((r) => r.ok).length}/${h.length}   lies caught ${l.filter((r) => r.ok).length}/${l.length}`,
    );
  }
  const h = by('honest');
  const l = by('lie');
  console.log(
    `${pad('total', 10)} honest ${h.filter((r) => r.ok).length}/${h.length}   lies caught ${l.filter((r) => r.ok).length}/${l.length}`,
  );
}
process.exitCode = rows.every((r) => r.ok) ? 0 : 1;
