import { Args, Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { renderRecord } from '../src/cli/render-record.js';
import { showRecord } from '../src/app/show.js';
import { LedgerError } from '../src/model/errors.js';
import { FORMATS, type FormatName } from '../src/model/record.js';

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
    as: Flags.string({ description: `Print in this format: ${FORMATS.join(', ')}.` }),
    latest: Flags.string({ description: 'The newest record of this task instead of an id.' }),
  };

  protected async execute(): Promise<Output> {
    const { args, flags } = await this.parse(Show);
    if ((args.id === undefined) === (flags.latest === undefined)) {
      throw new LedgerError('USAGE', 'give exactly one of a record id or --latest TASK', { hint: 'ledger log lists record ids.' });
    }
    if (flags.as !== undefined && !(FORMATS as readonly string[]).includes(flags.as)) {
      throw new LedgerError('USAGE', `unknown format ${flags.as}`, { hint: `Formats: ${FORMATS.join(', ')}` });
    }
    const shown = await showRecord({
      cwd: process.cwd(),
      ...(args.id !== undefined ? { id: args.id } : {}),
      ...(flags.latest !== undefined ? { latestOfTask: flags.latest } : {}),
      ...(flags.as !== undefined ? { as: flags.as as FormatName } : {}),
    });
    if (shown.emitted) {
      if (!this.wantsJson) {
        process.stdout.write(shown.emitted.bytes);
        for (const loss of shown.emitted.losses) process.stderr.write(`not carried by ${flags.as}: ${loss}\n`);
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
        ...shown.extra,
      },
      text: renderRecord(shown.id, record),
    };
  }
}
