import { Args, Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { syncView } from '../src/cli/sync-view.js';

export default class Sync extends LedgerCommand {
  static override summary = 'Exchange ledger records with a git remote: fetch, verify, join, push.';
  static override description =
    "Fetches the remote's refs/ledger/* into refs/ledger-remotes/<remote>/*, verifies every record " +
    'that is new to this clone before adopting it, joins the two histories (records are content-' +
    'addressed, so joining never conflicts and every clone orders the log the same way), moves ' +
    'refs/ledger/log by compare-and-swap and pushes with a lease on the exact remote tip it fetched, ' +
    'fetching again when the remote moved meanwhile. A remote whose ledger lost a record this clone ' +
    'saw there (force-push, rewrite) is refused. Exit 0 ok, 2 bad usage or the remote cannot be ' +
    "reached, 3 the remote's ledger went backwards or does not verify (your ledger is left as it was).";
  static override examples = [
    '<%= config.bin %> sync',
    '<%= config.bin %> sync upstream',
    '<%= config.bin %> sync --no-push --json',
    '<%= config.bin %> sync --checkpoint',
    '<%= config.bin %> sync --push-only   # end of a CI job: publish, take in nothing',
  ];
  static override args = {
    remote: Args.string({
      description: "Remote name (default: the current branch's upstream remote, else origin).",
      // Never the piped stdin: a CI step with something piped in must not sync with that.
      ignoreStdin: true,
    }),
  };
  static override flags = {
    push: Flags.boolean({
      description: 'Push local records the remote lacks (--no-push: only fetch and adopt).',
      default: true,
      allowNo: true,
    }),
    'push-only': Flags.boolean({
      description:
        "Only publish: push this clone's writer ref (with a lease on what it last saw there) without fetching or taking in the other writers' refs, so a fleet finishing at once does no work for each other. When the remote's ref is not as this clone left it, a full sync runs instead.",
      default: false,
    }),
    checkpoint: Flags.boolean({
      description:
        'After syncing, publish this ledger to refs/ledger/checkpoint and delete the writer refs it covers from the remote (fewer refs for every fetch). Readers accept a deleted writer ref only when the checkpoint holds everything they saw on it.',
      default: false,
    }),
  };

  protected async execute(): Promise<Output> {
    const { args, flags } = await this.parse(Sync);
    return syncView(
      process.cwd(),
      args.remote,
      { push: flags.push, pushOnly: flags['push-only'], checkpoint: flags.checkpoint },
      this.progress,
    );
  }
}
