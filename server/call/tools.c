/*
 * tools.c - the tool table of dbprint-serve: the seven tools in the order
 * of the spec (section 4), their titles, their descriptions, and their
 * inputSchemas exactly as the spec states them (section 4, normative).
 *
 * Each description stands alone, since some clients never show the
 * server's instructions: it says which task the tool answers, when to
 * prefer it, and which sibling answers the neighbouring task.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

/* The inputSchemas, compact JSON, copied from MCP-SERVER.md section 4. */
static const char schema_get_table_context[] =
	"{\"type\":\"object\",\"additionalProperties\":false,\"properties"
	"\":{\"table\":{\"type\":\"string\",\"minLength\":1,\"description"
	"\":\"Dotted fully-qualified table name, as list_tables and searc"
	"h_columns return it\"},\"connection\":{\"type\":\"string\",\"des"
	"cription\":\"Which database to read, by connection name; needed "
	"only when the server serves several, and the error for a missing"
	" one lists them. Omit it for the server's default\"},\"purpose\""
	":{\"type\":\"string\",\"enum\":[\"profile\",\"query\"],\"default"
	"\":\"profile\",\"description\":\"query before writing SQL: DDL, "
	"the Joins list, data dictionary and the value lists with counts "
	"and coverage, and each nullable column's null share, with no oth"
	"er statistics. profile (default) to describe the data: statistic"
	"s, relationships, notes\"},\"format\":{\"type\":\"string\",\"enu"
	"m\":[\"md\",\"json\",\"yaml\"],\"default\":\"md\",\"description"
	"\":\"md renders the chosen purpose as Markdown - under `profile`"
	", a per-column Notes summary rather than the raw statistics fiel"
	"ds json and yaml carry. All three omit each column's sketch (a h"
	"ashed summary of its distinct values); the table's raw statistic"
	"s file, sketch included, is the dbprint://<connection>/<table>/s"
	"tatistics resource. get_reference document: guide explains each "
	"json/yaml field.\"},\"include_stats\":{\"type\":\"boolean\",\"de"
	"fault\":true,\"description\":\"Include the Cardinality table (md"
	") or statistics object (json/yaml); no effect under `query`, whi"
	"ch carries neither\"},\"include_relationships\":{\"type\":\"bool"
	"ean\",\"default\":true,\"description\":\"Include the Relationshi"
	"ps section (md) or relationships object (json/yaml); under `quer"
	"y`, the Joins list\"},\"include_description\":{\"type\":\"boolea"
	"n\",\"default\":true,\"description\":\"Include the table's prose"
	" description, when one was written\"},\"include_annotations\":{"
	"\"type\":\"boolean\",\"default\":true,\"description\":\"Include "
	"the notes and claims people wrote on its columns and values, and"
	" notes that apply to the whole database, when written\"},\"curso"
	"r\":{\"type\":\"string\",\"minLength\":1,\"description\":\"`next"
	"_cursor` from this call's previous page; omit for the first page"
	"\"}},\"required\":[\"table\"]}";

static const char schema_list_tables[] =
	"{\"type\":\"object\",\"additionalProperties\":false,\"properties"
	"\":{\"connection\":{\"type\":\"string\",\"description\":\"Which "
	"database to read, by connection name; needed only when the serve"
	"r serves several, and the error for a missing one lists them. Om"
	"it it for the server's default\"},\"pattern\":{\"type\":\"string"
	"\",\"minLength\":1,\"description\":\"fnmatch glob over dotted ta"
	"ble names, e.g. 'sales.*'; defaults to '*'\"},\"detail\":{\"type"
	"\":\"boolean\",\"default\":false,\"description\":\"Project each "
	"entry's type/row_count/columns/profiled_at from the print's inde"
	"x plus its freshness verdict; false returns bare FQN strings, un"
	"changed\"},\"cursor\":{\"type\":\"string\",\"minLength\":1,\"des"
	"cription\":\"`next_cursor` from this call's previous page; omit "
	"for the first page\"}}}";

