/*
 * fuzz_rpc.c - fuzz target: the JSON-RPC frame handler (server/proto/rpc.c,
 * mcp.c and everything a method reaches) over the fixtures/rich project,
 * indexed in memory.  The input's first byte picks how the rest is used:
 *
 *   0  the whole frame, as a client would send it
 *   1  tools/call: the second byte picks the tool, the rest is the
 *      arguments' JSON text
 *   2  a method of the second byte's choice, the rest its params' JSON
 *   3  like 1, under the 2026-07-28 era (_meta with version and
 *      capabilities)
 *
 * Every frame gets a fresh session.  A reply, when there is one, must be
 * JSON an rpc client can parse, with "jsonrpc": "2.0".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static const char *const fr_methods[] = {
	"initialize", "ping", "tools/list", "tools/call", "resources/list",
	"resources/read", "resources/templates/list", "prompts/list",
	"server/discover", "notifications/initialized", "completion/complete",
	"logging/setLevel",
};
#define FR_NMETHODS	(sizeof(fr_methods) / sizeof(fr_methods[0]))

/* Check a reply frame: one JSON object with jsonrpc "2.0". */
static void
fr_check(const char *reply)
{
	cJSON *r, *v;

	if ((r = cJSON_Parse(reply)) == NULL) {
		fprintf(stderr, "fuzz_rpc: reply is not JSON: %.400s\n", reply);
		abort();
	}
	v = cJSON_GetObjectItemCaseSensitive(cJSON_IsArray(r) ?
	    cJSON_GetArrayItem(r, 0) : r, "jsonrpc");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, "2.0") != 0) {
		fprintf(stderr, "fuzz_rpc: no jsonrpc 2.0: %.400s\n", reply);
		abort();
	}
	if (strchr(reply, '\n') != NULL) {
		fprintf(stderr, "fuzz_rpc: newline in a frame\n");
		abort();
	}
	cJSON_Delete(r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srv *s;
	struct rpc_session ss;
	struct dbp_buf b;
	char *reply = NULL;
	int mode;

	s = fuzz_srv("rich");
	if (size < 2)
		return 0;
	mode = data[0] % 4;
	dbp_buf_init(&b, DBP_MAX_FRAME * 2);
	switch (mode) {
	case 0:
		dbp_buf_add(&b, data + 1, size - 1);
		break;
	case 1:
	case 3:
		dbp_buf_addf(&b, "{\"jsonrpc\":\"2.0\",\"id\":7,"
		    "\"method\":\"tools/call\",\"params\":{%s\"name\":\"%s\","
		    "\"arguments\":", mode == 3 ? "\"_meta\":{"
		    "\"io.modelcontextprotocol/protocolVersion\":"
		    "\"" SRV_PROTO_MODERN "\",\"io.modelcontextprotocol/"
		    "clientCapabilities\":{}}," : "",
		    srv_tools[data[1] % srv_ntools].name);
		dbp_buf_add(&b, data + 2, size - 2);
		dbp_buf_adds(&b, "}}");
		break;
	default:
		dbp_buf_addf(&b, "{\"jsonrpc\":\"2.0\",\"id\":\"x\","
		    "\"method\":\"%s\",\"params\":",
		    fr_methods[data[1] % FR_NMETHODS]);
		dbp_buf_add(&b, data + 2, size - 2);
		dbp_buf_adds(&b, "}");
		break;
	}
	if (b.failed || b.ptr == NULL) {
		dbp_buf_release(&b);
		return 0;
	}
	memset(&ss, 0, sizeof(ss));
	rpc_handle(s, &ss, b.ptr, b.len, &reply);
	if (reply != NULL)
		fr_check(reply);
	free(reply);
	dbp_buf_release(&b);
	return 0;
}
