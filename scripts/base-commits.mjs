// Prints the base commit id of every record in refs/ledger/log, one a line, for action.yml to
// fetch the ones a shallow or partial clone lacks. A record keeps its base commit's raw bytes
// (records/<fan-out>/base-commit); the commit's id is the hash of those bytes as a git object,
// so no record has to be decoded and nothing the agent wrote is run or trusted: at worst an id
// is fetched from the remote and not found there.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';

const git = (args, input) =>
  execFileSync('git', args, { input, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'ignore'] });

const format = git(['rev-parse', '--show-object-format']).toString().trim();
const blobs = git(['ls-tree', '-r', '-z', 'refs/ledger/log', '--', 'records'])
  .toString()
  .split('\0')
  .filter((line) => line.endsWith('/base-commit') && line.split(' ')[1] === 'blob')
  .map((line) => line.split(/[ \t]/)[2]);
// A commit object is small; a huge blob planted under that name is not read (verify reports it).
const MAX_COMMIT_BYTES = 1 << 20;
const small = git(['cat-file', '--batch-check'], blobs.length > 0 ? `${blobs.join('\n')}\n` : '')
  .toString()
  .split('\n')
  .map((line) => line.split(' '))
  .filter(([, type, size]) => type === 'blob' && Number(size) <= MAX_COMMIT_BYTES)
  .map(([oid]) => oid);
if (small.length > 0) {
  const out = git(['cat-file', '--batch'], `${small.join('\n')}\n`);
  const seen = new Set();
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(10, at);
    const [, type, size] = out.subarray(at, eol).toString().split(' ');
    if (type !== 'blob') {
      at = eol + 1;
      continue;
    }
    const bytes = out.subarray(eol + 1, eol + 1 + Number(size));
    at = eol + 2 + Number(size);
    const id = createHash(format === 'sha256' ? 'sha256' : 'sha1')
      .update(`commit ${bytes.length}\0`)
      .update(bytes)
      .digest('hex');
    if (!seen.has(id)) {
      seen.add(id);
      process.stdout.write(`${id}\n`);
    }
  }
}
