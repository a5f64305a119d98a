// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The mount table: where each filesystem is mounted, from mountinfo
 * (parsed by filter.c's fsm_mountinfo_parse_line(), the one parser),
 * cached and re-read when the mounts change.
 */
#include "mounts.h"

#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fsm_mountinfo_path(void)
{
	const char *p = getenv("FSMSG_MOUNTINFO");

	return p && *p ? p : "/proc/self/mountinfo";
}

int fsm_mounts_init(struct fsm_mounts *t, const char *path)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->path = strdup(path);
	return t->path ? 0 : -1;
}

static void mounts_clear(struct fsm_mount_row *rows, char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].source);
		free(paths[i]);
	}
	free(rows);
	free(paths);
}

void fsm_mounts_free(struct fsm_mounts *t)
{
	mounts_clear(t->rows, t->paths, t->n);
	free(t->path);
	if (t->fd >= 0)
		close(t->fd);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

struct load_ctx {
	struct fsm_mount_row *rows;
	char **paths;
	size_t n, cap;
	bool oom;
};

/* Grow both arrays of @c to hold @n + 1 entries. 0, or -1. */
static int load_grow(struct load_ctx *c)
{
	size_t cap = c->cap ? c->cap * 2 : 32;
	struct fsm_mount_row *r;
	char **p;

	if (c->n < c->cap)
		return 0;
	if (cap > SIZE_MAX / sizeof(*r))
		return -1;
	r = realloc(c->rows, cap * sizeof(*r));
	if (!r)
		return -1;
	c->rows = r;
	p = realloc(c->paths, cap * sizeof(*p));
	if (!p)
		return -1;
	c->paths = p;
	c->cap = cap;
	return 0;
}

static int load_row(struct load_ctx *c, const struct fsm_mount *m)
{
	char *source, *path;

	if (load_grow(c) < 0)
		goto oom;
	source = strdup(m->source);
	path = strdup(m->mountpoint);
	if (!source || !path) {
		free(source);
		free(path);
		goto oom;
	}
	c->rows[c->n].major = m->major;
	c->rows[c->n].minor = m->minor;
	c->rows[c->n].id = m->id;
	c->rows[c->n].source = source;
	c->paths[c->n] = path;
	c->n++;
	return 0;
oom:
	c->oom = true;
	return -1;
}

static int row_cmp(const struct fsm_mount_row *a, const struct fsm_mount_row *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return 0;
}

/* Insertion sort of both arrays at once: mount tables are short, and
 * mountinfo lists them almost in mount id order already. */
static void sort_rows(struct fsm_mount_row *rows, char **paths, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct fsm_mount_row r = rows[i];
		char *p = paths[i];
		size_t j = i;

		for (; j > 0 && row_cmp(&rows[j - 1], &r) > 0; j--) {
			rows[j] = rows[j - 1];
			paths[j] = paths[j - 1];
		}
		rows[j] = r;
		paths[j] = p;
	}
}

static bool same_table(const struct fsm_mounts *t, const struct load_ctx *c)
{
	if (t->n != c->n)
		return false;
	for (size_t i = 0; i < c->n; i++)
		if (row_cmp(&t->rows[i], &c->rows[i]) ||
		    strcmp(t->rows[i].source, c->rows[i].source) ||
		    strcmp(t->paths[i], c->paths[i]))
			return false;
	return true;
}

int fsm_mounts_load(struct fsm_mounts *t)
{
	struct load_ctx c = { 0 };
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *fp = fopen(t->path, "re");

	/* Its own loop rather than each_mount(): the same parser. */
	if (!fp)
		ret = -1;
	while (fp && !ret && getline(&line, &cap, fp) > 0) {
		struct fsm_mount m;

		if (fsm_mountinfo_parse_line(line, &m) == 0)
			ret = load_row(&c, &m);
	}
	free(line);
	if (fp)
		fclose(fp);

	t->loaded = true;
	t->stale = false;
	if (ret < 0 || c.oom) {
		mounts_clear(c.rows, c.paths, c.n);
		c = (struct load_ctx){ 0 };
		ret = -1;
	}
	sort_rows(c.rows, c.paths, c.n);
	if (same_table(t, &c)) {
		mounts_clear(c.rows, c.paths, c.n);
		return ret;
	}
	mounts_clear(t->rows, t->paths, t->n);
	t->rows = c.rows;
	t->paths = c.paths;
	t->n = c.n;
	t->generation++;
	return ret;
}

int fsm_mounts_watch(struct fsm_mounts *t)
{
	if (t->fd < 0)
		t->fd = open(t->path, O_RDONLY | O_CLOEXEC);
	return t->fd;
}

void fsm_mounts_polled(struct fsm_mounts *t, short revents)
{
	if (revents & (POLLPRI | POLLERR))
		t->stale = true;
}

void fsm_mounts_lookup(const struct fsm_mounts *t, uint32_t major,
		       uint32_t minor, struct fsm_mnts *out)
{
	size_t lo = 0, hi = t->n, end;

	*out = (struct fsm_mnts){ NULL, 0, NULL };
	while (lo < hi) {		/* the first row >= major:minor */
		size_t mid = lo + (hi - lo) / 2;
		const struct fsm_mount_row *r = &t->rows[mid];

		if (r->major < major || (r->major == major && r->minor < minor))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < t->n && t->rows[end].major == major &&
	     t->rows[end].minor == minor; end++)
		;
	if (end == lo)
		return;
	out->paths = (const char *const *)&t->paths[lo];
	out->n = end - lo;
	out->source = t->rows[lo].source;
}

void fsm_mounts_find(struct fsm_mounts *t, uint32_t major, uint32_t minor,
		     uint64_t now_ns, struct fsm_mnts *out)
{
	bool fresh = !t->loaded || t->stale;

	if (fresh)
		fsm_mounts_load(t);
	fsm_mounts_lookup(t, major, minor, out);
	if (out->n)
		return;
	/* Mounted since the table was read, and the poll() not seen yet
	 * (or no poll() at all): read again, but not for every message of
	 * a filesystem that is not visible here. */
	if (fresh || (t->have_miss && now_ns >= t->miss_ns &&
		      now_ns - t->miss_ns < FSM_MOUNTS_MISS_NS)) {
		if (fresh) {
			t->have_miss = true;
			t->miss_ns = now_ns;
		}
		return;
	}
	t->have_miss = true;
	t->miss_ns = now_ns;
	fsm_mounts_load(t);
	fsm_mounts_lookup(t, major, minor, out);
}
