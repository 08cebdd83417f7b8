-- schema.sql - the dbprint index, one SQLite file per connection.
--
-- This file is the only place the schema is written.  The build compiles it
-- into the binaries (sql/schema.c is generated from it); PRAGMA user_version
-- carries SCHEMA_VERSION below, and an index of any other version is rebuilt
-- from scratch.  man/dbprint-index.5 documents every table and column.
--
-- Conventions:
--   * Paths are relative to the connection's print root, '/'-separated.
--   * A column holding JSON holds compact JSON whose numbers are spelled as
--     the YAML file spells them (as Python's json.dumps would print the
--     value PyYAML's safe_load makes of it).
--   * fqn is the dotted table name, the key of manifest.yaml's tables map.
--   * Booleans are 0/1; NULL means "the print does not say".
--
-- SCHEMA_VERSION 12

-- Facts about the index itself: key/value text.
--   schema_version   SCHEMA_VERSION above
--   connection       the connection name
--   print_root       absolute path of the print root when indexed
--   print_version    the sum, modulo 2^128 (32 hex digits), of XXH3-128 over
--                    each files row's path, a tab, its hash (else its
--                    status) and a newline: a run moves it by the rows it
--                    writes
--   indexed_at       UTC time of the last run that changed anything (ISO 8601)
--   tool_version     version of the dbprint-index that wrote it
--   tables, columns  row counts of tables and columns after that run
CREATE TABLE meta (
	key	TEXT PRIMARY KEY,
	value	TEXT
) WITHOUT ROWID;

-- Every print file the index knows: the connection-level files, and each
-- declared artifact of every manifest entry, present or not.
CREATE TABLE files (
	path		TEXT PRIMARY KEY,	-- relative to the print root
	kind		TEXT NOT NULL,		-- manifest, manifest_annotations, diff,
						-- reading, ddl, statistics, relationships,
						-- description, statistics_annotations,
						-- relationships_annotations
	table_fqn	TEXT,			-- owning table; NULL for connection files
	dev		INTEGER,		-- st_dev; NULL while absent
	ino		INTEGER,		-- st_ino
	size		INTEGER,		-- st_size in bytes
	mtime_ns	INTEGER,		-- st_mtim in nanoseconds
	hash		TEXT,			-- XXH3-128 of the bytes, 32 hex digits
	status		TEXT NOT NULL,		-- ok, absent, parse_error, shape_error,
						-- schema_error, outside_root, too_large,
						-- unreadable
	error		TEXT,			-- the exact message the tools report;
						-- NULL when status is ok
	doc		TEXT			-- parsed YAML as JSON; NULL for
						-- statistics.yaml (its facts are the
						-- tables, columns and column_values
						-- rows; dbprint-serve reads the file
						-- itself, checked against hash), text
						-- files and failed parses.
						-- manifest.yaml's holds its tables
						-- member as {}: each entry is its
						-- tables row's entry
);
CREATE INDEX files_by_table ON files(table_fqn);
-- The identity of every file, read at the start of each run without
-- touching the documents (a covering index), and the files with an error.
CREATE INDEX files_identity ON files(path, dev, ino, size, mtime_ns, hash,
    status);
CREATE INDEX files_with_error ON files(path) WHERE error IS NOT NULL;

-- One row per manifest.yaml tables entry (walkable or not).
CREATE TABLE tables (
	fqn		TEXT PRIMARY KEY,
	ord		INTEGER NOT NULL,	-- position in the manifest's tables map
	walkable	INTEGER NOT NULL,	-- entry is a mapping with a string (or no) path
	followable	INTEGER NOT NULL,	-- walkable, and its directory and declared
						-- files stay inside the print root (SPEC 2.5)
	type		TEXT,			-- table, view, materialized_view, ... as written
	dir		TEXT,			-- directory relative to the print root
	row_count	INTEGER,		-- the manifest entry's row_count
	columns		INTEGER,		-- the manifest entry's columns count
	profiled_at	TEXT,			-- as written (JSON spelling of the value)
	max_age_days	TEXT,			-- as written (JSON spelling), NULL if absent
	entry		TEXT NOT NULL,		-- the whole entry as JSON
	-- From the table's statistics.yaml (NULL when absent or unreadable):
	stats_status	TEXT,			-- ok, undeclared, absent, parse_error, ...
	stats_row_count	INTEGER,		-- statistics.yaml row_count
	scoped		INTEGER,		-- file carries scope or a rows_scanned echo
	scope		TEXT,			-- the scope block as JSON ({} when scoping
						-- comes only from column echoes)
	rows_scanned	INTEGER,		-- scope.rows_scanned, else the first echo
	catalog_only	INTEGER,		-- SPEC 2.2.15 catalog-only marker present
	disabled	TEXT,			-- SPEC 2.2.21 disabled list as JSON
	-- From statistics.annotations.yaml:
	annot_status	TEXT			-- ok, undeclared, absent, parse_error,
						-- schema_error
);

