/*
 * ixutil.c - small helpers of the indexer: Python type names and
 * truthiness of parsed YAML values, whitespace collapsing, the
 * resolve_value normalization key (fold), lexical path normalisation and
 * a string-keyed hash map.
 */
#define _POSIX_C_SOURCE	200809L

#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include <xxhash.h>

#include "ix.h"
#include "text/utf8loc.h"

const char *
ix_pytype(const cJSON *v)
{
	if (v == NULL || cJSON_IsNull(v))
		return "NoneType";
	if (cJSON_IsBool(v))
		return "bool";
	if (cJSON_IsNumber(v))
		return ix_is_int(v) ? "int" : "float";
	if (cJSON_IsString(v))
		return "str";
	if (cJSON_IsArray(v))
		return "list";
	if (cJSON_IsObject(v))
		return "dict";
	return "object";
}

int
ix_is_int(const cJSON *v)
{
	const char *s;

	if (!cJSON_IsNumber(v))
		return 0;
	s = dbp_num_text(v);
	if (*s == '-' || *s == '+')
		s++;
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

int64_t
ix_int(const cJSON *v)
{
	const char *s = dbp_num_text(v);
	long long x;

	x = strtoll(s, NULL, 10);	/* saturates at LLONG_MIN/MAX */
	return (int64_t)x;
}

const char *
ix_str(const cJSON *o, const char *key)
{
	const cJSON *v;

	if (!cJSON_IsObject(o))
		return NULL;
	v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int
ix_truthy(const cJSON *v)
{
	if (v == NULL || cJSON_IsNull(v) || cJSON_IsFalse(v))
		return 0;
	if (cJSON_IsTrue(v))
		return 1;
	if (cJSON_IsNumber(v))
		return v->valuedouble != 0.0;
	if (cJSON_IsString(v))
		return v->valuestring[0] != '\0';
	if (cJSON_IsArray(v) || cJSON_IsObject(v))
		return v->child != NULL;
	return 1;
}

/* Python str.split() whitespace, ASCII part plus the C1/Unicode spaces
 * that matter in notes (NBSP and friends are matched on their UTF-8). */
static size_t
ix_space_len(const unsigned char *p)
{
	if (*p == ' ' || (*p >= '\t' && *p <= '\r') || (*p >= 0x1c &&
	    *p <= 0x1f))
		return 1;
	if (p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0))
		return 2;
	if (p[0] == 0xe2 && p[1] == 0x80 && ((p[2] >= 0x80 && p[2] <= 0x8a) ||
	    p[2] == 0xa8 || p[2] == 0xa9 || p[2] == 0xaf))
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f)
		return 3;
	if (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80)
		return 3;
	if (p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80)
		return 3;
	return 0;
}

char *
dbp_collapse(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;
	size_t n;
	int pending = 0;

	if ((out = malloc(strlen(s) + 1)) == NULL)
		return NULL;
	o = out;
	while (*p != '\0') {
		n = ix_space_len(p);
		if (n > 0) {
			pending = o != out;
			p += n;
			continue;
		}
		if (pending)
			*o++ = ' ';
		pending = 0;
		*o++ = (char)*p++;
	}
	*o = '\0';
	return out;
}

/* ------------------------------------------------------------------ */
/* fold: strip ASCII spaces, then Python str.lower()                    */


static uint32_t
ix_lower(uint32_t c, locale_t loc)
{
	if (c < 0x80)
		return (c >= 'A' && c <= 'Z') ? c + 32 : c;
	if (loc != (locale_t)0)
		return (uint32_t)towlower_l((wint_t)c, loc);
	/* Without a UTF-8 locale: Latin-1 only. */
	if ((c >= 0xc0 && c <= 0xde && c != 0xd7))
		return c + 32;
	return c;
}

char *
dbp_fold_to(const char *s, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), len;
	uint32_t c;
	char *o = out;
	locale_t loc = dbp_utf8_locale();

	while (n > 0 && p[0] == ' ') {
		p++;
		n--;
	}
	while (n > 0 && p[n - 1] == ' ')
		n--;
	while (n > 0) {
		if (*p < 0x80) {	/* the common case */
			*o++ = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
			p++;
			n--;
			continue;
		}
		len = dbp_utf8_decode(p, n, &c);
		if (len == 0) {
			*o++ = (char)*p++;
			n--;
			continue;
		}
		p += len;
		n -= len;
		if (c == 0x130) {	/* Python: "i" + COMBINING DOT ABOVE */
			o += dbp_utf8_encode('i', o);
			o += dbp_utf8_encode(0x307, o);
			continue;
		}
		o += dbp_utf8_encode(ix_lower(c, loc), o);
	}
	*o = '\0';
	return out;
}

