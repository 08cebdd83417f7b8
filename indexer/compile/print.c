/*
 * print.c - the shape of a print on disk: the kinds of file it holds, and
 * the path-safety rule of SPEC 2.5 (nothing a manifest names may lead
 * outside the connection's print root, whether by an absolute path, by
 * "..", or through a symlink).  Directories are checked once per run and
 * remembered, so a print of thousands of tables costs about one lstat per
 * directory and one per file.
 */
#define _XOPEN_SOURCE	700	/* realpath, nftw */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ix.h"
#include "platform.h"

const struct ix_kinddef ix_kinds[IX_NKINDS] = {
	[IX_MANIFEST]		= { "manifest", "manifest.yaml", 1 },
	[IX_MANIFEST_ANNOT]	= { "manifest_annotations",
				    "manifest.annotations.yaml", 1 },
	[IX_DIFF]		= { "diff", "diff.yaml", 1 },
	[IX_READING]		= { "reading", "reading.md", 0 },
	[IX_DDL]		= { "ddl", "ddl.sql", 0 },
	[IX_STATS]		= { "statistics", "statistics.yaml", 1 },
	[IX_RELS]		= { "relationships", "relationships.yaml", 1 },
	[IX_DESC]		= { "description", "description.md", 0 },
	[IX_STATS_ANNOT]	= { "statistics_annotations",
				    "statistics.annotations.yaml", 1 },
	[IX_RELS_ANNOT]		= { "relationships_annotations",
				    "relationships.annotations.yaml", 1 },
};

int
ix_table_kind(const char *name)
{
	int k;

	for (k = IX_FIRST_TABLE_KIND; k < IX_NKINDS; k++)
		if (strcmp(ix_kinds[k].name, name) == 0)
			return k;
	return -1;
}

void
ix_id_of(const struct stat *st, struct ix_id *id)
{
	id->dev = (int64_t)st->st_dev;
	id->ino = (int64_t)st->st_ino;
	id->size = (int64_t)st->st_size;
	id->mtime = dbp_mtime_ns(st);
}

int
ix_safety_init(struct ix_safety *s, const char *root)
{
	memset(s, 0, sizeof(*s));
	s->rootfd = -1;
	if ((s->root = strdup(root)) == NULL)
		return -1;
	s->real = realpath(root, NULL);	/* NULL: the root does not exist */
	/* Relative lookups from an open root walk fewer components. */
	s->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return 0;
}

void
ix_safety_free(struct ix_safety *s)
{
	free(s->root);
	free(s->real);
	if (s->rootfd >= 0)
		close(s->rootfd);
	ix_map_free(&s->dirs);
	memset(s, 0, sizeof(*s));
}

/* 1 when the real path p lies inside (or is) the real root. */
static int
ix_inside(const struct ix_safety *s, const char *p)
{
	size_t n = strlen(s->real);

	if (strcmp(s->real, "/") == 0)
		return 1;
	return strncmp(p, s->real, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/* realpath of root/rel and whether it stays inside. */
static int
ix_link_inside(const struct ix_safety *s, const char *rel)
{
	char abs[DBP_MAX_PATH], *real;
	int in;

	if (s->real == NULL)
		return 0;
	if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", s->root, rel) >=
	    sizeof(abs))
		return 0;
	if ((real = realpath(abs, NULL)) == NULL)
		return -1;	/* dangling */
	in = ix_inside(s, real);
	free(real);
	return in;
}

int
ix_safety_dir(struct ix_safety *s, const char *rel)
{
	char abs[DBP_MAX_PATH], pre[DBP_MAX_PATH];
	struct stat st;
	const char *p;
	size_t n;
	int state = IX_SAFE_IN, in;
	uintptr_t got;

	if (rel[0] == '\0')
		return s->real != NULL ? IX_SAFE_IN : IX_SAFE_MISSING;
	got = (uintptr_t)ix_map_get(&s->dirs, rel);
	if (got != 0)
		return (int)got;
	/* Check the parent first (cached), then this last step. */
	p = strrchr(rel, '/');
	if (p != NULL) {
		n = (size_t)(p - rel);
		if (n >= sizeof(pre))
			return IX_SAFE_OUT;
		memcpy(pre, rel, n);
		pre[n] = '\0';
		state = ix_safety_dir(s, pre);
	} else
		state = ix_safety_dir(s, "");
	if (state == IX_SAFE_IN) {
		if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", s->root, rel) >=
		    sizeof(abs))
			state = IX_SAFE_OUT;
		else if ((s->rootfd >= 0 ? fstatat(s->rootfd, rel, &st,
		    AT_SYMLINK_NOFOLLOW) : lstat(abs, &st)) == -1)
			state = IX_SAFE_MISSING;
		else if (S_ISLNK(st.st_mode)) {
			in = ix_link_inside(s, rel);
			if (in == -1)
				state = IX_SAFE_MISSING;
			else if (!in)
				state = IX_SAFE_OUT;
			else if (stat(abs, &st) == -1 || !S_ISDIR(st.st_mode))
				state = IX_SAFE_MISSING;
		} else if (!S_ISDIR(st.st_mode))
			state = IX_SAFE_MISSING;
	}
	(void)ix_map_put(&s->dirs, rel, (void *)(uintptr_t)state);
	return state;
}

void
ix_look(struct ix_safety *s, const char *rel, struct ix_look *out)
{
	char abs[DBP_MAX_PATH];
	struct stat st;
	int in, rc;

	memset(out, 0, sizeof(*out));
	if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", s->root, rel) >=
	    sizeof(abs)) {
		out->state = IX_LOOK_ERROR;
		out->err = ENAMETOOLONG;
		return;
	}
	if (s->rootfd >= 0)
		rc = fstatat(s->rootfd, rel, &st, AT_SYMLINK_NOFOLLOW);
	else
		rc = lstat(abs, &st);
	if (rc == -1) {
		out->state = errno == ENOENT || errno == ENOTDIR ?
		    IX_LOOK_ABSENT : IX_LOOK_ERROR;
		out->err = errno;
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		in = ix_link_inside(s, rel);
		if (in == -1) {
			out->state = IX_LOOK_ABSENT;
			return;
		}
		if (!in) {
			out->state = IX_LOOK_OUTSIDE;
			return;
		}
		if (stat(abs, &st) == -1) {
			out->state = IX_LOOK_ABSENT;
			return;
		}
	}
	if (!S_ISREG(st.st_mode)) {
		out->state = IX_LOOK_ERROR;
		out->err = EISDIR;
		return;
	}
	ix_id_of(&st, &out->id);
	out->state = IX_LOOK_FILE;
}