-- list_tables: the walkable FQNs in order (a page is a range and an OFFSET
-- of it, read from the index alone), and the few unwalkable rows counted
-- apart from the b-tree's own count of all rows.
CREATE INDEX tables_walkable ON tables(walkable, fqn);

-- manifest.yaml failed_tables, in file order (string entries only).
CREATE TABLE failed_tables (
	ord	INTEGER PRIMARY KEY,
	fqn	TEXT NOT NULL
);

-- Declared artifacts of every walkable entry.
CREATE TABLE artifacts (
	table_fqn	TEXT NOT NULL,
	kind		TEXT NOT NULL,		-- ddl, statistics, relationships,
						-- description, statistics_annotations,
						-- relationships_annotations
	file		TEXT NOT NULL,		-- the declared file name
	path		TEXT,			-- relative path; NULL when it escapes the root
	PRIMARY KEY (table_fqn, kind)
) WITHOUT ROWID;

-- Columns, and each column's parts (SPEC 2.2.18), of every readable table.
-- A column known only through statistics.annotations.yaml has in_stats 0;
-- such rows exist only when the statistics give no columns mapping (not
-- declared, absent, unreadable, or without `columns`), since an annotation
-- key the statistics do not list is stale (research 3.2).
-- The inferred fields, redacted and values_coverage are read through the
-- column's `unmeasured` list: a field it names is NULL.
CREATE TABLE columns (
	id		INTEGER PRIMARY KEY,
	table_fqn	TEXT NOT NULL,
	name		TEXT NOT NULL,		-- the column name
	part		TEXT NOT NULL DEFAULT '',	-- '' for the column, else the part path
	label		TEXT NOT NULL,		-- name || part, what search_columns globs
	ord		INTEGER NOT NULL,	-- position in the file (parts: within column)
	in_stats	INTEGER NOT NULL,
	sql_type	TEXT,
	nullable	INTEGER,
	null_rate	TEXT,			-- JSON spelling
	classification	TEXT,
	cardinality	INTEGER,
	cardinality_method TEXT,
	values_coverage	TEXT,			-- JSON spelling; NULL when absent
	values_state	TEXT,			-- listed, unmeasured, absent, redacted
	listed		INTEGER,		-- entries in the values list
	freq_listed	INTEGER,		-- frequencies.listed
	complete	INTEGER,		-- list is the whole domain over the rows read
	sensitivity	TEXT,			-- inferred.sensitivity
	looks_like	TEXT,			-- inferred.looks_like
	sampled		INTEGER,		-- inferred.sampled
	matched		INTEGER,		-- inferred.matched
	candidate_key	INTEGER,		-- inferred.candidate_key (0/1), NULL unknown
	candidate_key_exception TEXT,		-- JSON
	redacted	TEXT,			-- drop, hash, mask
	derived_from	TEXT,			-- JSON: the annotation's, else the parsed
						-- one, as [{"table":..,"column":..}]
						-- (a mapping, a list, or a
						-- "table.column" string normalised)
	note		TEXT,			-- statistics.annotations.yaml note
	occurrences	INTEGER,		-- parts only
	rows_scanned	INTEGER,		-- the column's rows_scanned echo
	block		TEXT,			-- always NULL since schema 2: the block is
						-- the table's statistics.yaml
						-- (columns.<name>, or its
						-- parts.<part>); storing it twice
						-- doubled the index
	UNIQUE (table_fqn, name, part)
);
CREATE INDEX columns_by_sensitivity ON columns(sensitivity) WHERE sensitivity IS NOT NULL;
CREATE INDEX columns_by_looks_like ON columns(looks_like) WHERE looks_like IS NOT NULL;
CREATE INDEX columns_by_redacted ON columns(redacted) WHERE redacted IS NOT NULL;
CREATE INDEX columns_by_classification ON columns(classification);
CREATE INDEX columns_by_sql_type ON columns(sql_type);

