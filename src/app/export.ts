/**
 * `ledger export`: one record as in-toto metadata — a signed link (a step in a layout) or a
 * Statement v1 (optionally in a signed DSSE envelope). The record is verified first, under the
 * auditor's policy, exactly as `ledger verify ID` would: a record whose ledger data fails an
 * integrity check is never exported, because signing it would vouch for tampered data.
 * Contradicted claims do not stop an export — the observations are still ledger's — and the
 * statement carries every verdict.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_STEP, linkFileName, linkFileText, signLink, toLink } from '../export/link.js';
import { parseSigningKey, type SigningKey } from '../export/signing-key.js';
import { toDsseEnvelope, toStatement } from '../export/statement.js';
import { readIndexedRecord } from '../ledger/records.js';
import { readBlob, readTree } from '../ledger/trees.js';
import { LedgerError } from '../model/errors.js';
import { pausePoint } from '../model/faults.js';
import { LEDGER_VERSION } from '../model/version.js';
import { MODE } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';
import type { RecordReport } from '../verify/types.js';
import { writeOutputFile } from './output-file.js';
import { withRepo } from './repo.js';
import { verifiedIndex } from './snapshot.js';
import { verifyRepository } from './verify.js';

export interface ExportRequest {
  cwd: string;
  id: string;
  as: 'in-toto-link' | 'in-toto-statement';
  /** An `in-toto-keygen -t ed25519` private key file: required for a link, optional (DSSE) for a statement. */
  keyFile?: string;
  step?: string;
  /** Link: the directory to write into (default cwd). Statement: the file, or `-` for none. */
  out?: string;
  policyFile?: string;
  now?: Date;
}

export interface ExportResult {
  id: string;
  kind: 'in-toto-link' | 'in-toto-statement' | 'dsse-envelope';
  /** Where it was written; null when the caller prints `text` itself (`--out -`). */
  path: string | null;
  text: string;
  keyid?: string;
  step?: string;
  materials?: number;
  products?: number;
  subjects?: number;
  /** Base-tree entries that are not files (symlinks, submodules): not materials. */
  skipped: string[];
  /** The export-time verification: exit code as `verify` gives it, and how many checks failed. */
  verification: { exitCode: number; contradicted: number; unverifiable: number };
}

export async function exportRecord(request: ExportRequest): Promise<ExportResult> {
  const key = request.keyFile === undefined ? undefined : await readSigningKey(request.keyFile);
  if (request.as === 'in-toto-link' && key === undefined) {
    throw new LedgerError('USAGE', 'an in-toto link must be signed: --key FILE is missing', {
      hint: 'Make a key with: in-toto-keygen -t ed25519 NAME, then pass --key NAME.',
    });
  }
  const now = request.now ?? new Date();
  const report = await verifyRepository({
    cwd: request.cwd,
    ids: [request.id],
    ...(request.policyFile === undefined ? {} : { policyFile: request.policyFile }),
    now,
  });
  const checked: RecordReport = report.records[0]!;
  const id = checked.id;
  if (report.exitCode === 3) {
    const failed = [...report.ledger, ...checked.checks].filter(
      (c) => c.integrity && c.verdict !== 'verified',
    );
    throw new LedgerError('INTEGRITY', `not exporting ${id}: its ledger data failed verification`, {
      record: id,
      problems: failed.map((c) => ({ path: `${c.check} ${c.subject}`, message: c.detail })),
      hint: 'Run ledger verify to see every damaged record.',
    });
  }
  const verification = {
    exitCode: report.exitCode,
    contradicted: checked.checks.filter((c) => c.verdict === 'contradicted').length,
    unverifiable: checked.checks.filter((c) => c.verdict === 'unverifiable').length,
  };
  await pausePoint('export-after-verify');
  return withRepo(request.cwd, async ({ store }) => {
    const index = await verifiedIndex(store, report);
    const { record } = await readIndexedRecord(store, index, id);
    if (request.as === 'in-toto-link') {
      const signingKey = key!;
      const { files, skipped } = await treeDigests(store, record.observed.base.tree);
      const step = request.step ?? DEFAULT_STEP;
      const metablock = signLink(toLink({ id, record, materials: files, step }), signingKey);
      const text = linkFileText(metablock);
      const path = await writeOutputFile(
        join(request.out ?? request.cwd, linkFileName(step, signingKey.keyid)),
        text,
      );
      return {
        id,
        kind: 'in-toto-link',
        path,
        text,
        keyid: signingKey.keyid,
        step,
        materials: files.size,
        products: record.observed.artifacts.length,
        skipped,
        verification,
      };
    }
    const statement = toStatement({
      id,
      record,
      verification: {
        verifiedAt: now.toISOString(),
        ledgerVersion: LEDGER_VERSION,
        policy: { source: report.policy?.source ?? 'default', digest: report.policy?.digest ?? '' },
        exitCode: report.exitCode,
        checks: checked.checks,
      },
      signers: checked.checks
        .filter((c) => c.check === 'signature' && c.verdict === 'verified')
        .map((c) => c.subject),
    });
    const body = key === undefined ? statement : toDsseEnvelope(statement, key);
    const text = `${JSON.stringify(body, null, 2)}\n`;
    const hex = id.slice(7, 19);
    const target =
      request.out ??
      join(request.cwd, `ledger-${hex}.${key === undefined ? 'statement' : 'dsse'}.json`);
    const path = target === '-' ? null : await writeOutputFile(target, text);
    return {
      id,
      kind: key === undefined ? 'in-toto-statement' : 'dsse-envelope',
      path,
      text,
      ...(key === undefined ? {} : { keyid: key.keyid }),
      subjects: statement.subject.length,
      skipped: [],
      verification,
    };
  });
}

async function readSigningKey(file: string): Promise<SigningKey> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new LedgerError(
      'USAGE',
      `cannot read the key file ${file}: ${(error as Error).message}`,
      {
        hint: 'Make a key with: in-toto-keygen -t ed25519 NAME, then pass --key NAME.',
      },
    );
  }
  return parseSigningKey(text, file);
}

/**
 * sha256 of every file in a tree, by path, as `in-toto-run --materials .` would record them
 * from a checkout. Symlinks and submodules are not files with content of their own here (a
 * link's target may lie outside the tree) and are listed as skipped instead.
 */
async function treeDigests(
  store: ObjectReader,
  tree: string,
): Promise<{ files: Map<string, string>; skipped: string[] }> {
  const files = new Map<string, string>();
  const skipped: string[] = [];
  const walk = async (oid: string, prefix: string): Promise<void> => {
    for (const entry of await readTree(store, oid)) {
      const path = `${prefix}${entry.name}`;
      if (entry.mode === MODE.tree) await walk(entry.oid, `${path}/`);
      else if (entry.mode === MODE.file || entry.mode === MODE.executable)
        files.set(
          path,
          createHash('sha256')
            .update(await readBlob(store, entry.oid))
            .digest('hex'),
        );
      else skipped.push(path);
    }
  };
  await walk(tree, '');
  return { files, skipped };
}
