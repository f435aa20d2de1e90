import { Args, Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { renderRecord } from '../src/cli/render-record.js';
import { showRecord } from '../src/app/show.js';
import { LedgerError } from '../src/model/errors.js';
import type { SignatureVerdict } from '../src/verify/signatures.js';
import { EMITTERS, isEmitterName } from '../src/formats/index.js';

export default class Show extends LedgerCommand {
  static override summary = 'Show one record: who authored each field, and what ledger observed.';
  static override description =
    'ID is a record id or a unique prefix of one (as in git). --as FORMAT prints the record in a ' +
    "seed system's own shape: the original bytes when it came in that format, otherwise a " +
    'conversion, with what the format cannot carry listed on stderr.';
  static override examples = [
    '<%= config.bin %> show sha256:3f2a',
    '<%= config.bin %> show 3f2a --json',
    '<%= config.bin %> show 3f2a --as kxm',
    '<%= config.bin %> show --latest T-12',
  ];
  static override args = { id: Args.string({ description: 'Record id or unique prefix.' }) };
  static override flags = {
    as: Flags.string({
      description: `Print in this shape: ${EMITTERS.join(', ')} (kxm-doc: KXM's Markdown view).`,
    }),
    latest: Flags.string({ description: 'The newest record of this task instead of an id.' }),
    policy: Flags.string({
      description:
        'Policy file naming the trusted signers (default: git config --global ledger.policy).',
    }),
  };

  protected async execute(): Promise<Output> {
    const { args, flags } = await this.parse(Show);
    if ((args.id === undefined) === (flags.latest === undefined)) {
      throw new LedgerError('USAGE', 'give exactly one of a record id or --latest TASK', {
        hint: 'ledger log lists record ids.',
      });
    }
    if (flags.as !== undefined && !isEmitterName(flags.as)) {
      throw new LedgerError('USAGE', `unknown format ${flags.as}`, {
        hint: `Formats: ${EMITTERS.join(', ')}`,
      });
    }
    const shown = await showRecord({
      cwd: process.cwd(),
      ...(args.id !== undefined ? { id: args.id } : {}),
      ...(flags.latest !== undefined ? { latestOfTask: flags.latest } : {}),
      ...(flags.policy !== undefined ? { policyFile: flags.policy } : {}),
      ...(flags.as !== undefined && isEmitterName(flags.as) ? { as: flags.as } : {}),
    });
    if (shown.emitted) {
      if (!this.wantsJson) {
        this.writeOriginal(shown.emitted.bytes);
        for (const loss of shown.emitted.losses)
          this.warnLine(`not carried by ${flags.as}: ${loss}`);
        return { json: null, text: '' };
      }
      return {
        json: {
          id: shown.id,
          format: flags.as,
          original: shown.emitted.original,
          text: Buffer.from(shown.emitted.bytes).toString('utf8'),
          losses: shown.emitted.losses,
        },
        text: '',
      };
    }
    const { record } = shown;
    return {
      json: {
        id: shown.id,
        format: record.format,
        claimedStatus: record.claims.status,
        effectiveStatus: record.observed.effectiveStatus,
        reasons: record.observed.reasons,
        authors: { claims: 'agent', observed: 'ledger' },
        claims: record.claims,
        observed: record.observed,
        producer: producerView(record.observed.producer, shown.signatures ?? []),
        signatures: (shown.signatures ?? []).map((s) => ({
          armored: s.armored,
          signer: s.signer,
          verified: s.verified,
          ...(s.key === undefined ? {} : { key: s.key }),
          detail: s.reason,
        })),
        ...shown.extra,
      },
      text: renderRecord(shown.id, record, shown.signatures ?? []),
    };
  }
}

/** Who made the record: a verified principal only through a trusted signature, else a claim. */
function producerView(claimed: string | undefined, signatures: readonly SignatureVerdict[]) {
  const signers = signatures.filter((s) => s.verified).map((s) => s.signer!);
  return {
    claimed: claimed ?? null,
    verified: signers.length > 0 ? signers : null,
    status: signers.length === 0 ? 'claimed' : 'verified',
  };
}
