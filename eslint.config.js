import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import boundaries from 'eslint-plugin-boundaries';
import { BOUNDARY_POLICIES, ELEMENTS, FILES } from './eslint.boundaries.js';

const NO_PLAIN_ERROR = {
  selector: "NewExpression[callee.name='Error']",
  message: 'Throw a LedgerError with a code (src/model/errors.ts), or internalError() for a bug.',
};
const NO_RAW_PRINTING = [
  {
    selector:
      "MemberExpression[object.object.name='process'][object.property.name=/^(stdout|stderr)$/][property.name=/^(write|end)$/]",
    message:
      'Print through the command base (src/cli/base.ts: output text, progress, remark, warnLine), which escapes agent-written text.',
  },
  {
    selector: "CallExpression[callee.object.name='console']",
    message: 'Print through the command base (src/cli/base.ts), which escapes agent-written text.',
  },
  {
    selector:
      "MemberExpression[object.type='ThisExpression'][property.name=/^(log|logToStderr|logJson|warn)$/]",
    message: "oclif's writers do not escape: print through the command base (src/cli/base.ts).",
  },
];
const PRINTERS = [
  'src/cli/base.ts',
  'src/cli/errors.ts',
  'src/cli/main.ts',
  'src/cli/output.ts',
  'src/cli/progress.ts',
  'src/cli/report-failure.ts',
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'fixtures/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // Everything a command prints goes through the command base, which escapes it for the
    // terminal (src/paths/terminal.ts): no other code in the product writes to stdout/stderr.
    // Library and command code throws only coded LedgerErrors (src/model/errors.ts): a plain
    // Error has no exit code, so it would surface as a bug (exit 4) whatever really happened.
    files: ['src/**/*.ts', 'commands/**/*.ts'],
    ignores: PRINTERS,
    rules: { 'no-restricted-syntax': ['error', NO_PLAIN_ERROR, ...NO_RAW_PRINTING] },
  },
  {
    // The layers of src/ (src/README.md): an import that runs against a folder's rule fails lint.
    files: ['src/**/*.ts', 'commands/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': ELEMENTS,
      'boundaries/files': FILES,
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import'],
      'import/resolver': { typescript: { project: './tsconfig.json' } },
    },
    rules: {
      'boundaries/dependencies': ['error', { default: 'disallow', policies: BOUNDARY_POLICIES }],
      'boundaries/no-unknown-files': 'error',
    },
  },
  {
    // The few modules that own the terminal: they escape what they print themselves.
    files: PRINTERS,
    rules: { 'no-restricted-syntax': ['error', NO_PLAIN_ERROR] },
  },
  {
    // Tests read the CLI's JSON output field by field, and look for raw escape bytes on purpose.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-control-regex': 'off' },
  },
  {
    // The package's CommonJS entry (require('handoff-ledger')): a shim over the ES build.
    files: ['cjs/**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
