/*
 * test_json_print.c - dbp_json_print writes exactly what cJSON 1.7.15's
 * cJSON_PrintUnformatted writes: every frame of the golden transcripts,
 * every input of the rpc fuzz corpus that parses, strings holding every
 * byte value, numbers of every kind, and the trees cJSON refuses.
 */
#include <dirent.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dbprint.h"

/* Both printers on v: equal texts (or both refusing).  Returns 1 when
 * a text was compared. */
static int
same(const cJSON *v)
{
	char *want = cJSON_PrintUnformatted(v);
	char *got = dbp_json_print(v);
	int r = want != NULL;

	if (want == NULL || got == NULL) {
		assert_null(want);
		assert_null(got);
	} else
		assert_string_equal(got, want);
	free(want);
	free(got);
	return r;
}

/* Parse text[0..n) and compare both printers on it; 1 when it parsed. */
static int
same_text(const char *text, size_t n)
{
	cJSON *v = cJSON_ParseWithLength(text, n);
	int r;

	if (v == NULL)
		return 0;
	r = same(v);
	cJSON_Delete(v);
	return r;
}

/* The source tree (tests/run exports SRCDIR; else the working dir). */
static const char *
srcdir(void)
{
	const char *s = getenv("SRCDIR");

	return s != NULL && s[0] != '\0' ? s : ".";
}

/* Compare every line of every file in dir/ named *suffix (or every
 * file, suffix NULL, as one value each).  Returns the values compared. */
static size_t
same_dir(const char *dir, const char *suffix, int by_line)
{
	char path[DBP_MAX_PATH];
	struct dirent *de;
	struct dbp_diag d;
	DIR *dp;
	char *buf, *p, *nl;
	size_t len, n = 0, sl;

	snprintf(path, sizeof(path), "%s/%s", srcdir(), dir);
	if ((dp = opendir(path)) == NULL)
		return 0;
	while ((de = readdir(dp)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		sl = suffix != NULL ? strlen(suffix) : 0;
		if (suffix != NULL && (strlen(de->d_name) < sl ||
		    strcmp(de->d_name + strlen(de->d_name) - sl, suffix) != 0))
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", srcdir(), dir,
		    de->d_name);
		if (dbp_read_file(path, DBP_MAX_FRAME, &buf, &len, NULL,
		    &d) != 0)
			continue;
		if (!by_line)
			n += (size_t)same_text(buf, len);
		else
			for (p = buf; p < buf + len; p = nl + 1) {
				nl = memchr(p, '\n', (size_t)(buf + len - p));
				if (nl == NULL)
					nl = buf + len;
				n += (size_t)same_text(p, (size_t)(nl - p));
			}
		free(buf);
	}
	closedir(dp);
	return n;
}

static void
test_golden_frames(void **state)
{
	size_t n;

	(void)state;
	n = same_dir("tests/golden/serve", ".out", 1);
	n += same_dir("tests/golden/serve", ".in", 1);
	/* the transcripts hold some seventy reply frames */
	assert_true(n >= 60);
}

static void
test_fuzz_corpus(void **state)
{
	size_t n;

	(void)state;
	n = same_dir("fixtures/fuzz/rpc", NULL, 0);
	n += same_dir("fixtures/fuzz/http", NULL, 0);
	assert_true(n >= 100);
}

/* A string of n random bytes from 0x01-0xff (xorshift, fixed seed). */
static void
rand_bytes(uint64_t *x, char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		*x ^= *x << 13;
		*x ^= *x >> 7;
		*x ^= *x << 17;
		s[i] = (char)(1 + *x % 255);
	}
	s[n] = '\0';
}

static void
test_every_byte(void **state)
{
	char s[512], k[64];
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	cJSON *o, *a;
	int i, c;

	(void)state;
	/* each byte alone, between plain text, as value and as key */
	for (c = 1; c < 256; c++) {
		snprintf(s, sizeof(s), "a%cb%c", c, c);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, s, s);
		assert_int_equal(same(o), 1);
		cJSON_Delete(o);
	}
	for (i = 0; i < 2000; i++) {
		rand_bytes(&x, s, (size_t)(i % 511));
		rand_bytes(&x, k, (size_t)(i % 63));
		o = cJSON_CreateObject();
		a = cJSON_AddArrayToObject(o, k);
		cJSON_AddItemToArray(a, cJSON_CreateString(s));
		cJSON_AddStringToObject(o, s, k);
		assert_int_equal(same(o), 1);
		cJSON_Delete(o);
	}
}

