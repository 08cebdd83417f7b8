/*
 * jdoc.c - the parsed documents the index keeps in files.doc, read back.
 *
 * files.doc holds compact JSON as Python's json.dumps writes it: numbers
 * keep the spelling the YAML file gave them (0.10, 1e-05, Infinity), which
 * cJSON_Parse would lose (and it rejects Infinity/NaN outright).  This
 * small parser keeps each number's spelling in valuestring, as ydoc.c does
 * for a freshly parsed file, so a tool can hand the document back out
 * through dbp_json_dump unchanged.
 */
#define _POSIX_C_SOURCE	200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

struct jp {
	const char	*p;
	const char	*end;
	int		 depth;
};

static cJSON	*jp_value(struct jp *j);

static void
jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int
jp_hex4(const char *s, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		v <<= 4;
		if (s[i] >= '0' && s[i] <= '9')
			v |= (unsigned)(s[i] - '0');
		else if (s[i] >= 'a' && s[i] <= 'f')
			v |= (unsigned)(s[i] - 'a' + 10);
		else if (s[i] >= 'A' && s[i] <= 'F')
			v |= (unsigned)(s[i] - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* A string token at j->p (the opening quote); malloc'd UTF-8 or NULL. */
static char *
jp_string(struct jp *j)
{
	struct dbp_buf b;
	unsigned cp, lo;

	if (j->p >= j->end || *j->p != '"')
		return NULL;
	j->p++;
	dbp_buf_init(&b, DBP_MAX_FILE_BYTES);
	while (j->p < j->end && *j->p != '"') {
		if (*j->p != '\\') {
			dbp_buf_addc(&b, *j->p++);
			continue;
		}
		if (j->end - j->p < 2)
			goto fail;
		j->p++;
		switch (*j->p++) {
		case '"': dbp_buf_addc(&b, '"'); break;
		case '\\': dbp_buf_addc(&b, '\\'); break;
		case '/': dbp_buf_addc(&b, '/'); break;
		case 'b': dbp_buf_addc(&b, '\b'); break;
		case 'f': dbp_buf_addc(&b, '\f'); break;
		case 'n': dbp_buf_addc(&b, '\n'); break;
		case 'r': dbp_buf_addc(&b, '\r'); break;
		case 't': dbp_buf_addc(&b, '\t'); break;
		case 'u':
			if (j->end - j->p < 4 || jp_hex4(j->p, &cp) == -1)
				goto fail;
			j->p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->p >= 6 &&
			    j->p[0] == '\\' && j->p[1] == 'u' &&
			    jp_hex4(j->p + 2, &lo) == 0 && lo >= 0xdc00 &&
			    lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
				j->p += 6;
			}
			dbp_buf_put_utf8(&b, cp);
			break;
		default:
			goto fail;
		}
	}
	if (j->p >= j->end)
		goto fail;
	j->p++;
	return dbp_buf_take(&b);
fail:
	dbp_buf_release(&b);
	return NULL;
}

static cJSON *
jp_number(struct jp *j)
{
	const char *s = j->p;
	char *text;
	cJSON *n;
	double v;
	size_t len;

	if (j->end - s >= 8 && memcmp(s, "Infinity", 8) == 0) {
		j->p += 8;
		v = INFINITY;
	} else if (j->end - s >= 9 && memcmp(s, "-Infinity", 9) == 0) {
		j->p += 9;
		v = -INFINITY;
	} else if (j->end - s >= 3 && memcmp(s, "NaN", 3) == 0) {
		j->p += 3;
		v = NAN;
	} else {
		while (j->p < j->end && strchr("+-0123456789.eE", *j->p) &&
		    *j->p != '\0')
			j->p++;
		if (j->p == s)
			return NULL;
		v = 0;
	}
	len = (size_t)(j->p - s);
	if ((text = strndup(s, len)) == NULL)
		return NULL;
	if (isfinite(v) && v == 0)
		v = strtod(text, NULL);
	if ((n = cJSON_CreateNumber(v)) == NULL) {
		free(text);
		return NULL;
	}
	n->valuestring = text;
	return n;
}

static cJSON *
jp_container(struct jp *j, int obj)
{
	cJSON *c, *v;
	char *key;

	if (++j->depth > DBP_MAX_DEPTH)
		return NULL;
	c = obj ? cJSON_CreateObject() : cJSON_CreateArray();
	if (c == NULL)
		return NULL;
	j->p++;
	jp_ws(j);
	if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
		j->p++;
		j->depth--;
		return c;
	}
	for (;;) {
		key = NULL;
		jp_ws(j);
		if (obj) {
			if ((key = jp_string(j)) == NULL)
				goto fail;
			jp_ws(j);
			if (j->p >= j->end || *j->p != ':') {
				free(key);
				goto fail;
			}
			j->p++;
		}
		if ((v = jp_value(j)) == NULL) {
			free(key);
			goto fail;
		}
		/* Adding copies the key: on failure v is still ours. */
		if (!(obj ? cJSON_AddItemToObject(c, key, v) :
		    cJSON_AddItemToArray(c, v))) {
			cJSON_Delete(v);
			free(key);
			goto fail;
		}
		free(key);
		jp_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
			j->p++;
			break;
		}
		goto fail;
	}
	j->depth--;
	return c;
