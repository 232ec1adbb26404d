// The formatter: Prettier for TypeScript, JavaScript, JSON and Svelte (prettier-plugin-svelte).
// `npm run format` writes; `npm run lint` checks. Lines up to 160 columns: the code's names are long
// and self-explaining, and shorter lines would break most signatures.
export default {
  plugins: ['prettier-plugin-svelte'],
  printWidth: 160,
  singleQuote: true,
  overrides: [{ files: '*.svelte', options: { parser: 'svelte' } }],
};
