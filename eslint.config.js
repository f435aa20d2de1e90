import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // Library and command code throws only coded LedgerErrors (src/model/errors.ts): a plain
    // Error has no exit code, so it would surface as a bug (exit 4) whatever really happened.
    files: ['src/**/*.ts', 'commands/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Error']",
          message:
            'Throw a LedgerError with a code (src/model/errors.ts), or internalError() for a bug.',
        },
      ],
    },
  },
  {
    // Tests read the CLI's JSON output field by field, and look for raw escape bytes on purpose.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-control-regex': 'off' },
  },
);
