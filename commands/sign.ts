import { Args, Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { signRecord } from '../src/app/sign.js';
import { LedgerError } from '../src/model/errors.js';

export default class Sign extends LedgerCommand {
  static override summary = 'Add an SSH signature over a record id to the ledger.';
  static override description =
    'Signs the id string sha256:<hex> (no newline) in namespace "ledger", as git does for ' +
    'gpg.format=ssh: with --signing-key, else your user.signingKey, else ssh-agent. Or stores a ' +
    'signature made elsewhere (--signature FILE, e.g. from ssh-keygen -Y sign -n ledger). The ' +
    'record is not changed: the signature is a new ledger entry next to it. A signature that ' +
    'does not verify over the id is refused (exit 2).';
  static override examples = [
    '<%= config.bin %> sign sha256:3f2a',
    '<%= config.bin %> sign 3f2a --signing-key ~/.ssh/id_ed25519',
    'printf %s sha256:3f2a… | ssh-keygen -Y sign -n ledger -f ~/.ssh/id_ed25519 > sig && <%= config.bin %> sign 3f2a --signature sig',
  ];
  static override args = {
    id: Args.string({
      description: 'Record id or unique prefix (or an attestation id).',
      ignoreStdin: true,
    }),
  };
  static override flags = {
    signature: Flags.string({
      description: 'An armored SSH signature file to add instead of signing.',
    }),
    'signing-key': Flags.string({
      description: 'SSH key to sign with (key file, .pub in ssh-agent, or key::…).',
    }),
  };

  protected async execute(): Promise<Output> {
    const { args, flags } = await this.parse(Sign);
    if (args.id === undefined)
      throw new LedgerError('USAGE', 'give the record id to sign', {
        hint: 'ledger log lists record ids.',
      });
    const outcome = await signRecord({
      cwd: process.cwd(),
      id: args.id,
      ...(flags.signature === undefined ? {} : { signatureFile: flags.signature }),
      ...(flags['signing-key'] === undefined ? {} : { signingKey: flags['signing-key'] }),
    });
    return {
      json: { ok: true, ...outcome },
      text: `${outcome.added ? 'signed' : 'already signed'} ${outcome.id} (key ${outcome.key}; signature ${outcome.signature})`,
    };
  }
}
