/*
 * stubs.c - weak placeholders for the tool bodies and the resource hooks,
 * so dbprint-serve links while those land one by one.  Each strong
 * definition (server/tool_*.c, server/resources.c) replaces its
 * placeholder at link time; a placeholder still linked answers with an
 * error saying so, never with a made-up result.  Delete this file once
 * every tool and resources.c are in.
 */
#include <stdlib.h>
#include <string.h>

#include "server.h"

#define STUB_TOOL(fn)							\
	int fn(struct call *c) __attribute__((weak));			\
	int								\
	fn(struct call *c)						\
	{								\
		return call_fail(c, "%s is not implemented in this build", \
		    c->tool);						\
	}

STUB_TOOL(tool_get_table_context)
STUB_TOOL(tool_list_tables)
STUB_TOOL(tool_search_columns)
STUB_TOOL(tool_resolve_value)
STUB_TOOL(tool_get_manifest)
STUB_TOOL(tool_get_diff)
STUB_TOOL(tool_get_reference)

static int
stub_res(cJSON **result, int *code, char **detail)
{
	*result = NULL;
	*code = -32603;
	*detail = strdup("resources are not implemented in this build");
	return -1;
}

int	res_list(struct srv *, const char *, int, cJSON **, int *, char **)
	    __attribute__((weak));
int	res_templates(struct srv *, int, cJSON **, int *, char **)
	    __attribute__((weak));
int	res_read(struct srv *, const char *, cJSON **, int *, char **)
	    __attribute__((weak));

int
res_list(struct srv *s, const char *cursor, int titles, cJSON **result,
    int *code, char **detail)
{
	(void)s;
	(void)cursor;
	(void)titles;
	return stub_res(result, code, detail);
}

int
res_templates(struct srv *s, int titles, cJSON **result, int *code,
    char **detail)
{
	(void)s;
	(void)titles;
	return stub_res(result, code, detail);
}

int
res_read(struct srv *s, const char *uri, cJSON **result, int *code,
    char **detail)
{
	(void)s;
	(void)uri;
	return stub_res(result, code, detail);
}
