/*
 * freshness.c - list_tables' per-table freshness verdict (spec 4.2): the
 * threshold a table is judged against (its manifest entry's own
 * max_age_days, else the connection's rule cascade evaluated without a
 * row count), the refusals, and live / stale / dormant at the call.
 *
 * The rules are the connection's (struct dbp_conn.rules, defaults' rules
 * first): a rule selects a table whose FQN matches one of its include
 * globs (default "*") and none of its exclude globs; a rule carrying
 * min_rows is skipped, since no row count is available offline, and the
 * table is then "size-gated" (it gets a warning) unless it is a view or
 * its entry records no row_count.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"

/* Days from 1970-01-01 to the civil date y-m-d (proleptic Gregorian). */
static long long
fresh_days(long long y, unsigned m, unsigned d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
fresh_mdays(long long y, unsigned m)
{
	static const int md[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return md[m - 1];
}

/* n ASCII digits at *p into *v; advances *p.  0 or -1. */
static int
fresh_digits(const char **p, const char *end, int n, int *v)
{
	int i;

	if (end - *p < n)
		return -1;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		*v = *v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	return 0;
}

/* HH[:MM[:SS[.f+]]] or HH[MM[SS[.f+]]] from p to end into *secs. */
static int
fresh_time(const char *p, const char *end, double *secs)
{
	int h, m = 0, s = 0, ext;
	double frac = 0.0, scale = 0.1;

	if (fresh_digits(&p, end, 2, &h) == -1 || h > 23)
		return -1;
	if (p < end) {
		ext = *p == ':';
		p += ext;
		if (fresh_digits(&p, end, 2, &m) == -1 || m > 59)
			return -1;
		if (p < end) {
			if (ext && *p++ != ':')
				return -1;
			if (fresh_digits(&p, end, 2, &s) == -1 || s > 59)
				return -1;
			if (p < end) {
				if (*p != '.' && *p != ',')
					return -1;
				if (++p == end)
					return -1;
				for (; p < end; p++) {
					if (!isdigit((unsigned char)*p))
						return -1;
					frac += (*p - '0') * scale;
					scale /= 10;
				}
			}
		}
	}
	*secs = h * 3600.0 + m * 60.0 + s + floor(frac * 1e6) / 1e6;
	return 0;
}

int
fresh_iso_parse(const char *s, double *t)
{
	const char *p = s, *end = s + strlen(s), *tz;
	int y, mo, d, basic;
	double secs = 0.0, off = 0.0;
	long long days;

	if (fresh_digits(&p, end, 4, &y) == -1 || y < 1)
		return -1;
	basic = p < end && *p != '-';
	if (!basic)
		p++;
	if (fresh_digits(&p, end, 2, &mo) == -1)
		return -1;
	if (!basic && (p == end || *p++ != '-'))
		return -1;
	if (fresh_digits(&p, end, 2, &d) == -1)
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > fresh_mdays(y, (unsigned)mo))
		return -1;
	days = fresh_days(y, (unsigned)mo, (unsigned)d);
	if (p < end) {
		/* any one separator character, then a time */
		size_t len;
		uint32_t c0 = (unsigned char)*p;

		len = c0 < 0x80 ? 1 : c0 >= 0xf0 ? 4 : c0 >= 0xe0 ? 3 : 2;
		if ((size_t)(end - p) <= len)
			return -1;
		p += len;
		tz = p;
		while (tz < end && *tz != 'Z' && *tz != '+' && *tz != '-')
			tz++;
		if (fresh_time(p, tz, &secs) == -1)
			return -1;
		if (tz < end) {
			if (*tz == 'Z') {
				if (tz + 1 != end)
					return -1;
			} else {
				if (fresh_time(tz + 1, end, &off) == -1)
					return -1;
				if (*tz == '-')
					off = -off;
			}
		}
	}
	*t = (double)days * 86400.0 + secs - off;
	return 0;
}

/* 1 when the rule selects fqn by name. */
static int
fresh_rule_selects(const cJSON *rule, const char *fqn)
{
	const cJSON *inc = cJSON_GetObjectItemCaseSensitive(rule, "include");
	const cJSON *exc = cJSON_GetObjectItemCaseSensitive(rule, "exclude");
	const cJSON *g;
	int hit = 0;

	if (inc == NULL || cJSON_IsNull(inc))
		hit = 1;
	else if (cJSON_IsString(inc))
		hit = dbp_fnmatch(inc->valuestring, fqn);
	else
		cJSON_ArrayForEach(g, inc)
			if (cJSON_IsString(g) && dbp_fnmatch(g->valuestring, fqn))
				hit = 1;
	if (!hit)
		return 0;
	if (cJSON_IsString(exc))
		return !dbp_fnmatch(exc->valuestring, fqn);
	if (cJSON_IsArray(exc))
		cJSON_ArrayForEach(g, exc)
			if (cJSON_IsString(g) && dbp_fnmatch(g->valuestring, fqn))
				return 0;
	return 1;
}

/* Set a refusal: fmt with the arguments; -1 on OOM. */
static int
fresh_refuse(struct fresh_threshold *out, const char *fmt, const char *a,
    const char *b, const char *c, const char *d)
{
	int n = snprintf(NULL, 0, fmt, a, b, c, d);

	out->refused = 1;
	if ((out->error = malloc((size_t)n + 1)) == NULL)
		return -1;
	snprintf(out->error, (size_t)n + 1, fmt, a, b, c, d);
	return 0;
}

/* Python str() of a recorded number from its JSON spelling. */
static const char *
fresh_pystr(const char *spelling)
{
	if (strcmp(spelling, "Infinity") == 0)
		return "inf";
	if (strcmp(spelling, "-Infinity") == 0)
		return "-inf";
	if (strcmp(spelling, "NaN") == 0)
		return "nan";
	return spelling;
}

static int
fresh_cascade(const struct dbp_conn *conf, const char *fqn,
    const char *type, int has_rows, struct fresh_threshold *out)
{
	const cJSON *rule, *v, *lab;
	const char *filter_from = NULL, *sample_from = NULL;
	char *rc = NULL, *rt = NULL;
	int sized = 0, r;

	out->days = conf->max_age_days;
	cJSON_ArrayForEach(rule, conf->rules) {
		if (!cJSON_IsObject(rule) || !fresh_rule_selects(rule, fqn))
			continue;
		v = cJSON_GetObjectItemCaseSensitive(rule, "min_rows");
		if (v != NULL && !cJSON_IsNull(v)) {
			sized = 1;
			continue;
		}
		lab = cJSON_GetObjectItemCaseSensitive(rule, "_label");
		v = cJSON_GetObjectItemCaseSensitive(rule, "max_age_days");
		if (cJSON_IsNumber(v))
			out->days = (long)v->valuedouble;
		v = cJSON_GetObjectItemCaseSensitive(rule, "filter");
		if (v != NULL && !cJSON_IsNull(v))
			filter_from = cJSON_IsString(lab) ? lab->valuestring :
			    "a rule";
		v = cJSON_GetObjectItemCaseSensitive(rule, "sample");
		if (v != NULL && !cJSON_IsNull(v))
			sample_from = cJSON_IsString(lab) ? lab->valuestring :
			    "a rule";
	}
	if (filter_from != NULL && sample_from != NULL) {
		rc = dbp_pyrepr_str(conf->name);
		rt = dbp_pyrepr_str(fqn);
		if (rc == NULL || rt == NULL)
			r = -1;
		else
			r = fresh_refuse(out, "connection %s: table %s "
			    "resolves to both a filter (from %s) and a sample "
			    "(from %s). A table is narrowed by a predicate or "
			    "by a fraction, never both - drop one of the two "
			    "keys, or narrow the rule that sets it so it stops "
			    "matching this table.", rc, rt, filter_from,
			    sample_from);
		free(rc);
		free(rt);
		return r;
	}
	out->gated = sized && has_rows && (type == NULL ||
	    strcmp(type, "view") != 0);
	return 0;
}

int
fresh_threshold(const struct dbp_conn *conf, const char *fqn,
    const char *type, int has_rows, const char *recorded,
    struct fresh_threshold *out)
{
	double v;
	char *end;

	memset(out, 0, sizeof(*out));
	if (recorded != NULL && (recorded[0] == '-' || recorded[0] == 'I' ||
	    recorded[0] == 'N' || isdigit((unsigned char)recorded[0]))) {
		v = strtod(recorded, &end);
		if (strcmp(recorded, "NaN") == 0)
			v = NAN;
		if (v < 0)
			return fresh_refuse(out, "%s: max_age_days is %s, which "
			    "no print can ever satisfy: every table re-extracts "
			    "on every run and check reports every one of them "
			    "stale. Use 0 to ask for that deliberately, or a "
			    "positive number of days.%s%s", fqn,
			    fresh_pystr(recorded), "", "");
		if (!isfinite(v) || v != floor(v))
			return fresh_refuse(out, "%s: max_age_days is %s, which "
			    "is not a whole number of days.%s%s", fqn,
			    fresh_pystr(recorded), "", "");
		out->days = v > 1e15 ? (long)1e15 : (long)v;
		return 0;
	}
	return fresh_cascade(conf, fqn, type, has_rows, out);
}

int
fresh_verdict(cJSON *item, const char *profiled,
    const struct fresh_threshold *th, double now)
{
	cJSON *pv = NULL, *age;
	const char *verdict = "dormant";
	double t, days;
	int have = 0;

	if (th->refused)
		return cJSON_AddStringToObject(item, "threshold_error",
		    th->error) == NULL ? -1 : 0;
	if (profiled != NULL && (pv = tm_json(profiled)) != NULL &&
	    cJSON_IsString(pv) && fresh_iso_parse(pv->valuestring, &t) == 0)
		have = 1;
	cJSON_Delete(pv);
	if (have) {
		days = (now - t) / 86400.0;
		verdict = days >= (double)th->days ? "stale" : "live";
		age = tm_float_node(tm_round(days, 2));
	} else
		age = cJSON_CreateNull();
	if (age == NULL)
		return -1;
	if (cJSON_AddStringToObject(item, "freshness", verdict) == NULL) {
		cJSON_Delete(age);
		return -1;
	}
	srv_json_put(item, "age_days", age);
	if ((age = tm_int_node(th->days)) == NULL)
		return -1;
	srv_json_put(item, "max_age_days", age);
	return 0;
}

char *
fresh_warning(const char *connection, const char *const *names, size_t n)
{
	struct dbp_buf b;
	size_t i;

	dbp_buf_init(&b, DBP_MAX_FRAME);
	dbp_buf_addf(&b, "%s: no row count is available without a database, "
	    "so rules carrying `min_rows` did not apply to ", connection);
	for (i = 0; i < n; i++)
		dbp_buf_addf(&b, "%s%s", i > 0 ? ", " : "", names[i]);
	dbp_buf_adds(&b, ". Their thresholds come from the rules matching by "
	    "name alone, or from the connection.");
	if (b.failed) {
		dbp_buf_release(&b);
		return NULL;
	}
	return dbp_buf_take(&b);
}