fail:
	cJSON_Delete(c);
	return NULL;
}

static cJSON *
jp_value(struct jp *j)
{
	char *s;
	cJSON *v;

	jp_ws(j);
	if (j->p >= j->end)
		return NULL;
	switch (*j->p) {
	case '{':
		return jp_container(j, 1);
	case '[':
		return jp_container(j, 0);
	case '"':
		if ((s = jp_string(j)) == NULL)
			return NULL;
		v = cJSON_CreateString(s);
		free(s);
		return v;
	case 't':
		if (j->end - j->p < 4 || memcmp(j->p, "true", 4) != 0)
			return NULL;
		j->p += 4;
		return cJSON_CreateTrue();
	case 'f':
		if (j->end - j->p < 5 || memcmp(j->p, "false", 5) != 0)
			return NULL;
		j->p += 5;
		return cJSON_CreateFalse();
	case 'n':
		if (j->end - j->p < 4 || memcmp(j->p, "null", 4) != 0)
			return NULL;
		j->p += 4;
		return cJSON_CreateNull();
	default:
		return jp_number(j);
	}
}

cJSON *
srv_json_parse(const char *text, size_t len)
{
	struct jp j;
	cJSON *v;

	j.p = text;
	j.end = text + len;
	j.depth = 0;
	if ((v = jp_value(&j)) == NULL)
		return NULL;
	jp_ws(&j);
	if (j.p != j.end) {
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}

void
srv_file_release(struct srv_file *f)
{
	free(f->kind);
	free(f->status);
	free(f->error);
	free(f->hash);
	free(f->doc);
	memset(f, 0, sizeof(*f));
}

static char *
col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t == NULL ? NULL : strdup((const char *)t);
}

int
srv_file_get(struct srv_conn *cn, const char *path, struct srv_file *f,
    struct dbp_diag *d)
{
	static const char sql[] =
	    "SELECT kind, status, error, hash, doc FROM files WHERE path = ?";
	sqlite3_stmt *st = NULL;
	int rc;

	memset(f, 0, sizeof(*f));
	if (sqlite3_prepare_v2(cn->db, sql, -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_finalize(st);
		return 1;
	}
	if (rc != SQLITE_ROW)
		goto dberr;
	f->kind = col_dup(st, 0);
	f->status = col_dup(st, 1);
	f->error = col_dup(st, 2);
	f->hash = col_dup(st, 3);
	f->doc = col_dup(st, 4);
	sqlite3_finalize(st);
	if (f->status == NULL)
		f->status = strdup("absent");
	if (f->status == NULL) {
		srv_file_release(f);
		return dbp_fail(d, "out of memory");
	}
	return 0;
dberr:
	dbp_fail(d, "index read failed: %s", sqlite3_errmsg(cn->db));
	sqlite3_finalize(st);
	return -1;
}

cJSON *
srv_file_doc(struct srv_conn *cn, const char *path)
{
	struct srv_file f;
	cJSON *doc = NULL;

	if (srv_file_get(cn, path, &f, NULL) != 0)
		return NULL;
	if (f.doc != NULL)
		doc = srv_json_parse(f.doc, strlen(f.doc));
	srv_file_release(&f);
	return doc;
}

char *
srv_artifact_path(struct srv_conn *cn, const char *fqn, const char *kind)
{
	static const char sql[] =
	    "SELECT path FROM artifacts WHERE table_fqn = ? AND kind = ?";
	sqlite3_stmt *st = NULL;
	char *path = NULL;

	if (sqlite3_prepare_v2(cn->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, fqn, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		path = col_dup(st, 0);
	sqlite3_finalize(st);
	return path;
}

int
srv_json_put(cJSON *obj, const char *key, cJSON *item)
{
	if (item == NULL)
		return -1;
	if (!(key != NULL ? cJSON_AddItemToObject(obj, key, item) :
	    cJSON_AddItemToArray(obj, item))) {
		cJSON_Delete(item);
		return -1;
	}
	return 0;
}

int
srv_json_put_ref(cJSON *obj, const char *key, const cJSON *item)
{
	cJSON *r;

	if (item == NULL || (r = cJSON_CreateNull()) == NULL)
		return -1;
	/* What cJSON's own create_reference makes: a shallow copy that
	 * cJSON_Delete does not descend into. */
	memcpy(r, item, sizeof(*r));
	r->string = NULL;
	r->next = r->prev = NULL;
	r->type |= cJSON_IsReference;
	return srv_json_put(obj, key, r);
}
