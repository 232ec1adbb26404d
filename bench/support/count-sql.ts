// Runs the CLI from source with every SQL call counted, printing the counts on stderr at exit:
// how many statements and transactions a command costs (PROFILE-issue12.md: "8.5 transactions per image").
//   FLOWDECK_DATA_DIR=... npx tsx bench/support/count-sql.ts watch DIR --workflow WF --bind 1.image --once ...
import sqlite3 from 'sqlite3';

type SqlMethod = (this: sqlite3.Database, sql: string, ...rest: unknown[]) => unknown;
const counts = new Map<string, number>();
const prototype = sqlite3.Database.prototype as unknown as Record<'run' | 'exec' | 'get' | 'all', SqlMethod>;
for (const method of ['run', 'exec', 'get', 'all'] as const) {
  const original = prototype[method];
  prototype[method] = function (this: sqlite3.Database, sql: string, ...rest: unknown[]) {
    const key = `${method} ${sql.trim().replace(/\s+/g, ' ').slice(0, 70)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.call(this, sql, ...rest);
  };
}
// The store keeps statements prepared and runs them again (Statement.run/all): count those too,
// under their SQL text, as a statement each.
type StatementMethod = (this: sqlite3.Statement & { sql: string }, ...rest: unknown[]) => unknown;
const statementPrototype = sqlite3.Statement.prototype as unknown as Record<'run' | 'get' | 'all', StatementMethod>;
for (const method of ['run', 'get', 'all'] as const) {
  const original = statementPrototype[method];
  statementPrototype[method] = function (this: sqlite3.Statement & { sql: string }, ...rest: unknown[]) {
    const key = `${method} ${this.sql.trim().replace(/\s+/g, ' ').slice(0, 70)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.apply(this, rest);
  };
}
process.on('exit', () => {
  const rows = [...counts].sort((a, b) => b[1] - a[1]);
  process.stderr.write(`SQL calls: ${rows.reduce((sum, [, n]) => sum + n, 0)}\n`);
  for (const [key, n] of rows.slice(0, 30)) process.stderr.write(`${String(n).padStart(7)}  ${key}\n`);
});
// The CLI reads its arguments from process.argv.slice(2): this script's own path is argv[1].
await import('../../src/cli/index');
