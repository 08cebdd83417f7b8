/*
 * fuzz_cursor.c - fuzz target: the cursor decoder (server/call/call.c
 * call_position and page.c) through a tool call over the fixtures/rich
 * project.  The first byte picks the tool, called with fixed arguments
 * that page; then
 *
 *   second byte even: the rest is the cursor as sent;
 *   second byte odd:  the rest is XORed over a cursor the tool really
 *                     issued for these arguments (fetched once per tool),
 *                     so the mutations land near valid cursors.
 *
 * The call must answer: a page or an error detail, never nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static const char *const fc_args[] = {
	"{\"table\":\"depot.sales.orders\",\"purpose\":\"query\"}",
	"{\"detail\":true}",
	"{\"pattern\":\"*\"}",
	("{\"table\":\"depot.sales.orders\",\"column\":\"status\","
	    "\"text\":\"open\"}"),
	"{}",
	"{}",
	"{\"document\":\"spec\"}",
};
#define FC_NTOOLS	(sizeof(fc_args) / sizeof(fc_args[0]))

static char *fc_issued[FC_NTOOLS];	/* a real cursor, or "" */
static int fc_fetched[FC_NTOOLS];

/* The next_cursor in a page's text (JSON key or Markdown comment). */
static char *
fc_find_cursor(const char *text)
{
	const char *p, *q;
	const char *keys[] = { "\"next_cursor\": \"", "next_cursor: " };
	size_t i;

	for (i = 0; i < 2; i++) {
		if ((p = strstr(text, keys[i])) == NULL)
			continue;
		p += strlen(keys[i]);
		q = p + strcspn(p, "\" \n");
		return fuzz_strndup((const uint8_t *)p, (size_t)(q - p));
	}
	return fuzz_strndup((const uint8_t *)"", 0);
}

/* A cursor the tool issues for its fixed arguments ("" when one page). */
static const char *
fc_issued_cursor(struct srv *s, size_t t)
{
	cJSON *args;
	char *text = NULL;
	int is_error = 0;

	if (fc_fetched[t])
		return fc_issued[t];
	args = cJSON_Parse(fc_args[t]);
	mcp_tools_call(s, srv_tools[t].name, args, &text, &is_error);
	fc_issued[t] = fc_find_cursor(text != NULL ? text : "");
	fc_fetched[t] = 1;
	free(text);
	cJSON_Delete(args);
	return fc_issued[t];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srv *s;
	cJSON *args;
	const char *real;
	char *cursor, *text = NULL;
	size_t t, i, n;
	int is_error = 0;

	s = fuzz_srv("rich");
	if (size < 2 || srv_ntools < FC_NTOOLS)
		return 0;
	t = data[0] % FC_NTOOLS;
	if (data[1] & 1) {
		real = fc_issued_cursor(s, t);
		n = strlen(real);
		cursor = fuzz_strndup((const uint8_t *)real, n);
		for (i = 0; i < n && i < size - 2; i++)
			cursor[i] ^= (char)data[2 + i];
		if (size - 2 > n) {
			free(cursor);
			cursor = malloc(size - 2 + 1);
			if (cursor == NULL)
				abort();
			memcpy(cursor, real, n);
			for (i = 0; i < size - 2; i++)
				cursor[i] = (char)(i < n ? real[i] ^ data[2 + i]
				    : data[2 + i]);
			cursor[size - 2] = '\0';
		}
	} else
		cursor = fuzz_strndup(data + 2, size - 2);
	args = cJSON_Parse(fc_args[t]);
	if (args == NULL)
		abort();
	cJSON_AddStringToObject(args, "cursor", cursor);
	mcp_tools_call(s, srv_tools[t].name, args, &text, &is_error);
	if (text == NULL) {
		fprintf(stderr, "fuzz_cursor: no answer\n");
		abort();
	}
	free(text);
	cJSON_Delete(args);
	free(cursor);
	return 0;
}