char *
dbp_fold(const char *s)
{
	char *out;

	/* Lower-casing never more than doubles a UTF-8 sequence (U+0130,
	 * 2 bytes, becomes 3). */
	if ((out = malloc(strlen(s) * 2 + 1)) == NULL)
		return NULL;
	return dbp_fold_to(s, out);
}

/* ------------------------------------------------------------------ */
/* Compact JSON, as dbp_json_dump(v, DBP_JSON_COMPACT) spells it        */

int
ix_json_str(struct dbp_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char u[12];
	uint32_t c, lo, hi;
	size_t k, n = strlen(s), run;

	dbp_buf_addc(b, '"');
	while (n > 0) {
		/* Copy the longest run of plain printable ASCII at once. */
		for (run = 0; run < n && p[run] >= 0x20 && p[run] < 0x7f &&
		    p[run] != '"' && p[run] != '\\'; run++)
			;
		if (run > 0) {
			dbp_buf_add(b, p, run);
			p += run;
			n -= run;
			continue;
		}
		switch (*p) {
		case '"':
			dbp_buf_add(b, "\\\"", 2);
			p++, n--;
			continue;
		case '\\':
			dbp_buf_add(b, "\\\\", 2);
			p++, n--;
			continue;
		case '\n':
			dbp_buf_add(b, "\\n", 2);
			p++, n--;
			continue;
		case '\r':
			dbp_buf_add(b, "\\r", 2);
			p++, n--;
			continue;
		case '\t':
			dbp_buf_add(b, "\\t", 2);
			p++, n--;
			continue;
		case '\b':
			dbp_buf_add(b, "\\b", 2);
			p++, n--;
			continue;
		case '\f':
			dbp_buf_add(b, "\\f", 2);
			p++, n--;
			continue;
		default:
			break;
		}
		k = dbp_utf8_decode(p, n, &c);
		if (k == 0) {
			c = 0xfffd;
			k = 1;
		}
		p += k;
		n -= k;
		if (c >= 0x10000) {
			hi = 0xd800 | ((c - 0x10000) >> 10);
			lo = 0xdc00 | ((c - 0x10000) & 0x3ff);
		} else {
			hi = c;
			lo = 0;
		}
		u[0] = '\\';
		u[1] = 'u';
		u[2] = hex[(hi >> 12) & 0xf];
		u[3] = hex[(hi >> 8) & 0xf];
		u[4] = hex[(hi >> 4) & 0xf];
		u[5] = hex[hi & 0xf];
		if (lo != 0) {
			u[6] = '\\';
			u[7] = 'u';
			u[8] = hex[(lo >> 12) & 0xf];
			u[9] = hex[(lo >> 8) & 0xf];
			u[10] = hex[(lo >> 4) & 0xf];
			u[11] = hex[lo & 0xf];
		}
		dbp_buf_add(b, u, lo != 0 ? 12 : 6);
	}
	return dbp_buf_addc(b, '"');
}

int
ix_json_compact(struct dbp_buf *b, const cJSON *v)
{
	const cJSON *c;
	int obj;

	if (cJSON_IsString(v))
		return ix_json_str(b, v->valuestring != NULL ? v->valuestring :
		    "");
	if (cJSON_IsNumber(v))
		return dbp_buf_adds(b, dbp_num_text(v));
	if (cJSON_IsTrue(v))
		return dbp_buf_add(b, "true", 4);
	if (cJSON_IsFalse(v))
		return dbp_buf_add(b, "false", 5);
	if (cJSON_IsRaw(v))
		return dbp_buf_adds(b, v->valuestring != NULL ? v->valuestring :
		    "null");
	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return dbp_buf_add(b, "null", 4);
	obj = cJSON_IsObject(v);
	dbp_buf_addc(b, obj ? '{' : '[');
	for (c = v->child; c != NULL; c = c->next) {
		if (obj) {
			ix_json_str(b, c->string != NULL ? c->string : "");
			dbp_buf_addc(b, ':');
		}
		ix_json_compact(b, c);
		if (c->next != NULL)
			dbp_buf_addc(b, ',');
	}
	return dbp_buf_addc(b, obj ? '}' : ']');
}

/* ------------------------------------------------------------------ */
/* Paths                                                                */

