/*
 * yemit.c - write a cJSON tree (as ydoc.c makes one) back out as block
 * YAML with libyaml's emitter.
 *
 * The output is read back by a YAML 1.1 safe loader (PyYAML's, or
 * dbp_ydoc_parse) as the same tree: a string that the loader would
 * resolve to another type (a number, a boolean, null, a timestamp) is
 * quoted, and a number is spelled the way YAML 1.1 resolves as one
 * (1e-05 -> 1.0e-05, Infinity -> .inf).  Mappings keep their key order;
 * empty containers are written in flow style ([] and {}).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "dbprint.h"

/* Words YAML 1.1 resolves to a boolean or null, compared case-folded
 * (quoting a few mixed-case spellings that would stay strings is
 * harmless). */
static const char *const yemit_words[] = {
	"", "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n",
	"<<", "=", NULL
};

/* 1 when the plain scalar s might resolve to something other than a
 * string under YAML 1.1's implicit resolvers; then it must be quoted. */
static int
yemit_needs_quotes(const char *s)
{
	size_t i;

	/* Numbers, timestamps, .inf/.nan and sexagesimals all start with
	 * a digit, a sign or a dot. */
	if (isdigit((unsigned char)s[0]) || s[0] == '+' || s[0] == '-' ||
	    s[0] == '.')
		return 1;
	for (i = 0; yemit_words[i] != NULL; i++)
		if (strcasecmp(s, yemit_words[i]) == 0)
			return 1;
	return 0;
}

/* The YAML 1.1 spelling of a number node into out (at least 64 bytes,
 * or the valuestring is returned when it needs no change).  Python's
 * json spellings Infinity/-Infinity/NaN become .inf/-.inf/.nan, and an
 * exponent without a fraction gains one (PyYAML's float regex needs the
 * dot). */
static const char *
yemit_number(const cJSON *n, char *out, size_t outsz)
{
	const char *t = dbp_num_text(n);
	const char *e;
	size_t k;

	if (strcmp(t, "Infinity") == 0)
		return ".inf";
	if (strcmp(t, "-Infinity") == 0)
		return "-.inf";
	if (strcmp(t, "NaN") == 0)
		return ".nan";
	e = strpbrk(t, "eE");
	if (e == NULL || strchr(t, '.') != NULL)
		return t;
	k = (size_t)(e - t);
	if (strlen(t) + 3 > outsz)
		return t;
	memcpy(out, t, k);
	memcpy(out + k, ".0", 2);
	strcpy(out + k + 2, e);
	/* YAML 1.1 wants a signed exponent: 1e5 -> 1.0e+5. */
	if (e[1] != '+' && e[1] != '-' && strlen(out) + 2 <= outsz) {
		memmove(out + k + 4, out + k + 3, strlen(out + k + 3) + 1);
		out[k + 3] = '+';
	}
	return out;
}

static int
yemit_scalar(yaml_emitter_t *em, const char *text, int quoted)
{
	yaml_event_t ev;

	if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
	    (yaml_char_t *)(uintptr_t)text, (int)strlen(text), 1, 1,
	    quoted ? YAML_SINGLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE))
		return -1;
	return yaml_emitter_emit(em, &ev) ? 0 : -1;
}

static int
yemit_string(yaml_emitter_t *em, const char *s)
{
	return yemit_scalar(em, s, yemit_needs_quotes(s));
}

static int
yemit_node(yaml_emitter_t *em, const cJSON *v, int depth)
{
	yaml_event_t ev;
	const cJSON *it;
	char num[96];

	if (depth > DBP_MAX_DEPTH)
		return -1;
	if (cJSON_IsObject(v)) {
		if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
		    v->child == NULL ? YAML_FLOW_MAPPING_STYLE :
		    YAML_BLOCK_MAPPING_STYLE) || !yaml_emitter_emit(em, &ev))
			return -1;
		for (it = v->child; it != NULL; it = it->next) {
			if (yemit_string(em, it->string ? it->string : "") ==
			    -1 || yemit_node(em, it, depth + 1) == -1)
				return -1;
		}
		if (!yaml_mapping_end_event_initialize(&ev) ||
		    !yaml_emitter_emit(em, &ev))
			return -1;
		return 0;
	}
	if (cJSON_IsArray(v)) {
		if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
		    v->child == NULL ? YAML_FLOW_SEQUENCE_STYLE :
		    YAML_BLOCK_SEQUENCE_STYLE) || !yaml_emitter_emit(em, &ev))
			return -1;
		for (it = v->child; it != NULL; it = it->next)
			if (yemit_node(em, it, depth + 1) == -1)
				return -1;
		if (!yaml_sequence_end_event_initialize(&ev) ||
		    !yaml_emitter_emit(em, &ev))
			return -1;
		return 0;
	}
	if (cJSON_IsString(v))
		return yemit_string(em, v->valuestring);
	if (cJSON_IsNumber(v))
		return yemit_scalar(em, yemit_number(v, num, sizeof(num)), 0);
	if (cJSON_IsTrue(v))
		return yemit_scalar(em, "true", 0);
	if (cJSON_IsFalse(v))
		return yemit_scalar(em, "false", 0);
	return yemit_scalar(em, "null", 0);
}

/* libyaml output handler: append to a struct dbp_buf. */
static int
yemit_write(void *data, unsigned char *buffer, size_t size)
{
	return dbp_buf_add(data, buffer, size) == 0;
}

char *
dbp_yaml_dump(const cJSON *v)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	struct dbp_buf b;
	int ok = 0;

	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	if (!yaml_emitter_initialize(&em))
		return NULL;
	yaml_emitter_set_output(&em, yemit_write, &b);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_indent(&em, 2);
	yaml_emitter_set_width(&em, -1);
	yaml_emitter_set_break(&em, YAML_LN_BREAK);
	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) ||
	    !yaml_emitter_emit(&em, &ev))
		goto out;
	if (!yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) ||
	    !yaml_emitter_emit(&em, &ev))
		goto out;
	if (yemit_node(&em, v, 0) == -1)
		goto out;
	if (!yaml_document_end_event_initialize(&ev, 1) ||
	    !yaml_emitter_emit(&em, &ev))
		goto out;
	if (!yaml_stream_end_event_initialize(&ev) ||
	    !yaml_emitter_emit(&em, &ev))
		goto out;
	if (!yaml_emitter_flush(&em))
		goto out;
	ok = 1;
out:
	yaml_emitter_delete(&em);
	if (!ok) {
		dbp_buf_release(&b);
		return NULL;
	}
	return dbp_buf_take(&b);
}
