// Lint: the layer boundaries (contract <- store <- runtime <- apps/server; apps/web sees only the
// contract), the rules of hooks, and TypeScript's recommended checks.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const APPS = [
  { group: ['@switchboard/server', '@switchboard/server/*', '@switchboard/web', '@switchboard/web/*'], message: 'Nothing imports an app.' },
  { group: ['**/apps/*', '**/apps/**'], message: 'Nothing imports an app.' },
  { group: ['@switchboard/testkit', '@switchboard/testkit/*', '**/packages/testkit/**'], message: 'The testkit is for tests, e2e and benchmarks only.' },
];
const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: [...APPS, ...patterns.map((group) => ({ group, message }))] }],
});

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'test-results/**', 'scratch/**', 'data/**', 'playwright-report/**'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Tests and protocol code handle untyped JSON on purpose; `unknown` is preferred, not enforced.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
      'no-empty-pattern': 'off',
    },
  },
  {
    // Plain Node scripts (TypeScript files get this check from the compiler).
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
  },
  {
    files: ['packages/contract/**/*.ts'],
    rules: restrict([['@switchboard/*', '**/packages/*/**', '../../*/src/**']], 'The contract imports nothing of ours.'),
  },
  {
    // The testkit starts servers as processes: it never imports the runtime or an app's code.
    files: ['packages/testkit/**/*.ts'],
    rules: restrict([['@switchboard/runtime', '@switchboard/runtime/*', '**/runtime/src/**']], 'The testkit starts servers as processes; it imports no runtime code.'),
  },
  {
    files: ['packages/store/**/*.ts'],
    rules: restrict([['@switchboard/runtime', '@switchboard/runtime/*', '**/runtime/src/**']], 'The store may import only the contract.'),
  },
  {
    // The store owns every statement: the runtime and the server call its repositories and carry
    // its opaque StoreTx, so a second engine is a second store, not edits across the runtime.
    files: ['packages/runtime/**/*.ts', 'apps/server/src/**/*.ts'],
    rules: restrict(
      [['kysely', 'kysely/*', 'better-sqlite3', 'pg', '@switchboard/store/testing']],
      'Only the store writes SQL: call a repository of @switchboard/store (its /testing entry is for tests).',
    ),
  },
  {
    // Tests (and the runtime's test fixtures) may arrange and count rows through @switchboard/store/testing.
    files: ['packages/runtime/**/*.test.ts', 'packages/runtime/src/testing/**/*.ts'],
    rules: restrict([['kysely', 'kysely/*', 'better-sqlite3', 'pg']], 'Tests reach the database through @switchboard/store/testing.'),
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    rules: restrict(
      [['@switchboard/store', '@switchboard/store/*', '@switchboard/runtime', '@switchboard/runtime/*', 'kysely', 'better-sqlite3', 'node:*']],
      'The console imports only the contract (and its own files).',
    ),
  },
  {
    // The contract's index brings zod, which compiles validators with `new Function`: the console's
    // CSP forbids eval, and zod would weigh on every page. Values come from its zod-free entries.
    files: ['apps/web/src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@switchboard/contract', allowTypeImports: true, message: 'Import types only from the contract index; values from @switchboard/contract/roles, /limits, /sign-in, /payload-search or /export (no zod in the console).' }],
        },
      ],
    },
  },
  {
    files: ['apps/web/**/*.tsx', 'apps/web/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // Tests and tools of an app may use its own code; the benchmarks and e2e start the server as a process.
    files: ['apps/server/test/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts', 'e2e/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // The helpers every test calls through are typed from the contract: no `any` may creep back.
    files: ['apps/server/test/*-helpers.ts', 'apps/server/test/harness.ts', 'apps/server/test/ws-client.ts', 'apps/server/test/methods/*.ts', 'e2e/fixtures.ts', 'e2e/server-process.ts', 'e2e/pages/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
);
