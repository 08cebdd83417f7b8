/*
 * config.c - finding and loading the project's .dbprint.yaml: the walk
 * up from the working directory (or the exact --project location), the
 * connections it declares, each connection's print root, max_age_days and
 * rules.  The rules and messages follow research/upstream-mcp.md 1.2; keys
 * this program does not use are not validated.
 */
#define _XOPEN_SOURCE	700	/* realpath, nftw */

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile/ix.h"

#define CFG_NAME	".dbprint.yaml"
#define CFG_RULES_KEY	"_dbp_rules"	/* where per-connection rule lists live */

static const char *const cfg_adapters[] = {
	"postgres", "snowflake", "mysql", "duckdb", "clickhouse", "redshift",
	"databricks", "bigquery", NULL
};
static const char *const cfg_rule_keys[] = {
	"sample", "filter", "statistics", "max_age_days", "max_rows_scanned",
	"read_rows", NULL
};

static int
cfg_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Join a and b with one '/'; malloc'd or NULL. */
static char *
cfg_join(const char *a, const char *b)
{
	struct dbp_buf buf;

	dbp_buf_init(&buf, DBP_MAX_PATH);
	dbp_buf_adds(&buf, a);
	if (buf.len == 0 || buf.ptr[buf.len - 1] != '/')
		dbp_buf_addc(&buf, '/');
	dbp_buf_adds(&buf, b);
	return dbp_buf_take(&buf);
}

/* Make p absolute: "~" expanded, relative joined to base (or the working
 * directory), then "." and ".." resolved lexically.  malloc'd or NULL. */
static char *
cfg_absolute(const char *p, const char *base)
{
	char cwd[DBP_MAX_PATH], *joined, *norm, *out;
	const char *home;
	int esc;

	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0') &&
	    (home = getenv("HOME")) != NULL)
		joined = cfg_join(home, p[1] ? p + 2 : "");
	else if (p[0] == '/')
		joined = strdup(p);
	else {
		if (base == NULL) {
			if (getcwd(cwd, sizeof(cwd)) == NULL)
				return NULL;
			base = cwd;
		}
		joined = cfg_join(base, p);
	}
	if (joined == NULL)
		return NULL;
	norm = ix_relnorm(joined + 1, &esc);
	free(joined);
	if (norm == NULL)
		return esc ? strdup("/") : NULL;
	out = cfg_join("/", norm);
	free(norm);
	return out;
}

/* Like Python's Path.resolve(strict=False): realpath when it exists. */
static char *
cfg_resolve(char *abs)
{
	char real[DBP_MAX_PATH];

	if (abs != NULL && realpath(abs, real) != NULL) {
		free(abs);
		return strdup(real);
	}
	return abs;
}

