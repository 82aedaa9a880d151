import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerRules } from './layers.config.js';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'certs/', 'coverage/', '.tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // crdgate strips control characters from warnings and messages on purpose; matching them is the point.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read wire JSON, whose shape is what they assert.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The built-in example is the proof that the public API is enough to write and test a contract: it imports what
    // a user can import ('crdgate' is src/index.ts, 'crdgate/testing' src/testing.ts), never crdgate's internals.
    files: ['src/contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./\\.\\./(?!index\\.ts$|testing\\.ts$)',
              message:
                "The example imports only crdgate's public API: '../../index.ts' ('crdgate') and, in tests, '../../testing.ts' ('crdgate/testing').",
            },
          ],
        },
      ],
    },
  },
  ...layerRules(),
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
