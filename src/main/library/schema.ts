// The library's tables in the shared store (migrations of module 'library'). One row per output
// file of a job; the file itself may be shared by several rows when two jobs produced the same
// bytes (same sha256, same path). Full-text search is an FTS5 index over the row's text fields,
// kept in step by triggers, so no code path can forget to update it.
export const LIBRARY_MODULE = 'library';

/** Ids per block of library_id_blocks: 2^10. */
export const ID_BLOCK_BITS = 10;

// The FTS5 index is "external content": it stores only the index, and reads the text from
// library_items; these triggers keep it in step with every insert, delete and text update.
const FTS_TRIGGERS = `
   CREATE TRIGGER library_items_ai AFTER INSERT ON library_items BEGIN
     INSERT INTO library_fts (rowid, workflow_name, prompt_text, node_class, file_name, input_text)
     VALUES (new.id, new.workflow_name, new.prompt_text, new.node_class, new.file_name, new.input_text);
   END;
   CREATE TRIGGER library_items_ad AFTER DELETE ON library_items BEGIN
     INSERT INTO library_fts (library_fts, rowid, workflow_name, prompt_text, node_class, file_name, input_text)
     VALUES ('delete', old.id, old.workflow_name, old.prompt_text, old.node_class, old.file_name, old.input_text);
   END;
   CREATE TRIGGER library_items_au AFTER UPDATE OF workflow_name, prompt_text, node_class, file_name, input_text ON library_items BEGIN
     INSERT INTO library_fts (library_fts, rowid, workflow_name, prompt_text, node_class, file_name, input_text)
     VALUES ('delete', old.id, old.workflow_name, old.prompt_text, old.node_class, old.file_name, old.input_text);
     INSERT INTO library_fts (rowid, workflow_name, prompt_text, node_class, file_name, input_text)
     VALUES (new.id, new.workflow_name, new.prompt_text, new.node_class, new.file_name, new.input_text);
   END;`;

/** The indexed columns: the first ones, then with the hot-folder input file (last migration). */
const FIRST_COLUMNS = ['workflow_name', 'prompt_text', 'node_class', 'file_name', 'input_text'] as const;
const SOURCE_COLUMNS = [...FIRST_COLUMNS, 'source_file'] as const;

/** The triggers of FTS_TRIGGERS over `columns` (earlier migrations keep their own text). */
function ftsTriggers(columns: readonly string[]): string {
  const list = columns.join(', ');
  const olds = columns.map((c) => `old.${c}`).join(', ');
  const news = columns.map((c) => `new.${c}`).join(', ');
  return `
   CREATE TRIGGER library_items_ai AFTER INSERT ON library_items BEGIN
     INSERT INTO library_fts (rowid, ${list}) VALUES (new.id, ${news});
   END;
   CREATE TRIGGER library_items_ad AFTER DELETE ON library_items BEGIN
     INSERT INTO library_fts (library_fts, rowid, ${list}) VALUES ('delete', old.id, ${olds});
   END;
   CREATE TRIGGER library_items_au AFTER UPDATE OF ${list} ON library_items BEGIN
     INSERT INTO library_fts (library_fts, rowid, ${list}) VALUES ('delete', old.id, ${olds});
     INSERT INTO library_fts (rowid, ${list}) VALUES (new.id, ${news});
   END;`;
}

/** The triggers that add the terms of `columns` to library_terms on insert and text update. */
function termTriggers(columns: readonly string[]): string {
  // One tokenizer call per row: the columns joined by a space (a separator, like a column break).
  const text = (row: string): string => columns.map((c) => `COALESCE(${row}.${c}, '')`).join(" || ' ' || ");
  return `
   CREATE TRIGGER library_items_terms_ai AFTER INSERT ON library_items BEGIN
     INSERT OR IGNORE INTO library_terms (term) SELECT token FROM library_tokenizer WHERE input = ${text('new')};
   END;
   CREATE TRIGGER library_items_terms_au AFTER UPDATE OF ${columns.join(', ')} ON library_items BEGIN
     INSERT OR IGNORE INTO library_terms (term) SELECT token FROM library_tokenizer WHERE input = ${text('new')};
   END;`;
}

function ftsTable(options: string, columns: readonly string[] = FIRST_COLUMNS): string {
  return `CREATE VIRTUAL TABLE library_fts USING fts5(
     ${columns.join(', ')},
     content = 'library_items', content_rowid = 'id',
     tokenize = 'unicode61 remove_diacritics 2'${options}
   );`;
}