static const char schema_search_columns[] =
	"{\"type\":\"object\",\"additionalProperties\":false,\"properties"
	"\":{\"pattern\":{\"type\":\"string\",\"minLength\":1,\"descripti"
	"on\":\"fnmatch glob over column names, and over a part as `<colu"
	"mn><path>` (`items[*].sku`); optional - omit to filter by the ot"
	"her predicates alone\"},\"classification\":{\"type\":\"string\","
	"\"description\":\"fnmatch glob against the column's classificati"
	"on (binary, boolean, categorical, composite, foreign_key_candida"
	"te, json, numeric, spatial, temporal, text, unsupported, vector)"
	"\"},\"sql_type\":{\"type\":\"string\",\"description\":\"fnmatch "
	"glob against the column's sql_type\"},\"sensitivity\":{\"type\":"
	"\"string\",\"description\":\"fnmatch glob against inferred.sensi"
	"tivity (contact, credential, date_of_birth, demographic, employm"
	"ent, financial_account, geolocation, health, national_id, online"
	"_identifier, personal_name, postal_address) - a glob of '*' swee"
	"ps every column carrying any detection. A detection, never a ver"
	"dict; its absence on a column is not an assertion that the colum"
	"n is safe\"},\"looks_like\":{\"type\":\"string\",\"description\""
	":\"fnmatch glob against inferred.looks_like (base64, bic, card_n"
	"umber, content_type, country_code, currency_code, ean, email, fi"
	"lename, gif, gzip, hex, iban, imei, ip, isbn, iso8601_date, iso8"
	"601_datetime, iso8601_duration, jpeg, json, jwt, latlon, mac_add"
	"ress, numeric_string, path, pdf, phone, png, postal_code, prose,"
	" semver, timezone, url, urn, uuid, vin, zip)\"},\"redacted\":{\""
	"type\":\"string\",\"description\":\"fnmatch glob against the col"
	"umn's redacted marker (drop, hash, mask)\"},\"candidate_key\":{"
	"\"type\":\"boolean\",\"description\":\"Exact match against infer"
	"red.candidate_key\"},\"text\":{\"type\":\"string\",\"minLength\""
	":1,\"description\":\"Case-insensitive substring matched against "
	"the column name, the note people wrote on it and its per-value n"
	"otes - words, not meaning. A match found through per-value notes"
	" carries them as `value_notes`\"},\"connection\":{\"type\":\"str"
	"ing\",\"description\":\"Which database to read, by connection na"
	"me; needed only when the server serves several, and the error fo"
	"r a missing one lists them. Omit it for the server's default\"},"
	"\"cursor\":{\"type\":\"string\",\"minLength\":1,\"description\":"
	"\"`next_cursor` from this call's previous page; omit for the fir"
	"st page\"}}}";

static const char schema_resolve_value[] =
	"{\"type\":\"object\",\"additionalProperties\":false,\"properties"
	"\":{\"table\":{\"type\":\"string\",\"minLength\":1,\"description"
	"\":\"Fully-qualified table name\"},\"column\":{\"type\":\"string"
	"\",\"minLength\":1,\"description\":\"Column name as the print sp"
	"ells it\"},\"part\":{\"type\":\"string\",\"minLength\":1,\"descr"
	"iption\":\"A part of the column, by its path as the print keys i"
	"t (`.status`, `[*]`); omit it to resolve against the column itse"
	"lf\"},\"text\":{\"type\":\"string\",\"minLength\":1,\"descriptio"
	"n\":\"The phrase, code or spelling from the question, as written"
	"\"},\"connection\":{\"type\":\"string\",\"description\":\"Which "
	"database to read, by connection name; needed only when the serve"
	"r serves several, and the error for a missing one lists them. Om"
	"it it for the server's default\"},\"cursor\":{\"type\":\"string"
	"\",\"minLength\":1,\"description\":\"`next_cursor` from this cal"
	"l's previous page; omit for the first page\"}},\"required\":[\"t"
	"able\",\"column\",\"text\"]}";

static const char schema_get_manifest[] =
	"{\"type\":\"object\",\"additionalProperties\":false,\"properties"
	"\":{\"connection\":{\"type\":\"string\",\"description\":\"Which "
	"database to read, by connection name; needed only when the serve"
	"r serves several, and the error for a missing one lists them. Om"
	"it it for the server's default\"},\"pattern\":{\"type\":\"string"
	"\",\"minLength\":1,\"description\":\"fnmatch glob over the FQN k"
	"eys of `tables`, the same spelling `list_tables` takes; filters "
	"that map and `failed_tables` only\"},\"cursor\":{\"type\":\"stri"
	"ng\",\"minLength\":1,\"description\":\"`next_cursor` from this c"
	"all's previous page; omit for the first page\"}}}";

