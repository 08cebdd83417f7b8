/*
 * mcp.c - the MCP methods of dbprint-serve, for both protocol eras in one
 * process (see research/peers.md section 5):
 *
 *   legacy (2024-11-05 .. 2025-11-25): initialize negotiates a revision
 *     for the session, then ping, the tools, resources and prompts methods;
 *   modern (2026-07-28): no handshake; every request carries its
 *     revision and client capabilities in params._meta, server/discover
 *     describes the server, and every result carries resultType and the
 *     server's identity in _meta, list and read results cache hints.
 *
 * tools/call faults are results with isError true (spec 8.2), never
 * protocol errors; protocol errors are for the envelope, unknown
 * methods, and resources (spec 8.1).
 */
#define _POSIX_C_SOURCE	200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

#define MCP_METHOD_NOT_FOUND	(-32601)
#define MCP_INVALID_PARAMS	(-32602)
#define MCP_INTERNAL		(-32603)
#define MCP_UNSUPPORTED_VERSION	(-32022)

#define MCP_META_VERSION	"io.modelcontextprotocol/protocolVersion"
#define MCP_META_CAPS		"io.modelcontextprotocol/clientCapabilities"
#define MCP_META_SERVER		"io.modelcontextprotocol/serverInfo"

/* How long a client may cache a result (2026-07-28 ttlMs): the tool set
 * and templates never change while the process runs; the resource list
 * and contents follow the print, so they are never cached. */
#define MCP_TTL_STATIC_MS	3600000
#define MCP_TTL_PRINT_MS	0

/* Every revision served, newest first: the modern one, then legacy. */
static const char *const mcp_versions[] = {
	SRV_PROTO_MODERN, "2025-11-25", "2025-06-18", "2025-03-26",
	"2024-11-05",
};
#define MCP_NVERSIONS	(sizeof(mcp_versions) / sizeof(mcp_versions[0]))

/*
 * The instructions every client receives (spec 2): routing first, every
 * tool named with its task, then how to read an answer.  Under 2,048
 * characters, the length at which Claude Code truncates them.
 */
static const char mcp_instructions[] =
    "Answers questions about a database from its committed dbprint "
    "print: the schema and per-column statistics measured offline. Go "
    "through these tools, not the print's files: a file opened directly "
    "lacks the scope, redaction and unmeasured handling the tools "
    "apply.\n"
    "\n"
    "Tool routing:\n"
    "- Before writing SQL: get_table_context with purpose: query for each "
    "table the query reads - DDL, joins, column meanings, value lists.\n"
    "- The exact stored spelling of a filter value: resolve_value; put "
    "every spelling it returns in the predicate.\n"
    "- Which table or column holds a fact, by name, type, shape (email, "
    "phone), sensitivity or note text: search_columns.\n"
    "- Which tables exist, their row counts, whether their statistics "
    "are stale: list_tables with detail: true.\n"
    "- What changed since the previous run: get_diff.\n"
    "- What a field or a finding's spec_ref means: get_reference; how to "
    "read json/yaml fields: get_reference with document: guide.\n"
    "- The manifest as written: get_manifest.\n"
    "\n"
    "Reading an answer:\n"
    "- Scope: a table with a scope block was read in part (a sample or a "
    "row filter); its figures describe the rows scanned, not the whole "
    "table. Only plain counts under a sample may be scaled by row_count "
    "/ rows_scanned, roughly; distinct counts, ratios, bounds, "
    "percentiles, sums and means never scale.\n"
    "- Guesses: fields under inferred, and relationships detected as "
    "inferred or measured, are dbprint's guesses, not database "
    "constraints. No sensitivity on a column means nothing was "
    "detected, not that it is safe to publish.\n"
    "- Absence: a missing field is not zero; a field in an unmeasured "
    "list is unknown this run, not none.\n"
    "- Meaning: the print says which values the data holds, not what its "
    "codes, units or defaults mean; where no note explains them, say so "
    "instead of guessing.";

/* The request's revision and era, from _meta or the session. */
struct mcp_req {
	const char	*version;
	int		 modern;
};

static int
mcp_fail(int c, const char *m, int *code, char **msg)
{
	*code = c;
	*msg = strdup(m);
	return -1;
}

static int
mcp_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* 1 when v is one of the served revisions. */
static int
mcp_known(const char *v)
{
	size_t i;

	for (i = 0; i < MCP_NVERSIONS; i++)
		if (strcmp(mcp_versions[i], v) == 0)
			return 1;
	return 0;
}

