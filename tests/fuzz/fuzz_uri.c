/*
 * fuzz_uri.c - fuzz target: the dbprint:// URI parser and the resource
 * reads behind it (server/resources/resources.c res_read) over the fixtures/rich
 * project, the input being the URI.  An answer is an object with a
 * contents array; a refusal is -32602 or -32603 with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srv *s;
	cJSON *result = NULL;
	char *uri, *detail = NULL, *text;
	int code = 0, rc;

	s = fuzz_srv("rich");
	uri = fuzz_strndup(data, size);
	rc = res_read(s, uri, &result, &code, &detail);
	if (rc == 0) {
		if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(result,
		    "contents"))) {
			fprintf(stderr, "fuzz_uri: no contents for %s\n", uri);
			abort();
		}
		/* The reply is dumped as a frame would be. */
		text = dbp_json_dump(result, DBP_JSON_COMPACT);
		free(text);
	} else if ((code != -32602 && code != -32603) || detail == NULL) {
		fprintf(stderr, "fuzz_uri: bad refusal %d for %s\n", code, uri);
		abort();
	}
	cJSON_Delete(result);
	free(detail);
	free(uri);
	return 0;
}