static const char schema_get_diff[] =
	"{\"type\":\"object\",\"additionalProperties\":false,\"properties"
	"\":{\"connection\":{\"type\":\"string\",\"description\":\"Which "
	"database to read, by connection name; needed only when the serve"
	"r serves several, and the error for a missing one lists them. Om"
	"it it for the server's default\"},\"table\":{\"type\":\"string\""
	",\"minLength\":1,\"description\":\"Keep only changes naming this"
	" fully-qualified table, including the relationship events that n"
	"ame it as source or target\"},\"kind\":{\"type\":\"string\",\"en"
	"um\":[\"table_added\",\"table_removed\",\"table_type_changed\","
	"\"external_changed\",\"column_added\",\"column_removed\",\"colum"
	"n_type_changed\",\"column_nullable_changed\",\"column_default_ch"
	"anged\",\"column_physical_name_changed\",\"column_collation_chan"
	"ged\",\"statistic_changed\",\"table_row_count_changed\",\"grain_"
	"changed\",\"physical_layout_changed\",\"merging_changed\",\"depe"
	"nds_on_changed\",\"relationship_added\",\"relationship_removed\""
	",\"relationship_modified\",\"index_added\",\"index_removed\",\"i"
	"ndex_modified\",\"comment_changed\"],\"description\":\"Keep only"
	" changes of this kind\"},\"cursor\":{\"type\":\"string\",\"minLe"
	"ngth\":1,\"description\":\"`next_cursor` from this call's previo"
	"us page; omit for the first page\"}}}";

static const char schema_get_reference[] =
	"{\"type\":\"object\",\"additionalProperties\":false,\"properties"
	"\":{\"document\":{\"type\":\"string\",\"enum\":[\"assertions\","
	"\"guide\",\"spec\"],\"description\":\"Which document - the forma"
	"t spec, the assertion DSL, or the reading guide (how to read eac"
	"h json/yaml field)\"},\"section\":{\"type\":\"string\",\"minLeng"
	"th\":1,\"description\":\"A section number in the document's own "
	"scheme (e.g. '3', '2.2.4'), or a spec_ref citation copied verbat"
	"im from a finding ('\\u00a72.2.4', 'ASSERTIONS.md \\u00a71.4') -"
	" any heading depth. Omit for the table of contents. For guide, a"
	" heading's text (e.g. 'Vocabulary'), matched case-insensitively."
	"\"},\"cursor\":{\"type\":\"string\",\"minLength\":1,\"descriptio"
	"n\":\"`next_cursor` from this call's previous page; omit for the"
	" first page\"}},\"required\":[\"document\"]}";

#define TOOL_DESC_CONTEXT \
	"Everything needed to work with one table, assembled for a prompt. " \
	"Call it with purpose: \"query\" before writing SQL against a " \
	"table: its DDL, the join paths to other tables, what each column " \
	"means, and the literal values a filter can use, with counts and " \
	"coverage. With purpose: \"profile\" (the default) it describes the " \
	"data instead: per-column statistics, relationships and the notes " \
	"people wrote. Prefer it to opening the print's files, which carry " \
	"none of this interpretation. To find the table first use " \
	"search_columns or list_tables; to pin the stored spelling of one " \
	"filter value use resolve_value; for what changed since the " \
	"previous run use get_diff. A long context is paged: pass " \
	"next_cursor back as cursor."

#define TOOL_DESC_LIST \
	"Lists the tables a connection's print holds, sorted by name, " \
	"optionally narrowed by a glob over the dotted names ('sales.*'). " \
	"With detail: true every entry also carries its type, row count, " \
	"column count, when it was profiled, and whether its statistics are " \
	"live, stale or dormant against the configured max_age_days. Use it " \
	"to learn which tables exist, how big they are, or how fresh their " \
	"statistics are. To find a table by what its columns hold use " \
	"search_columns; to read one table use get_table_context; for the " \
	"manifest as written use get_manifest. Paged: pass next_cursor back " \
	"as cursor."

#define TOOL_DESC_SEARCH \
	"Finds columns across every table of the print: the first call when " \
	"you do not yet know which table holds a fact. Filters, each usable " \
	"alone and ANDed together: pattern (a glob over column names; a " \
	"part of a JSON column reads as column plus path), text (words, " \
	"case-insensitive, in the column name, its note or its value " \
	"notes), globs over classification, sql_type, sensitivity, " \
	"looks_like and redacted, and candidate_key. Each match names its " \
	"table and column with the type, classification and what was " \
	"detected about it; a filter that matches nothing returns no " \
	"matches, not an error. Next, read the tables it found with " \
	"get_table_context, or pin a filter literal with resolve_value; for " \
	"table names alone use list_tables. Paged: pass next_cursor back as " \
	"cursor."

