// JSON written the way the local server (Python's json.dumps) writes it: ", " and ": " separators,
// non-ASCII escaped as \uXXXX, integers of any size kept exact (bigint). The local flavour answers
// with it so clients meet the same bytes as from the real server.

function escapeString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const ch = text[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    // Python escapes everything outside printable ASCII (space to ~), UTF-16 unit by unit.
    else if (code < 0x20 || code > 0x7e) out += '\\u' + code.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

function encodeNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return String(value);
}

function encode(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return escapeString(value);
    case 'number':
      return encodeNumber(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      break;
  }
  if (Array.isArray(value)) {
    return '[' + value.map((item) => encode(item) ?? 'null').join(', ') + ']';
  }
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const encoded = encode(item);
    if (encoded !== undefined) parts.push(`${escapeString(key)}: ${encoded}`);
  }
  return '{' + parts.join(', ') + '}';
}

/** Serialises like Python's json.dumps with its defaults. */
export function pyJsonDumps(value: unknown): string {
  return encode(value) ?? 'null';
}