export const LIBRARY_MIGRATIONS: readonly string[] = [
  `CREATE TABLE library_items (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     prompt_id TEXT NOT NULL,
     profile_id TEXT,
     server_kind TEXT NOT NULL,
     base_url TEXT NOT NULL,
     workflow TEXT,
     workflow_name TEXT,
     node_id TEXT NOT NULL,
     node_class TEXT,
     output_key TEXT NOT NULL,
     file_name TEXT NOT NULL,
     file_subfolder TEXT NOT NULL,
     file_type TEXT NOT NULL,
     media_kind TEXT NOT NULL,
     mime TEXT,
     size INTEGER,
     width INTEGER,
     height INTEGER,
     duration_ms INTEGER,
     sha256 TEXT,
     path TEXT,
     inputs TEXT NOT NULL DEFAULT '{}',
     input_text TEXT NOT NULL DEFAULT '',
     prompt_text TEXT NOT NULL DEFAULT '',
     created_at INTEGER NOT NULL,
     recorded_at INTEGER NOT NULL,
     completed_at INTEGER,
     status TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     last_error TEXT,
     retry_at INTEGER,
     UNIQUE (base_url, prompt_id, file_type, file_subfolder, file_name)
   );
   CREATE INDEX library_items_created ON library_items (created_at DESC, id DESC);
   CREATE INDEX library_items_kind_created ON library_items (media_kind, created_at DESC, id DESC);
   CREATE INDEX library_items_workflow ON library_items (workflow_name COLLATE NOCASE, created_at DESC);
   CREATE INDEX library_items_prompt ON library_items (prompt_id);
   CREATE INDEX library_items_sha ON library_items (sha256) WHERE sha256 IS NOT NULL;
   CREATE INDEX library_items_unfinished ON library_items (status) WHERE status != 'done';

   ${ftsTable('')}
   ${FTS_TRIGGERS}`,
  // The library folder a file was written to. The folder is a setting (and FLOWDECK_LIBRARY_DIR can
  // point one run elsewhere), so each row remembers its own; rows written before have NULL and
  // live in the current folder.
  `ALTER TABLE library_items ADD COLUMN root TEXT;`,
  // Search speed. Prefix indexes for 2 and 3 characters: every search word is a prefix query
  // ("light*"), and a short prefix otherwise merges the doclists of every term it covers at query
  // time. And id blocks, which bound the search of a date range (see below).
  `DROP TRIGGER library_items_ai;
   DROP TRIGGER library_items_ad;
   DROP TRIGGER library_items_au;
   DROP TABLE library_fts;
   ${ftsTable(",\n     prefix = '2 3'")}
   ${FTS_TRIGGERS}
   INSERT INTO library_fts (library_fts) VALUES ('rebuild');

   -- The span of creation times within each block of 1024 ids. A search with a date range walks
   -- the FTS index only between the first and last block that can hold such rows (ids follow
   -- recording order, which is nearly, but not exactly, creation order; the spans make the bound
   -- exact). Deleting rows never narrows a span, which keeps it a safe over-estimate.
   CREATE TABLE library_id_blocks (
     block INTEGER PRIMARY KEY,
     min_created INTEGER NOT NULL,
     max_created INTEGER NOT NULL
   );
   CREATE TRIGGER library_items_block AFTER INSERT ON library_items BEGIN
     INSERT INTO library_id_blocks (block, min_created, max_created) VALUES (new.id >> ${ID_BLOCK_BITS}, new.created_at, new.created_at)
     ON CONFLICT (block) DO UPDATE SET min_created = MIN(min_created, excluded.min_created), max_created = MAX(max_created, excluded.max_created);
   END;
   CREATE TRIGGER library_items_block_created AFTER UPDATE OF created_at ON library_items BEGIN
     UPDATE library_id_blocks SET min_created = MIN(min_created, new.created_at), max_created = MAX(max_created, new.created_at) WHERE block = new.id >> ${ID_BLOCK_BITS};
   END;
   INSERT INTO library_id_blocks (block, min_created, max_created)
     SELECT id >> ${ID_BLOCK_BITS}, MIN(created_at), MAX(created_at) FROM library_items GROUP BY id >> ${ID_BLOCK_BITS};`,
  // Outputs of a hot folder remember the input file they were made from (their provenance).
  `ALTER TABLE library_items ADD COLUMN source_file TEXT;`,
  // Search finds hot-folder outputs by their input file's name: source_file joins the index.
  `DROP TRIGGER library_items_ai;
   DROP TRIGGER library_items_ad;
   DROP TRIGGER library_items_au;
   DROP TABLE library_fts;
   ${ftsTable(",\n     prefix = '2 3'", SOURCE_COLUMNS)}
   ${ftsTriggers(SOURCE_COLUMNS)}
   INSERT INTO library_fts (library_fts) VALUES ('rebuild');`,
  // Every term of the search index, for prefix searches. FTS5 answers a prefix longer than its
  // prefix indexes (2 and 3 characters) by merging the whole doclist of every matching term in
  // memory before it yields a row: "masterpiece"* in a million items is ~25 ms whatever the LIMIT.
  // With the terms listed, the search asks for ("masterpiece" OR "masterpieces" ...) instead,
  // which FTS5 walks lazily, newest first, and stops at the page's end. New rows add their terms
  // through the FTS3 tokenizer table, which splits and folds text exactly as FTS5's unicode61
  // does (tests/library/search-terms.test.ts compares the two over every code point); terms are
  // never removed (a term no row has any more only matches nothing). The rows that were there
  // before take their terms from the index itself, in the background after the first screen
  // (terms-fill.ts, the next migration): at a million items that read takes seconds.
  `CREATE VIRTUAL TABLE library_tokenizer USING fts3tokenize('unicode61', 'remove_diacritics=2');
   CREATE TABLE library_terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
   ${termTriggers(SOURCE_COLUMNS)}`,
  // How far the background fill of library_terms from the index has got (terms-fill.ts): a row
  // while terms of older rows may be missing, holding the last index term listed ('' at first); no
  // row once every term is listed. A library with no rows has nothing to fill. Nor has one whose
  // terms are already listed: the first version of the migration above filled them at once, and
  // otherwise nothing can insert between that migration and this one (they run in one open).
  `CREATE TABLE library_terms_fill (id INTEGER PRIMARY KEY CHECK (id = 1), after TEXT NOT NULL);
   INSERT INTO library_terms_fill (id, after) SELECT 1, ''
     WHERE EXISTS (SELECT 1 FROM library_items) AND NOT EXISTS (SELECT 1 FROM library_terms);`,
];
