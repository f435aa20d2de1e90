import { readFileSync } from 'node:fs';
import { Args } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { closest } from '../src/cli/suggest.js';
import { LedgerError } from '../src/model/errors.js';

/** dist/commands/ → dist/schemas/, written by `npm run build` (scripts/json-schemas.js). */
const SCHEMAS = new URL('../schemas/', import.meta.url);

interface SchemaIndex {
  schemas: { name: string; description: string; file: string }[];
}

export default class Schema extends LedgerCommand {
  static override summary =
    "Print the JSON Schema of a command's --json output, an MCP tool's answer, or the handoff.";
  static override description =
    'Every command that prints JSON has a published JSON Schema (draft 2020-12), generated from ' +
    'the same definitions the tests check the real output against. Fields may be added in later ' +
    'versions, never renamed or removed. `error` is the shape every command prints when it fails ' +
    'under --json. `mcp NAME` is what the MCP tool NAME answers (its outputSchema). `handoff` is ' +
    'the one input: the JSON an agent writes as its handoff in the ledger format, every field ' +
    'described, with an example. Without NAME, lists the schemas.';
  static override examples = [
    '<%= config.bin %> schema',
    '<%= config.bin %> schema verify',
    '<%= config.bin %> schema error > error.schema.json',
    '<%= config.bin %> schema handoff',
    '<%= config.bin %> schema mcp verify',
  ];
  static override args = {
    name: Args.string({
      description:
        'A command (record, verify, log, hook claude-code…), error, handoff, or mcp TOOL.',
    }),
  };
  // `ledger schema hook claude-code`: a command name of several words.
  static override strict = false;

  protected async execute(): Promise<Output> {
    const { argv } = await this.parse(Schema);
    const words = (argv as string[]).filter((a) => a !== '');
    const args = { name: words.length === 0 ? undefined : words.join(':') };
    const index = JSON.parse(readFileSync(new URL('index.json', SCHEMAS), 'utf8')) as SchemaIndex;
    if (args.name === undefined) {
      const width = Math.max(...index.schemas.map((s) => s.name.length));
      return {
        json: index,
        text: index.schemas
          .map((s) => `${s.name.replace(/:/g, ' ').padEnd(width)}  ${s.description}`)
          .join('\n'),
      };
    }
    const entry = index.schemas.find((s) => s.name === args.name);
    if (entry === undefined) {
      const meant = closest(
        args.name,
        index.schemas.map((s) => s.name),
      );
      throw new LedgerError('USAGE', `no JSON Schema named ${args.name}`, {
        problems: [
          {
            path: 'name',
            message: 'unknown schema',
            expected: meant ?? index.schemas.map((s) => s.name).join(' | '),
            got: args.name,
          },
        ],
        hint: 'ledger schema lists them.',
      });
    }
    const schema = JSON.parse(readFileSync(new URL(entry.file, SCHEMAS), 'utf8')) as unknown;
    return { json: schema, text: JSON.stringify(schema, null, 2) };
  }
}