-- The values list of every column and part, in file order.
CREATE TABLE column_values (
	column_id	INTEGER NOT NULL REFERENCES columns(id),
	ord		INTEGER NOT NULL,
	value		TEXT NOT NULL,		-- JSON of the value ('null' for NULL or
						-- an entry without a value)
	text		TEXT,			-- Python str() of the value; NULL for null
	fold		TEXT,			-- normalization key: text trimmed of ASCII
						-- spaces, lower-cased (SPEC 2.2.4)
	count		INTEGER,
	spelling_of	TEXT,			-- JSON, when the entry carries one
	note		TEXT,			-- values[].note from the annotations
	PRIMARY KEY (column_id, ord)
) WITHOUT ROWID;
-- A lookup by fold (resolve_value's stored match) reads a list's first 32
-- rows through the primary key and the rest through this index, which so
-- holds 57,000 rows of the 2.3 million of a 10,000-table print: the full
-- index cost a full build ~2 CPU-s of 22.  32 is DBP_FOLD_SCAN.
CREATE INDEX column_values_by_fold ON column_values(column_id, fold)
    WHERE ord >= 32;

-- Character trigrams of the folded values of long lists, for resolve_value's
-- nearest match (lists shorter than the threshold are scored directly): one
-- row per trigram of a column, holding the posting list of the values whose
-- "  " || fold || "  " contains it.  postings is, for each such value in ord
-- order, two unsigned LEB128 varints (7 bits a byte, low first, the high bit
-- set on every byte but the last): the ord's distance from the previous
-- entry's ord (the first entry: the ord itself), then the number of
-- distinct trigrams of the value.  So the Jaccard similarity of a text with
-- every value sharing a trigram comes from the text's rows alone.
CREATE TABLE value_trigrams (
	column_id	INTEGER NOT NULL,
	trigram		TEXT NOT NULL,
	postings	BLOB NOT NULL,
	PRIMARY KEY (column_id, trigram)
) WITHOUT ROWID;

-- Per-value notes of statistics.annotations.yaml (values[]), in file order.
CREATE TABLE value_notes (
	table_fqn	TEXT NOT NULL,
	name		TEXT NOT NULL,		-- column name
	ord		INTEGER NOT NULL,
	value		TEXT NOT NULL,		-- JSON of the value
	text		TEXT NOT NULL,		-- Python str() of the value
	note		TEXT NOT NULL,		-- whitespace collapsed
	PRIMARY KEY (table_fqn, name, ord)
) WITHOUT ROWID;

-- search_columns reads what a page shows, through these:
--   columns_walk    the columns in answer order (table, column, the column
--                   before its parts, file order) with every field a filter
--                   tests, so a page walks index entries alone;
--   columns_non_ascii, value_notes_non_ascii
--                   rows whose text holds a character outside ASCII (or a
--                   NUL), where the trigram index's case folding is not
--                   Python's casefold: their text is tested apart;
--   tables_unreadable, tables_disabled, tables_catalog_only
--                   the few tables its first page lists or a filter skips.
CREATE INDEX columns_walk ON columns(table_fqn, name, part <> '', ord, part,
    candidate_key, sensitivity, looks_like, redacted, classification,
    sql_type);
CREATE INDEX columns_non_ascii ON columns(table_fqn)
    WHERE length(CAST(label AS BLOB)) > length(label)
    OR length(CAST(note AS BLOB)) > length(note);
CREATE INDEX value_notes_non_ascii ON value_notes(table_fqn, name)
    WHERE length(CAST(note AS BLOB)) > length(note);
CREATE INDEX tables_unreadable ON tables(fqn)
    WHERE stats_status = 'parse_error' OR stats_status = 'too_large'
    OR stats_status = 'unreadable' OR annot_status = 'parse_error'
    OR annot_status = 'schema_error' OR annot_status = 'too_large'
    OR annot_status = 'unreadable';
CREATE INDEX tables_disabled ON tables(fqn) WHERE disabled IS NOT NULL;
CREATE INDEX tables_catalog_only ON tables(fqn) WHERE catalog_only = 1;

-- Relationship edges: what relationships.yaml emits, and what a human added
-- or rejected in relationships.annotations.yaml.  Stored once, from the file
-- that states them; the views below give each table its edges both ways.
CREATE TABLE edges (
	id		INTEGER PRIMARY KEY,
	source		TEXT NOT NULL,		-- emitted (relationships.yaml) or
						-- annotated (relationships.annotations.yaml)
	file_table	TEXT NOT NULL,		-- table whose file states the edge
	direction	TEXT NOT NULL,		-- refers_to or referenced_by, as in the file
	ord		INTEGER NOT NULL,	-- position within its list in the file
	from_table	TEXT NOT NULL,		-- referencing table
	from_columns	TEXT NOT NULL,		-- JSON array
	to_table	TEXT NOT NULL,		-- referenced table
	to_columns	TEXT NOT NULL,		-- JSON array
	path		TEXT,			-- JSON path of a path-valued referencing end
	target_path	TEXT,			-- JSON path of a path-valued referenced end
	detection	TEXT,			-- declared, inferred, measured; annotated
	verdict		TEXT,			-- annotations: rejected, or NULL (added/note)
	note		TEXT,
	edge		TEXT NOT NULL		-- the whole entry as JSON
);
CREATE INDEX edges_from ON edges(from_table);
CREATE INDEX edges_to ON edges(to_table);
CREATE INDEX edges_by_file ON edges(file_table);	-- re-indexing one table

-- diff.yaml's changes list, one row per event (a mapping) in file order, so
-- get_diff pages it from the rows a page shows.  ord counts the events
-- alone (0, 1, ...: an entry that is not a mapping is never an event and
-- has no row), kind_ord the events of one kind, so a page of either is
-- reached by key and a count is one lookup; the three names are the
-- event's own fields when strings.
CREATE TABLE changes (
	ord		INTEGER PRIMARY KEY,	-- position among the events
	kind		TEXT,			-- the event's kind
	kind_ord	INTEGER,		-- position among the events of that
						-- kind (0, 1, ...); NULL with kind
	table_fqn	TEXT,			-- its table
	source_table	TEXT,			-- a relationship event's two ends
	target_table	TEXT,
	entry		TEXT NOT NULL		-- the whole event as JSON
);
CREATE INDEX changes_by_kind ON changes(kind, kind_ord);
CREATE INDEX changes_by_table ON changes(table_fqn)
    WHERE table_fqn IS NOT NULL;
CREATE INDEX changes_by_source ON changes(source_table)
    WHERE source_table IS NOT NULL;
CREATE INDEX changes_by_target ON changes(target_table)
    WHERE target_table IS NOT NULL;

-- manifest.annotations.yaml notes, in file order.
CREATE TABLE connection_notes (
	ord	INTEGER PRIMARY KEY,
	note	TEXT NOT NULL
);

-- search_columns' text index: for every trigram of printable ASCII (no
-- newline) in a column's lower-cased search text - its name, note and value
-- notes joined by newlines; a part's label - the columns holding it and the
-- byte offsets where it starts, so a substring is found exactly from a few
-- lists (indexer/compile/grams.c).  postings: per column, in increasing id,
-- varint(id - previous id) then each offset as varint(delta << 1 | more).
-- Built whole by a full run; a run that changes a table lists it in
-- column_grams_dirty (its current columns are tested by the reader) and the
-- ids its columns had in the lists in column_grams_stale, until the dirty
-- tables hold more than 1,000 columns and the lists are built again.
CREATE TABLE column_grams (
	gram		TEXT PRIMARY KEY,	-- three characters
	postings	BLOB NOT NULL
);
CREATE TABLE column_grams_dirty (
	table_fqn	TEXT PRIMARY KEY
) WITHOUT ROWID;
CREATE TABLE column_grams_stale (
	id		INTEGER PRIMARY KEY	-- a columns.id no longer current
);