/* Title fields exist from 2025-06-18 on (the dates sort as strings). */
static int
mcp_titles(const struct mcp_req *r)
{
	return strcmp(r->version, "2025-06-18") >= 0;
}

static cJSON *
mcp_server_info(void)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", "dbprint");
	cJSON_AddStringToObject(o, "version", DBP_VERSION);
	return o;
}

static cJSON *
mcp_capabilities(void)
{
	cJSON *c = cJSON_CreateObject(), *r, *t;

	r = cJSON_AddObjectToObject(c, "resources");
	cJSON_AddFalseToObject(r, "subscribe");
	cJSON_AddFalseToObject(r, "listChanged");
	t = cJSON_AddObjectToObject(c, "tools");
	cJSON_AddFalseToObject(t, "listChanged");
	return c;
}

/* Decide the request's era from params._meta and the session. */
static int
mcp_era(struct rpc_session *ss, const cJSON *params, struct mcp_req *r,
    int *code, char **msg, cJSON **data)
{
	const cJSON *meta, *v, *caps;
	cJSON *sup;
	size_t i;

	meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	v = cJSON_IsObject(meta) ?
	    cJSON_GetObjectItemCaseSensitive(meta, MCP_META_VERSION) : NULL;
	if (v == NULL) {
		r->version = ss->version[0] != '\0' ? ss->version :
		    SRV_PROTO_LEGACY_NEWEST;
		r->modern = 0;
		return 0;
	}
	if (!cJSON_IsString(v) || !mcp_known(v->valuestring)) {
		*code = MCP_UNSUPPORTED_VERSION;
		*msg = strdup("Unsupported protocol version");
		*data = cJSON_CreateObject();
		sup = cJSON_AddArrayToObject(*data, "supported");
		for (i = 0; i < MCP_NVERSIONS; i++)
			cJSON_AddItemToArray(sup,
			    cJSON_CreateString(mcp_versions[i]));
		srv_json_put(*data, "requested",
		    cJSON_Duplicate(v, 1));
		return -1;
	}
	r->version = v->valuestring;
	r->modern = strcmp(v->valuestring, SRV_PROTO_MODERN) == 0;
	if (r->modern) {
		caps = cJSON_GetObjectItemCaseSensitive(meta, MCP_META_CAPS);
		if (!cJSON_IsObject(caps))
			return mcp_fail(MCP_INVALID_PARAMS, "Invalid params: "
			    "_meta must carry " MCP_META_CAPS " (an object) "
			    "beside " MCP_META_VERSION, code, msg);
	}
	return 0;
}

/* The 2026-07-28 decorations: resultType, serverInfo, cache hints. */
static void
mcp_decorate(const struct mcp_req *r, cJSON *result, int ttl)
{
	cJSON *meta;

	if (!r->modern || result == NULL)
		return;
	cJSON_AddStringToObject(result, "resultType", "complete");
	if (ttl >= 0) {
		cJSON_AddNumberToObject(result, "ttlMs", ttl);
		cJSON_AddStringToObject(result, "cacheScope", "private");
	}
	meta = cJSON_GetObjectItemCaseSensitive(result, "_meta");
	if (!cJSON_IsObject(meta))
		meta = cJSON_AddObjectToObject(result, "_meta");
	srv_json_put(meta, MCP_META_SERVER, mcp_server_info());
}

static int
mcp_initialize(struct rpc_session *ss, const cJSON *params, cJSON **result)
{
	const cJSON *pv;
	const char *v = SRV_PROTO_LEGACY_NEWEST;
	cJSON *o;

	pv = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	if (cJSON_IsString(pv) && mcp_known(pv->valuestring) &&
	    strcmp(pv->valuestring, SRV_PROTO_MODERN) != 0)
		v = pv->valuestring;
	snprintf(ss->version, sizeof(ss->version), "%s", v);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "protocolVersion", ss->version);
	srv_json_put(o, "capabilities", mcp_capabilities());
	srv_json_put(o, "serverInfo", mcp_server_info());
	cJSON_AddStringToObject(o, "instructions", mcp_instructions);
	*result = o;
	return 0;
}

static int
mcp_discover(cJSON **result)
{
	cJSON *o, *sup;
	size_t i;

	o = cJSON_CreateObject();
	sup = cJSON_AddArrayToObject(o, "supportedVersions");
	for (i = 0; i < MCP_NVERSIONS; i++)
		cJSON_AddItemToArray(sup, cJSON_CreateString(mcp_versions[i]));
	srv_json_put(o, "capabilities", mcp_capabilities());
	cJSON_AddStringToObject(o, "instructions", mcp_instructions);
	*result = o;
	return 0;
}