char *
ix_relnorm(const char *p, int *escapes)
{
	char *out, *o;
	const char *seg, *end;
	size_t len;

	*escapes = 0;
	if (p[0] == '/' || p[0] == '\\' || p[0] == '~') {
		*escapes = 1;
		return NULL;
	}
	if ((out = malloc(strlen(p) + 1)) == NULL)
		return NULL;
	o = out;
	for (seg = p; *seg != '\0'; seg = *end ? end + 1 : end) {
		end = strchr(seg, '/');
		if (end == NULL)
			end = seg + strlen(seg);
		len = (size_t)(end - seg);
		if (len == 0 || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			if (o == out) {
				free(out);
				*escapes = 1;
				return NULL;
			}
			while (o > out && o[-1] != '/')
				o--;
			if (o > out)
				o--;
			continue;
		}
		if (o != out)
			*o++ = '/';
		memcpy(o, seg, len);
		o += len;
	}
	*o = '\0';
	return out;
}

/* ------------------------------------------------------------------ */
/* Hash map                                                             */

static size_t
ix_map_slot(const struct ix_map *m, const char *key)
{
	size_t i = (size_t)XXH3_64bits(key, strlen(key)) & (m->cap - 1);

	while (m->keys[i] != NULL && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *
ix_map_get(const struct ix_map *m, const char *key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	i = ix_map_slot(m, key);
	return m->keys[i] != NULL ? m->vals[i] : NULL;
}

static int
ix_map_grow(struct ix_map *m)
{
	struct ix_map nm;
	size_t i, j;

	nm.cap = m->cap ? m->cap * 2 : 64;
	nm.n = m->n;
	nm.borrowed = m->borrowed;
	nm.keys = calloc(nm.cap, sizeof(*nm.keys));
	nm.vals = calloc(nm.cap, sizeof(*nm.vals));
	if (nm.keys == NULL || nm.vals == NULL) {
		free(nm.keys);
		free(nm.vals);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		if (m->keys[i] == NULL)
			continue;
		j = ix_map_slot(&nm, m->keys[i]);
		nm.keys[j] = m->keys[i];
		nm.vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	*m = nm;
	return 0;
}

int
ix_map_reserve(struct ix_map *m, size_t n)
{
	size_t cap = 64;

	if (m->cap != 0 || m->n != 0 || n > IX_MAP_RESERVE_MAX)
		return 0;	/* the map grows as it fills */
	while (cap < n * 2 + 2)
		cap *= 2;
	m->keys = calloc(cap, sizeof(*m->keys));
	m->vals = calloc(cap, sizeof(*m->vals));
	if (m->keys == NULL || m->vals == NULL) {
		free(m->keys);
		free(m->vals);
		m->keys = NULL;
		m->vals = NULL;
		return -1;
	}
	m->cap = cap;
	return 0;
}

int
ix_map_put(struct ix_map *m, const char *key, void *val)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap && ix_map_grow(m) == -1)
		return -1;
	i = ix_map_slot(m, key);
	if (m->keys[i] == NULL) {
		if (m->borrowed)
			m->keys[i] = (char *)(uintptr_t)key;
		else if ((m->keys[i] = strdup(key)) == NULL)
			return -1;
		m->n++;
	}
	m->vals[i] = val;
	return 0;
}

void
ix_map_free(struct ix_map *m)
{
	size_t i;

	for (i = 0; i < m->cap && !m->borrowed; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------------ */
/* The page cache                                                       */

/* Lower db's page cache to at most kib KiB.  The size it had (SQLite's
 * cache_size) for ix_cache_restore, or 0 when it was left alone: already
 * as small, given in pages, or unreadable.  A failure only leaves the
 * cache as it was. */
long long
ix_cache_cap(sqlite3 *db, long long kib)
{
	sqlite3_stmt *s;
	long long was = 0;
	char sql[64];

	if (sqlite3_prepare_v2(db, "PRAGMA cache_size", -1, &s, NULL) !=
	    SQLITE_OK)
		return 0;
	if (sqlite3_step(s) == SQLITE_ROW)
		was = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (was >= 0 || -was <= kib)
		return 0;
	snprintf(sql, sizeof(sql), "PRAGMA cache_size = %lld", -kib);
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? was : 0;
}

/* Give db back the cache size ix_cache_cap returned (0: nothing). */
void
ix_cache_restore(sqlite3 *db, long long was)
{
	char sql[64];

	if (was == 0)
		return;
	snprintf(sql, sizeof(sql), "PRAGMA cache_size = %lld", was);
	(void)sqlite3_exec(db, sql, NULL, NULL, NULL);
}