#define TOOL_DESC_RESOLVE \
	"Turns a phrase, code or spelling from a question into the exact " \
	"value or values one column stores, from the column's published " \
	"value list, its counts and the notes people wrote on values. Read " \
	"it before writing a literal into a WHERE clause. The reply says " \
	"how the text matched (stored, definition, nearest, none, or " \
	"unavailable with the reason), lists every stored spelling of it - " \
	"use them all in the predicate - and says whether the list is the " \
	"column's whole domain (exhaustive, coverage); a small complete list " \
	"comes back whole as domain. match: none is an answer, not a " \
	"failure. To find the column first use search_columns; for every " \
	"value list of a table at once use get_table_context with purpose: " \
	"\"query\". Paged: pass next_cursor back as cursor."

#define TOOL_DESC_MANIFEST \
	"Returns a connection's manifest.yaml as JSON: the index of the " \
	"print, with every table's path, type, row count, profiling time " \
	"and declared artifacts, the run's header fields, and the tables " \
	"the last run could not profile. An optional glob narrows the " \
	"tables map. It indexes the print; it does not explain the data. " \
	"For table names, row counts and freshness, list_tables with " \
	"detail: true is the shorter answer; for what one table holds use " \
	"get_table_context. Paged: pass next_cursor back as cursor."

#define TOOL_DESC_DIFF \
	"Returns a connection's diff.yaml as JSON: what changed between " \
	"the last two generate runs - tables and columns added or removed, " \
	"type, nullability and default changes, statistics that drifted, " \
	"relationship and index changes. Narrow it to one table (relationship " \
	"events naming it at either end included) and to one kind of " \
	"change. Relationship events about an edge a person rejected are " \
	"left out. For a table's current state rather than its changes use " \
	"get_table_context; for which tables exist use list_tables. Paged: " \
	"pass next_cursor back as cursor."

#define TOOL_DESC_REFERENCE \
	"Reads the reference documents that ship with the server, " \
	"independent of any print or connection: the print format " \
	"specification (document: spec) and the assertion language " \
	"(document: assertions), addressed by section number or by a " \
	"spec_ref citation copied from a finding ('\u00a72.2.4', " \
	"'ASSERTIONS.md \u00a71.4'), and the reading guide (document: guide), " \
	"which explains every json/yaml field, addressed by heading text. " \
	"Without section it returns the document's table of contents. What " \
	"a particular table holds comes from get_table_context, and which " \
	"tables exist from list_tables. Paged: pass next_cursor back as " \
	"cursor."

const struct tool_def srv_tools[] = {
	{ "get_table_context", "Table context for SQL or profiling",
	    TOOL_DESC_CONTEXT, schema_get_table_context,
	    tool_get_table_context, 1 },
	{ "list_tables", "List tables and their freshness",
	    TOOL_DESC_LIST, schema_list_tables, tool_list_tables, 1 },
	{ "search_columns", "Search columns across tables",
	    TOOL_DESC_SEARCH, schema_search_columns, tool_search_columns, 1 },
	{ "resolve_value", "Resolve a filter value's stored spelling",
	    TOOL_DESC_RESOLVE, schema_resolve_value, tool_resolve_value, 1 },
	{ "get_manifest", "Read the manifest",
	    TOOL_DESC_MANIFEST, schema_get_manifest, tool_get_manifest, 1 },
	{ "get_diff", "What changed since the previous run",
	    TOOL_DESC_DIFF, schema_get_diff, tool_get_diff, 1 },
	{ "get_reference", "Read the format reference",
	    TOOL_DESC_REFERENCE, schema_get_reference, tool_get_reference, 0 },
};
const size_t srv_ntools = sizeof(srv_tools) / sizeof(srv_tools[0]);

/* Parsed once, on first use (under pthread_once: the HTTP transport
 * answers from several threads); kept for the life of the process. */
static cJSON *tools_parsed[sizeof(srv_tools) / sizeof(srv_tools[0])];
static pthread_once_t tools_once = PTHREAD_ONCE_INIT;

static void
tools_parse(void)
{
	size_t i;

	for (i = 0; i < srv_ntools; i++)
		tools_parsed[i] = cJSON_Parse(srv_tools[i].schema);
}

const cJSON *
tools_schema(size_t i)
{
	if (i >= srv_ntools)
		return NULL;
	pthread_once(&tools_once, tools_parse);
	return tools_parsed[i];
}

int
tools_find(const char *name)
{
	size_t i;

	for (i = 0; i < srv_ntools; i++)
		if (strcmp(srv_tools[i].name, name) == 0)
			return (int)i;
	return -1;
}