/* The cursor param of a list method: NULL when absent. */
static int
mcp_cursor(const cJSON *params, const char **cursor, int *code, char **msg)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(params, "cursor");

	*cursor = NULL;
	if (c == NULL || cJSON_IsNull(c))
		return 0;
	if (!cJSON_IsString(c))
		return mcp_fail(MCP_INVALID_PARAMS,
		    "Invalid params: cursor must be a string", code, msg);
	*cursor = c->valuestring;
	return 0;
}

static int
mcp_tools_list(const struct mcp_req *r, const cJSON *params,
    cJSON **result, int *code, char **msg)
{
	const char *cursor;
	cJSON *tools, *t, *an;
	size_t i;
	int rc;

	if (mcp_cursor(params, &cursor, code, msg) != 0)
		return -1;
	tools = cJSON_CreateArray();
	for (i = 0; i < srv_ntools; i++) {
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", srv_tools[i].name);
		if (mcp_titles(r))
			cJSON_AddStringToObject(t, "title", srv_tools[i].title);
		cJSON_AddStringToObject(t, "description",
		    srv_tools[i].description);
		srv_json_put(t, "inputSchema",
		    cJSON_Duplicate(tools_schema(i), 1));
		an = cJSON_AddObjectToObject(t, "annotations");
		cJSON_AddTrueToObject(an, "readOnlyHint");
		cJSON_AddFalseToObject(an, "destructiveHint");
		cJSON_AddTrueToObject(an, "idempotentHint");
		cJSON_AddFalseToObject(an, "openWorldHint");
		cJSON_AddItemToArray(tools, t);
	}
	rc = page_proto("tools/list", tools, "tools", cursor, NULL, result,
	    msg);
	cJSON_Delete(tools);
	if (rc != 0)
		*code = MCP_INVALID_PARAMS;
	return rc;
}

void
mcp_tools_call(struct srv *s, const char *name, const cJSON *args,
    char **text, int *is_error)
{
	struct call c;
	struct dbp_buf b;
	const char **names;
	const cJSON *cn, *cur;
	cJSON *a = NULL;
	char *detail = NULL, *list;
	size_t i;
	int ti, rc;

	memset(&c, 0, sizeof(c));
	*text = NULL;
	*is_error = 1;
	ti = tools_find(name);
	if (ti < 0) {
		names = calloc(srv_ntools + 1, sizeof(*names));
		for (i = 0; names != NULL && i < srv_ntools; i++)
			names[i] = srv_tools[i].name;
		if (names != NULL)
			qsort(names, srv_ntools, sizeof(*names), mcp_cmp);
		list = names != NULL ? srv_repr_list(names, srv_ntools) : NULL;
		free(names);
		detail = dbp_pyrepr_str(name);
		dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
		dbp_buf_addf(&b, "unknown tool %s. Available: %s",
		    detail != NULL ? detail : "?", list != NULL ? list : "[]");
		free(detail);
		free(list);
		*text = dbp_buf_take(&b);
		return;
	}
	a = args != NULL ? cJSON_Duplicate(args, 1) : cJSON_CreateObject();
	if (a == NULL) {
		*text = strdup("out of memory");
		return;
	}
	if (args_check((size_t)ti, a, &detail) != 0) {
		*text = detail;
		cJSON_Delete(a);
		return;
	}
	c.srv = s;
	c.tool = srv_tools[ti].name;
	c.args = a;
	cur = cJSON_GetObjectItemCaseSensitive(a, "cursor");
	c.cursor = cJSON_IsString(cur) ? cur->valuestring : NULL;
	if (call_args_digest(a, c.args_digest) != 0) {
		*text = strdup("out of memory");
		cJSON_Delete(a);
		return;
	}
	if (srv_tools[ti].takes_connection) {
		cn = cJSON_GetObjectItemCaseSensitive(a, "connection");
		if (srv_resolve_conn(s, cJSON_IsString(cn) ? cn->valuestring :
		    NULL, &c.conn, &detail) != 0) {
			*text = detail;
			cJSON_Delete(a);
			return;
		}
	}
	if (c.conn != NULL)
		srv_read_begin(c.conn);
	rc = srv_tools[ti].body(&c);
	if (rc != 0 || c.is_error) {
		*is_error = 1;
		*text = c.text != NULL ? c.text :
		    strdup("the tool failed without saying why");
	} else {
		*is_error = 0;
		*text = c.text != NULL ? c.text : strdup("");
	}
	c.text = NULL;
	call_release(&c);	/* its kept statements first */
	if (c.conn != NULL)
		srv_read_end(c.conn);
	cJSON_Delete(a);
}

