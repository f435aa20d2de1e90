import { Args, Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { concurrentLine, showView } from '../src/cli/show-view.js';
import { heldEntriesWarning } from '../src/app/held-entries.js';
import { showRecord } from '../src/app/show.js';
import { toEmittedJson } from '../src/app/views.js';
import { internalError, LedgerError } from '../src/model/errors.js';
import { EMITTER_NAMES, isShapeName } from '../src/formats/shapes.js';
import { expandStdinIds } from '../src/cli/stdin-ids.js';

export default class Show extends LedgerCommand {
  static override summary = 'Show one record: who authored each field, and what ledger observed.';
  static override description =
    'ID is a record id or a unique prefix of one (as in git). --as FORMAT prints the record in a ' +
    "seed system's own shape: the original bytes when it came in that format, otherwise a " +
    'conversion, with what the format cannot carry listed on stderr. The observed half is ' +
    "headed with whose word it is here: ledger's when your ledger made the record or a signature " +
    'the policy trusts is on it; otherwise its witness results are unproven until verify --rerun.';
  static override examples = [
    '<%= config.bin %> show sha256:3f2a',
    '<%= config.bin %> show 3f2a --json',
    '<%= config.bin %> show 3f2a --as kxm',
    '<%= config.bin %> show --latest T-12',
  ];
  static override args = {
    id: Args.string({
      description: 'Record id or unique prefix; - reads it from stdin.',
      ignoreStdin: true,
    }),
  };
  static override flags = {
    as: Flags.string({
      description: `Print in this shape: ${EMITTER_NAMES.join(', ')}.`,
    }),
    latest: Flags.string({
      description:
        'The latest record of this task instead of an id: one no other record of the task descends from; when there are several (recorded concurrently), the first in the merged order, naming the others.',
    }),
    policy: Flags.string({
      description:
        'Policy file naming the trusted signers (default: git config --global ledger.policy).',
    }),
  };

  protected async execute(): Promise<Output> {
    const { args: given, flags } = await this.parse(Show);
    const args = given.id === '-' ? { id: await oneStdinId() } : given;
    if ((args.id === undefined) === (flags.latest === undefined)) {
      throw new LedgerError('USAGE', 'give exactly one of a record id or --latest TASK', {
        hint: 'ledger log lists record ids.',
      });
    }
    if (flags.as !== undefined && !isShapeName(flags.as)) {
      throw new LedgerError('USAGE', `unknown format ${flags.as}`, {
        hint: `Shapes: ${EMITTER_NAMES.join(', ')}`,
      });
    }
    const which = {
      ...(args.id !== undefined ? { id: args.id } : {}),
      ...(flags.latest !== undefined ? { latestOfTask: flags.latest } : {}),
      ...(flags.policy !== undefined ? { policyFile: flags.policy } : {}),
    };
    if (flags.as === undefined) return showView(process.cwd(), which);
    const shown = await showRecord({ cwd: process.cwd(), ...which, as: flags.as });
    if (!shown.emitted) throw internalError('show --as answered without the record re-emitted');
    if (shown.rollback !== undefined) this.warnLine(heldEntriesWarning(shown.rollback));
    if (!this.wantsJson) {
      this.writeOriginal(shown.emitted.bytes);
      for (const loss of shown.emitted.losses) this.warnLine(`not carried by ${flags.as}: ${loss}`);
      const concurrent = concurrentLine(shown.extra);
      if (concurrent !== '') this.warnLine(concurrent.trim());
      return { json: null, text: '' };
    }
    return { json: toEmittedJson(shown, flags.as), text: '' };
  }
}

async function oneStdinId(): Promise<string> {
  const ids = await expandStdinIds(['-']);
  if (ids.length !== 1)
    throw new LedgerError('USAGE', `show takes one record id; stdin held ${ids.length}`);
  return ids[0]!;
}
