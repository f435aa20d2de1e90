/**
 * The signing flags of the commands that record for an agent (`ledger mcp`, the hooks): signing
 * there is the user's explicit choice on the command line, never `ledger.sign`, and it signs as
 * the recorder, so both commands must say and mean the same.
 */
import { Flags } from '@oclif/core';

export const recorderSigningFlags = {
  sign: Flags.boolean({
    description:
      'Sign each record as its recorder: "recorded by <you>\'s ledger", never its producer (ledger.sign does not apply here).',
    default: false,
  }),
  'signing-key': Flags.string({
    description: 'The key for --sign (as git user.signingKey: a file, a .pub, or key::…).',
    dependsOn: ['sign'],
  }),
};