static int
cfg_locate(const char *loc, char **out, struct dbp_diag *d)
{
	char cwd[DBP_MAX_PATH], real[DBP_MAX_PATH], *dir, *cand, *slash, *abs;
	const char *base;

	*out = NULL;
	if (loc != NULL) {
		if ((abs = cfg_absolute(loc, NULL)) == NULL)
			return dbp_fail(d, "cannot resolve %s", loc);
		base = strrchr(abs, '/');
		if (strcmp(base ? base + 1 : abs, CFG_NAME) == 0)
			cand = abs;
		else {
			cand = cfg_join(abs, CFG_NAME);
			free(abs);
			if (cand == NULL)
				return dbp_fail(d, "out of memory");
		}
		if (!cfg_is_file(cand)) {
			dbp_fail(d, "no .dbprint.yaml at %s. --project names an "
			    "exact location - the config file itself, or the "
			    "directory that directly contains it. No upward "
			    "walk, no downward scan.", cand);
			free(cand);
			return -1;
		}
		*out = cand;
		return 0;
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return dbp_fail(d, "cannot read the working directory: %s",
		    strerror(errno));
	if ((dir = realpath(cwd, NULL)) == NULL)
		dir = strdup(cwd);
	if (dir == NULL)
		return dbp_fail(d, "out of memory");
	for (;;) {
		if ((cand = cfg_join(dir, CFG_NAME)) == NULL)
			break;
		if (cfg_is_file(cand)) {
			free(dir);
			*out = cand;
			return 0;
		}
		free(cand);
		slash = strrchr(dir, '/');
		if (slash == NULL || (slash == dir && dir[1] == '\0'))
			break;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(dir);
	if (realpath(cwd, real) == NULL)
		snprintf(real, sizeof(real), "%s", cwd);
	return dbp_fail(d, "no .dbprint.yaml found in %s or any parent "
	    "directory. Run `dbprint init` in the project root to create one.",
	    real);
}

/* Validate a max_age_days value; subject is "<path>: connection 'x'" or
 * "<path>: defaults". */
static int
cfg_check_age(const cJSON *v, const char *subject, struct dbp_diag *d)
{
	char *r;

	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!ix_is_int(v)) {
		r = dbp_pyrepr(v);
		dbp_fail(d, "%s: max_age_days: expected integer, got %s.",
		    subject, r ? r : "?");
		free(r);
		return -1;
	}
	if (ix_int(v) < 0)
		return dbp_fail(d, "%s: max_age_days is %s, which no print can "
		    "ever satisfy: every table re-extracts on every run and "
		    "check reports every one of them stale. Use 0 to ask for "
		    "that deliberately, or a positive number of days.", subject,
		    dbp_num_text(v));
	return 0;
}

static void
cfg_lower(char *s)
{
	for (; *s != '\0'; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

/* Put item into obj under key (replacing what is there when replace),
 * taking it: on failure (out of memory) it is deleted.  0, or -1 with d
 * set. */
static int
cfg_put(cJSON *obj, const char *key, cJSON *item, int replace,
    struct dbp_diag *d)
{
	if (item == NULL || !(replace ?
	    cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item) :
	    cJSON_AddItemToObject(obj, key, item))) {
		cJSON_Delete(item);
		return dbp_fail(d, "out of memory");
	}
	return 0;
}

/* Lower-case a rule's include/exclude patterns in place; a lone string
 * becomes a one-element list; include defaults to ["*"]. */
static int
cfg_rule_patterns(cJSON *rule, const char *key, const char *subject,
    struct dbp_diag *d)
{
	cJSON *v, *it, *arr;

	v = cJSON_GetObjectItemCaseSensitive(rule, key);
	if (v == NULL || cJSON_IsNull(v)) {
		if (strcmp(key, "include") != 0)
			return 0;
		if ((arr = cJSON_CreateArray()) == NULL)
			return dbp_fail(d, "out of memory");
		if (!cJSON_AddItemToArray(arr, cJSON_CreateString("*"))) {
			cJSON_Delete(arr);
			return dbp_fail(d, "out of memory");
		}
		return cfg_put(rule, key, arr, v != NULL, d);
	}
	if (cJSON_IsString(v)) {
		cfg_lower(v->valuestring);
		if ((arr = cJSON_CreateArray()) == NULL)
			return dbp_fail(d, "out of memory");
		if (!cJSON_AddItemToArray(arr,
		    cJSON_CreateString(v->valuestring))) {
			cJSON_Delete(arr);
			return dbp_fail(d, "out of memory");
		}
		return cfg_put(rule, key, arr, 1, d);
	}
	if (!cJSON_IsArray(v))
		return dbp_fail(d, "%s: %s must be a list of patterns, got %s.",
		    subject, key, ix_pytype(v));
	cJSON_ArrayForEach(it, v) {
		if (!cJSON_IsString(it))
			return dbp_fail(d, "%s: %s must be a list of patterns, "
			    "got an item of type %s.", subject, key,
			    ix_pytype(it));
		cfg_lower(it->valuestring);
	}
	return 0;
}

/* Check and label the rules of one block, appending references to them to
 * out.  what is "defaults" or "connection 'x'". */
static int
cfg_rules(const char *path, cJSON *block, const char *what, cJSON *out,
    struct dbp_diag *d)
{
	cJSON *rules, *rule;
	char label[512], subject[DBP_MAX_PATH + 600];
	int i = 0, k, has;

	rules = cJSON_GetObjectItemCaseSensitive(block, "rules");
	if (rules == NULL || cJSON_IsNull(rules))
		return 0;
	if (!cJSON_IsArray(rules))
		return dbp_fail(d, "%s: %s: rules must be a list, got %s.", path,
		    what, ix_pytype(rules));
	cJSON_ArrayForEach(rule, rules) {
		snprintf(label, sizeof(label), "%s rules[%d]", what, i++);
		snprintf(subject, sizeof(subject), "%s: %s", path, label);
		if (!cJSON_IsObject(rule))
			return dbp_fail(d, "%s must be a mapping, got %s.",
			    subject, ix_pytype(rule));
		for (has = 0, k = 0; cfg_rule_keys[k] != NULL; k++)
			if (cJSON_GetObjectItemCaseSensitive(rule,
			    cfg_rule_keys[k]) != NULL)
				has = 1;
		if (!has)
			return dbp_fail(d, "%s sets nothing: a rule needs at "
			    "least one of sample, filter, statistics, "
			    "max_age_days, max_rows_scanned or read_rows.",
			    subject);
		if (cfg_check_age(cJSON_GetObjectItemCaseSensitive(rule,
		    "max_age_days"), subject, d) == -1)
			return -1;
		if (cfg_rule_patterns(rule, "include", subject, d) == -1 ||
		    cfg_rule_patterns(rule, "exclude", subject, d) == -1)
			return -1;
		if (cJSON_GetObjectItemCaseSensitive(rule, "_label") == NULL &&
		    cfg_put(rule, "_label", cJSON_CreateString(label), 0,
		    d) == -1)
			return -1;
		if (!cJSON_AddItemReferenceToArray(out, rule))
			return dbp_fail(d, "out of memory");
	}
	return 0;
}

static int
cfg_conn(struct dbp_project *p, cJSON *defaults, cJSON *body,
    const char *name, cJSON *rulebox, struct dbp_conn *c, struct dbp_diag *d)
{
	const char *path = p->config_path, *out;
	const cJSON *v, *dv;
	char subject[DBP_MAX_PATH + 600], what[600], *r, *abs;
	cJSON *rules;
	int k;

	r = dbp_pyrepr_str(name);
	snprintf(what, sizeof(what), "connection %s", r ? r : name);
	free(r);
	snprintf(subject, sizeof(subject), "%s: %s", path, what);
	if ((c->name = strdup(name)) == NULL)
		return dbp_fail(d, "out of memory");
	/* The name becomes a directory and a file name: keep it one. */
	if (name[0] == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return dbp_fail(d, "%s: a connection name must be one path "
		    "segment (no '/', not '.' or '..').", subject);
	if (body != NULL && !cJSON_IsNull(body) && !cJSON_IsObject(body))
		return dbp_fail(d, "%s must be a mapping, got %s.", subject,
		    ix_pytype(body));
	if (!cJSON_IsObject(body))
		body = NULL;

	v = body ? cJSON_GetObjectItemCaseSensitive(body, "adapter") : NULL;
	if (v != NULL) {
		for (k = 0; cfg_adapters[k] != NULL; k++)
			if (cJSON_IsString(v) &&
			    strcmp(v->valuestring, cfg_adapters[k]) == 0)
				break;
		if (cfg_adapters[k] == NULL) {
			r = dbp_pyrepr(v);
			dbp_fail(d, "%s: adapter must be one of ('postgres', "
			    "'snowflake', 'mysql', 'duckdb', 'clickhouse', "
			    "'redshift', 'databricks', 'bigquery'), got %s.",
			    subject, r ? r : "?");
			free(r);
			return -1;
		}
	}
	c->autoflag = body ? ix_truthy(cJSON_GetObjectItemCaseSensitive(body,
	    "auto")) : 0;

	/* max_age_days: own, else defaults, else 7; both validated. */
	v = body ? cJSON_GetObjectItemCaseSensitive(body, "max_age_days") : NULL;
	dv = defaults ? cJSON_GetObjectItemCaseSensitive(defaults,
	    "max_age_days") : NULL;
	if (cfg_check_age(v, subject, d) == -1)
		return -1;
	c->max_age_days = 7;
	if (dv != NULL && !cJSON_IsNull(dv))
		c->max_age_days = (long)ix_int(dv);
	if (v != NULL && !cJSON_IsNull(v))
		c->max_age_days = (long)ix_int(v);

	/* Output: own or defaults or "prints", against the project root. */
	v = body ? cJSON_GetObjectItemCaseSensitive(body, "output") : NULL;
	if (!ix_truthy(v))
		v = defaults ? cJSON_GetObjectItemCaseSensitive(defaults,
		    "output") : NULL;
	if (ix_truthy(v) && !cJSON_IsString(v))
		return dbp_fail(d, "%s: output must be a string, got %s.",
		    subject, ix_pytype(v));
	out = ix_truthy(v) ? v->valuestring : "prints";
	abs = cfg_resolve(cfg_absolute(out, p->root));
	if (abs == NULL)
		return dbp_fail(d, "out of memory");
	c->print_root = cfg_join(abs, name);
	free(abs);
	if (c->print_root == NULL)
		return dbp_fail(d, "out of memory");

	/* Rules: defaults' first, then the connection's own. */
	if ((rules = cJSON_CreateArray()) == NULL)
		return dbp_fail(d, "out of memory");
	if (cfg_put(rulebox, name, rules, 0, d) == -1)
		return -1;
	if (defaults != NULL &&
	    cfg_rules(path, defaults, "defaults", rules, d) == -1)
		return -1;
	if (body != NULL && cfg_rules(path, body, what, rules, d) == -1)
		return -1;
	c->rules = rules;
	return 0;
}

int
dbp_project_load(const char *loc, struct dbp_project *p, struct dbp_diag *d)
{
	struct dbp_diag pd;
	cJSON *conns, *defaults, *body, *rulebox, *rdef;
	char *buf = NULL, *slash;
	size_t len, n;

	memset(p, 0, sizeof(*p));
	if (cfg_locate(loc, &p->config_path, d) == -1)
		return -1;
	if ((p->root = strdup(p->config_path)) == NULL)
		goto oom;
	slash = strrchr(p->root, '/');
	if (slash == p->root)
		slash[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
	if (dbp_read_file(p->config_path, DBP_MAX_FILE_BYTES, &buf, &len, NULL,
	    d) == -1)
		goto fail;
	p->raw = dbp_ydoc_parse(buf, len, &pd);
	free(buf);
	if (p->raw == NULL) {
		dbp_fail(d, "%s: invalid YAML \xe2\x80\x94 %s", p->config_path,
		    pd.msg);
		goto fail;
	}
	if (cJSON_IsNull(p->raw)) {
		cJSON_Delete(p->raw);
		if ((p->raw = cJSON_CreateObject()) == NULL)
			goto oom;
	}
	if (!cJSON_IsObject(p->raw)) {
		dbp_fail(d, "%s: top-level YAML must be a mapping, got %s.",
		    p->config_path, ix_pytype(p->raw));
		goto fail;
	}
	defaults = cJSON_GetObjectItemCaseSensitive(p->raw, "defaults");
	if (defaults != NULL && !cJSON_IsNull(defaults) &&
	    !cJSON_IsObject(defaults)) {
		dbp_fail(d, "%s: `defaults` must be a mapping, got %s.",
		    p->config_path, ix_pytype(defaults));
		goto fail;
	}
	if (!cJSON_IsObject(defaults))
		defaults = NULL;
	if (defaults != NULL) {
		rdef = cJSON_GetObjectItemCaseSensitive(defaults, "max_age_days");
		snprintf(pd.msg, sizeof(pd.msg), "%s: defaults", p->config_path);
		if (cfg_check_age(rdef, pd.msg, d) == -1)
			goto fail;
	}
	conns = cJSON_GetObjectItemCaseSensitive(p->raw, "connections");
	if (ix_truthy(conns) && !cJSON_IsObject(conns)) {
		dbp_fail(d, "%s: `connections` must be a mapping, got %s.",
		    p->config_path, ix_pytype(conns));
		goto fail;
	}
	n = (size_t)(ix_truthy(conns) ? cJSON_GetArraySize(conns) : 0);
	if (n == 0) {
		dbp_fail(d, "%s: at least one connection must be defined.",
		    p->config_path);
		goto fail;
	}
	if (n > DBP_MAX_CONNECTIONS) {
		dbp_fail(d, "%s: %zu connections, more than the %d this "
		    "program reads.", p->config_path, n, DBP_MAX_CONNECTIONS);
		goto fail;
	}
	if ((p->conns = calloc(n, sizeof(*p->conns))) == NULL)
		goto oom;
	if ((rulebox = cJSON_CreateObject()) == NULL)
		goto oom;
	if (cfg_put(p->raw, CFG_RULES_KEY, rulebox, 0, d) == -1)
		goto fail;
	cJSON_ArrayForEach(body, conns) {
		if (cfg_conn(p, defaults, body, body->string, rulebox,
		    &p->conns[p->nconns], d) == -1) {
			p->nconns++;
			goto fail;
		}
		p->nconns++;
	}
	return 0;
oom:
	dbp_fail(d, "out of memory");
fail:
	dbp_project_release(p);
	return -1;
}

void
dbp_project_release(struct dbp_project *p)
{
	size_t i;

	for (i = 0; i < p->nconns; i++) {
		free(p->conns[i].name);
		free(p->conns[i].print_root);
	}
	free(p->conns);
	free(p->config_path);
	free(p->root);
	free(p->index_dir);
	cJSON_Delete(p->raw);
	memset(p, 0, sizeof(*p));
}

const struct dbp_conn *
dbp_project_conn(const struct dbp_project *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nconns; i++)
		if (strcmp(p->conns[i].name, name) == 0)
			return &p->conns[i];
	return NULL;
}

char *
dbp_index_path(const struct dbp_project *p, const char *conn)
{
	struct dbp_buf b;

	dbp_buf_init(&b, DBP_MAX_PATH);
	if (p->index_dir != NULL) {
		dbp_buf_addf(&b, "%s/%s.sqlite", p->index_dir, conn);
		return dbp_buf_take(&b);
	}
	dbp_buf_addf(&b, "%s%s.dbprint/index/%s.sqlite", p->root,
	    strcmp(p->root, "/") == 0 ? "" : "/", conn);
	return dbp_buf_take(&b);
}