static void
test_numbers(void **state)
{
	static const double fixed[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.2, 0.3, 1.0 / 3.0,
		2.0 / 3.0, 1e300, -1e300, 1e-300, 1e308, DBL_MAX, -DBL_MAX,
		DBL_MIN, DBL_TRUE_MIN, 5e-324, 1e15, 1e16, 1e17, 1e21, 1e22,
		123456789012345678.0, 9007199254740993.0, 9007199254740992.0,
		(double)INT_MAX, (double)INT_MAX + 1, (double)INT_MIN,
		(double)INT_MIN - 1, 3000000000.0, -3000000000.0,
		4294967296.0, 1e10 + 0.5, 0.1 + 0.2, 100.0, 1e-5, 1e-7,
		123.456, -0.000123, 3.14159265358979, 2.718281828459045,
		32768.0, 65535.0, 1.5e-10, 6.02214076e23, 299792458.0,
	};
	uint64_t x = 0x243f6a8885a308d3ULL, bits;
	double d;
	cJSON *a;
	size_t i;

	(void)state;
	a = cJSON_CreateArray();
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(fixed[i]));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(NAN));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(INFINITY));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(-INFINITY));
	for (i = 0; i < 200; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)i * 0.1 -
		    7.0));
	for (i = 0; i < 200; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)(i * i) *
		    1234567.0 - 99999.0));
	assert_int_equal(same(a), 1);
	cJSON_Delete(a);
	/* random bit patterns: every exponent and mantissa */
	for (i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		bits = x;
		memcpy(&d, &bits, sizeof(d));
		a = cJSON_CreateNumber(d);
		assert_int_equal(same(a), 1);
		cJSON_Delete(a);
		/* and short decimals, the numbers replies carry */
		a = cJSON_CreateNumber((double)(int64_t)(x % 2000000) / 100.0);
		assert_int_equal(same(a), 1);
		cJSON_Delete(a);
	}
}

static void
test_shapes(void **state)
{
	cJSON *o, *a, *n;

	(void)state;
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "e", cJSON_CreateObject());
	cJSON_AddItemToObject(o, "a", cJSON_CreateArray());
	cJSON_AddNullToObject(o, "n");
	cJSON_AddTrueToObject(o, "t");
	cJSON_AddFalseToObject(o, "f");
	cJSON_AddRawToObject(o, "r", "{ \"raw\" : [1, 2] }");
	cJSON_AddStringToObject(o, "", "");
	a = cJSON_AddArrayToObject(o, "nest");
	cJSON_AddItemToArray(a, cJSON_CreateArray());
	cJSON_AddItemToArray(cJSON_GetArrayItem(a, 0), cJSON_CreateObject());
	/* a string node without text and a member without a key print as
	 * "" in cJSON */
	n = cJSON_CreateString("x");
	free(n->valuestring);
	n->valuestring = NULL;
	cJSON_AddItemToArray(a, n);
	cJSON_AddItemReferenceToArray(a, cJSON_GetObjectItem(o, "r"));
	assert_int_equal(same(o), 1);
	n = cJSON_CreateNumber(7);
	cJSON_AddItemToObject(o, "k", n);
	free(n->string);
	n->string = NULL;
	assert_int_equal(same(o), 1);
	/* a raw node without text and a node of no type are refused */
	n = cJSON_CreateRaw("1");
	free(n->valuestring);
	n->valuestring = NULL;
	cJSON_AddItemToArray(a, n);
	assert_int_equal(same(o), 0);
	cJSON_Delete(o);
	n = cJSON_CreateNull();
	n->type = cJSON_Invalid;
	assert_int_equal(same(n), 0);
	cJSON_Delete(n);
	assert_null(dbp_json_print(NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_frames),
		cmocka_unit_test(test_fuzz_corpus),
		cmocka_unit_test(test_every_byte),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
