import { LedgerCommand, type Output } from '../src/cli/base.js';
import { versionInfo, versionLine } from '../src/cli/version.js';

export default class Version extends LedgerCommand {
  static override summary = 'Print the version of ledger, as --version does.';
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json'];

  protected async execute(): Promise<Output> {
    await this.parse(Version);
    const info = versionInfo();
    return { json: { ...info, line: versionLine(info) }, text: versionLine(info) };
  }
}
