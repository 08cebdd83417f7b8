/*
 * tool_diff.c - get_diff (MCP spec 4.5): the parsed diff.yaml as JSON,
 * from the index's parsed copy of the file.
 *
 * Relationship events about an edge a human rejected are withheld first
 * (reject.c), with summary.relationships_changed lowered to match; then
 * the table and kind filters (ANDed) narrow changes, which is paged in
 * file order with total.  Every other key rides the first page whole, in
 * file order.
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"

/* reject.c's pin callback: refresh and record a consulted file. */
static int
diff_pin(void *ctx, const char *path)
{
	return call_pin1(ctx, path);
}

/* 1 when event e names table: as table, source_table or target_table. */
static int
diff_names(const cJSON *e, const char *table)
{
	static const char *const keys[] = {
		"table", "source_table", "target_table"
	};
	const cJSON *v;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = cJSON_GetObjectItemCaseSensitive(e, keys[i]);
		if (cJSON_IsString(v) && strcmp(v->valuestring, table) == 0)
			return 1;
	}
	return 0;
}

/* The diff.yaml document, or the spec 8.2 failure.  0 with *doc set
 * (cJSON_Delete it), -1 with the call failed. */
static int
diff_doc(struct call *c, cJSON **doc)
{
	struct srv_file f;
	struct dbp_diag d;
	int rc;

	*doc = NULL;
	rc = srv_file_get(c->conn, "diff.yaml", &f, &d);
	if (rc == -1)
		return call_fail(c, "%s", d.msg);
	if (rc == 1 || strcmp(f.status, "absent") == 0) {
		srv_file_release(&f);
		/* The spec's sentence, without upstream's backticks. */
		return call_fail(c, "no diff available at %s/diff.yaml. Run "
		    "dbprint diff or dbprint generate first.",
		    c->conn->conf->print_root);
	}
	if (f.doc == NULL) {
		rc = call_fail(c, "%s", f.error != NULL ? f.error :
		    "diff.yaml could not be read");
		srv_file_release(&f);
		return rc;
	}
	*doc = srv_json_parse(f.doc, strlen(f.doc));
	srv_file_release(&f);
	if (*doc == NULL)
		return call_fail(c, "diff.yaml: the index holds an unreadable "
		    "copy; run dbprint-index --full");
	return 0;
}

int
tool_get_diff(struct call *c)
{
	static const char *const pins[] = { "diff.yaml", "manifest.yaml" };
	struct page_list l;
	struct dbp_diag d;
	struct rej r;
	const cJSON *a, *k;
	cJSON *changes = NULL, *e, *next;
	const char *table = NULL, *kind = NULL;
	cJSON *doc = NULL, *head = NULL, *list = NULL, *empty;
	size_t pos, dropped;
	int rc = -1;

	a = cJSON_GetObjectItemCaseSensitive(c->args, "table");
	if (cJSON_IsString(a))
		table = a->valuestring;
	a = cJSON_GetObjectItemCaseSensitive(c->args, "kind");
	if (cJSON_IsString(a))
		kind = a->valuestring;
	if (call_pin(c, pins, 2) == -1)
		return -1;
	if (diff_doc(c, &doc) == -1)
		return -1;
	if (!cJSON_IsObject(doc)) {
		/* A diff that is not a mapping answers the empty object. */
		if (call_position(c, &pos) == -1)
			goto out;
		if ((empty = cJSON_CreateObject()) == NULL)
			goto oom;
		rc = call_reply_json(c, empty);
		cJSON_Delete(empty);
		goto out;
	}
	rej_init(&r, c->conn, diff_pin, c);
	rc = rej_diff(&r, doc, &dropped, &d);
	rej_release(&r);
	if (rc == -1) {
		if (c->text == NULL)
			call_fail(c, "%s", d.msg);
		goto out;
	}
	rc = -1;
	if (call_position(c, &pos) == -1)
		goto out;
	if ((head = cJSON_CreateObject()) == NULL ||
	    (list = cJSON_CreateArray()) == NULL)
		goto oom;
	for (e = doc->child; e != NULL; e = e->next) {
		if (strcmp(e->string, "changes") == 0)
			changes = e;
		else
			srv_json_put(head, e->string,
			    cJSON_Duplicate(e, 1));
	}
	if (!cJSON_IsArray(changes))
		changes = NULL;
	/* the events move from the document to the list (a copy doubled
	 * the memory of a 100,000-event diff) */
	for (e = changes != NULL ? changes->child : NULL; e != NULL;
	    e = next) {
		next = e->next;
		if (!cJSON_IsObject(e))
			continue;	/* never an event */
		k = cJSON_GetObjectItemCaseSensitive(e, "kind");
		if (kind != NULL && (!cJSON_IsString(k) ||
		    strcmp(k->valuestring, kind) != 0))
			continue;
		if (table != NULL && !diff_names(e, table))
			continue;
		cJSON_AddItemToArray(list, cJSON_DetachItemViaPointer(changes,
		    e));
	}
	memset(&l, 0, sizeof(l));
	l.head = head;
	l.key[0] = "changes";
	l.items[0] = list;
	l.empty_on_first[0] = 1;
	rc = page_list(c, &l, pos);
	goto out;
oom:
	rc = call_fail(c, "out of memory");
out:
	cJSON_Delete(list);
	cJSON_Delete(head);
	cJSON_Delete(doc);
	return rc;
}
