/*
 * fuzz_ydoc.c - fuzz target: the YAML loader (indexer/text/ydoc.c) on any
 * bytes, then every printer of the tree it returns: dbp_json_dump in both
 * spellings, dbp_pyrepr, and dbp_yaml_dump, whose text must load back to
 * the same JSON (the emitter and the loader agree); and the indexer's
 * arena loader (dbp_ydoc_parse_arena), which must give the same tree or
 * the same refusal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "compile/ix.h"

/* The arena loader on the same bytes agrees with dbp_ydoc_parse: json is
 * its tree's compact JSON, or NULL when it refused with message msg. */
static void
arena_agrees(const uint8_t *data, size_t size, const char *json,
    const char *msg)
{
	struct dbp_arena a;
	struct dbp_diag d;
	cJSON *doc;
	char *j;

	memset(&a, 0, sizeof(a));
	d.msg[0] = '\0';
	doc = dbp_ydoc_parse_arena((const char *)data, size, &a, &d);
	if (doc == NULL) {
		if (a.chunks != NULL || (json != NULL && msg == NULL) ||
		    (msg != NULL && strcmp(msg, d.msg) != 0)) {
			fprintf(stderr, "fuzz_ydoc: arena refusal differs: "
			    "%s\n", d.msg);
			abort();
		}
		return;
	}
	j = dbp_json_dump(doc, DBP_JSON_COMPACT);
	if (msg != NULL || (j != NULL && json != NULL && strcmp(j, json) != 0)) {
		fprintf(stderr, "fuzz_ydoc: arena tree differs:\n%s\n%s\n",
		    json != NULL ? json : msg, j != NULL ? j : "?");
		abort();
	}
	free(j);
	if (a.chunks != NULL)
		dbp_arena_free(&a);
	else
		cJSON_Delete(doc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dbp_diag d;
	cJSON *doc, *back;
	char *json, *pretty, *repr, *yaml, *json2;

	d.msg[0] = '\0';
	doc = dbp_ydoc_parse((const char *)data, size, &d);
	if (doc == NULL) {
		/* A refusal always says why. */
		if (d.msg[0] == '\0')
			abort();
		arena_agrees(data, size, NULL, d.msg);
		return 0;
	}
	json = dbp_json_dump(doc, DBP_JSON_COMPACT);
	arena_agrees(data, size, json, NULL);
	pretty = dbp_json_dump(doc, 2);
	repr = dbp_pyrepr(doc);
	yaml = dbp_yaml_dump(doc);
	if (yaml != NULL && json != NULL) {
		back = dbp_ydoc_parse(yaml, strlen(yaml), &d);
		if (back == NULL) {
			fprintf(stderr, "fuzz_ydoc: dump does not load: %s\n"
			    "%s\n", d.msg, yaml);
			abort();
		}
		json2 = dbp_json_dump(back, DBP_JSON_COMPACT);
		if (json2 != NULL && strcmp(json, json2) != 0) {
			fprintf(stderr, "fuzz_ydoc: round trip differs:\n"
			    "%s\n%s\n", json, json2);
			abort();
		}
		free(json2);
		cJSON_Delete(back);
	}
	free(json);
	free(pretty);
	free(repr);
	free(yaml);
	cJSON_Delete(doc);
	return 0;
}
