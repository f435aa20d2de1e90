import { Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { logView } from '../src/cli/log-view.js';

export default class Log extends LedgerCommand {
  static override summary =
    "List records in the ledger's merged order: causal, newest first along each writer's history.";
  static override description =
    'Records of clones that had not synced each other are not ordered by time: a record of a ' +
    'task listed below another of that task that does not descend from it is marked concurrent ' +
    '(neither is newer), and with -n so is one the cut leaves out.';
  static override examples = [
    '<%= config.bin %> log',
    '<%= config.bin %> log --task T-12 --json',
    '<%= config.bin %> log -n 5',
  ];
  static override flags = {
    task: Flags.string({
      description: 'Only records of this task (its stored name, or the escaped form ledger shows).',
    }),
    limit: Flags.integer({
      char: 'n',
      description: 'At most this many records, the first in the merged order.',
      min: 1,
    }),
  };

  protected async execute(): Promise<Output> {
    const { flags } = await this.parse(Log);
    return logView(process.cwd(), {
      ...(flags.task !== undefined ? { task: flags.task } : {}),
      ...(flags.limit ? { limit: flags.limit } : {}),
    });
  }
}
