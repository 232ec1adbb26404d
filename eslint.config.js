// The linter: typescript-eslint's recommended rules for every TypeScript file and eslint-plugin-svelte's
// for the renderer's components. Formatting is Prettier's (prettier.config.js), layers are
// dependency-cruiser's (.dependency-cruiser.cjs), unused exports knip's (knip.json).
import js from '@eslint/js';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import ts from 'typescript-eslint';
import svelteConfig from './svelte.config.js';

export default ts.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', '.test-results/**', 'playwright-report/**', 'resources/**'] },
  js.configs.recommended,
  ...ts.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      // `_name` marks a value kept on purpose (a destructured field left out, an unused parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-control-regex': 'off',
      // TypeScript already checks every name (and knows the DOM's and Node's types, which this rule does not).
      'no-undef': 'off',
      // The stores keep their bookkeeping (ids asked for, object URLs handed out) in plain collections
      // on purpose: what the page shows is held in $state and Svelte's collections explicitly.
      'svelte/prefer-svelte-reactivity': 'off',
      // {" "} keeps a space at the edge of a block, where Svelte trims plain whitespace.
      'svelte/no-useless-mustaches': 'off',
    },
  },
  // Declaration files reference the window's API type by triple slash, as TypeScript documents.
  { files: ['**/*.d.ts'], rules: { '@typescript-eslint/triple-slash-reference': 'off' } },
  // Playwright fixtures that need no other fixture take an empty pattern, as its documentation shows.
  { files: ['e2e/**/*.ts'], rules: { 'no-empty-pattern': 'off' } },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { projectService: false, extraFileExtensions: ['.svelte'], parser: ts.parser, svelteConfig } },
  },
);