-- The text search_columns' `text` matches, one row per column or part: a
-- column's name, note and the notes of its values (newline-joined); a
-- part's label.  column_grams is built from it; for an ad hoc search,
-- e.g. WHERE text LIKE '%refund%' (LIKE folds ASCII case only).
CREATE VIEW column_search AS
	SELECT c.id, c.table_fqn, c.name, c.part, c.label,
	    CASE WHEN c.part <> '' THEN c.label ELSE c.name ||
	    coalesce(char(10) || c.note, '') || coalesce(char(10) ||
	    (SELECT group_concat(v.note, char(10)) FROM value_notes v
	    WHERE v.table_fqn = c.table_fqn AND v.name = c.name), '') END
	    AS text
	FROM columns c;

-- Every per-file failure, as the tools report it.  files.error is set
-- exactly when a file has a problem: an absent file only when something
-- declared it (an absent diff.yaml, reading.md or undeclared
-- manifest.annotations.yaml is no error).
CREATE VIEW errors AS
	SELECT path, kind, table_fqn, status, error FROM files
	WHERE error IS NOT NULL;

-- Columns with their table, for ad hoc reading.
CREATE VIEW column_facts AS
	SELECT c.table_fqn AS table_fqn, c.name AS column_name, c.part AS part,
	    c.sql_type, c.classification, c.nullable, c.null_rate,
	    c.sensitivity, c.looks_like, c.redacted, c.candidate_key, c.note,
	    t.type AS table_type, t.row_count AS row_count, t.scoped AS scoped
	FROM columns c JOIN tables t ON t.fqn = c.table_fqn;