static int
mcp_call(struct srv *s, const struct mcp_req *r, const cJSON *params,
    cJSON **result, int *code, char **msg)
{
	const cJSON *name, *args;
	struct dbp_diag d;
	cJSON *o, *content, *item;
	char *text;
	int is_error;

	(void)r;
	name = cJSON_GetObjectItemCaseSensitive(params, "name");
	if (!cJSON_IsString(name))
		return mcp_fail(MCP_INVALID_PARAMS, "Invalid params: "
		    "tools/call needs name, a string", code, msg);
	args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	if (cJSON_IsNull(args))
		args = NULL;
	d.msg[0] = '\0';
	if (srv_index_recheck(s, &d) != 0) {
		text = strdup(d.msg);
		is_error = 1;
	} else
		mcp_tools_call(s, name->valuestring, args, &text, &is_error);
	o = cJSON_CreateObject();
	content = cJSON_AddArrayToObject(o, "content");
	item = cJSON_CreateObject();
	cJSON_AddStringToObject(item, "type", "text");
	cJSON_AddStringToObject(item, "text", text != NULL ? text :
	    "out of memory");
	cJSON_AddItemToArray(content, item);
	cJSON_AddBoolToObject(o, "isError", is_error);
	free(text);
	*result = o;
	return 0;
}

static int
mcp_resources(struct srv *s, const struct mcp_req *r, const char *method,
    const cJSON *params, cJSON **result, int *code, char **msg)
{
	const cJSON *uri;
	const char *cursor;
	struct dbp_diag d;

	*code = MCP_INTERNAL;
	d.msg[0] = '\0';
	if (strcmp(method, "resources/templates/list") != 0 &&
	    srv_index_recheck(s, &d) != 0)
		return mcp_fail(MCP_INTERNAL, d.msg, code, msg);
	if (strcmp(method, "resources/list") == 0) {
		if (mcp_cursor(params, &cursor, code, msg) != 0)
			return -1;
		return res_list(s, cursor, mcp_titles(r), result, code, msg);
	}
	if (strcmp(method, "resources/templates/list") == 0)
		return res_templates(s, mcp_titles(r), result, code, msg);
	uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
	if (!cJSON_IsString(uri))
		return mcp_fail(MCP_INVALID_PARAMS, "Invalid params: "
		    "resources/read needs uri, a string", code, msg);
	return res_read(s, uri->valuestring, result, code, msg);
}

int
mcp_dispatch(struct srv *s, struct rpc_session *ss, const char *method,
    const cJSON *params, cJSON **result, int *code, char **msg,
    cJSON **data)
{
	struct mcp_req r;
	int rc, ttl = -1;

	*result = NULL;
	*msg = NULL;
	*data = NULL;
	if (strcmp(method, "initialize") == 0)
		return mcp_initialize(ss, params, result);
	if (mcp_era(ss, params, &r, code, msg, data) != 0)
		return -1;
	if (strcmp(method, "server/discover") == 0) {
		r.modern = 1;
		rc = mcp_discover(result);
		ttl = MCP_TTL_STATIC_MS;
	} else if (strcmp(method, "ping") == 0) {
		*result = cJSON_CreateObject();
		rc = 0;
	} else if (strcmp(method, "tools/list") == 0) {
		rc = mcp_tools_list(&r, params, result, code, msg);
		ttl = MCP_TTL_STATIC_MS;
	} else if (strcmp(method, "tools/call") == 0) {
		rc = mcp_call(s, &r, params, result, code, msg);
	} else if (strcmp(method, "prompts/list") == 0) {
		*result = cJSON_CreateObject();
		cJSON_AddArrayToObject(*result, "prompts");
		rc = 0;
		ttl = MCP_TTL_STATIC_MS;
	} else if (strcmp(method, "resources/list") == 0 ||
	    strcmp(method, "resources/read") == 0) {
		rc = mcp_resources(s, &r, method, params, result, code, msg);
		ttl = MCP_TTL_PRINT_MS;
	} else if (strcmp(method, "resources/templates/list") == 0) {
		rc = mcp_resources(s, &r, method, params, result, code, msg);
		ttl = MCP_TTL_STATIC_MS;
	} else {
		rc = -1;
		*code = MCP_METHOD_NOT_FOUND;
		*msg = strdup("Method not found");
	}
	if (rc == 0)
		mcp_decorate(&r, *result, ttl);
	return rc;
}
