// SPDX-License-Identifier: GPL-2.0
/* Messages, number parsing, counters and the recursive cleanup. */
#include "alloc_test.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void note(const char *fmt, ...)
{
	va_list ap;

	fputs("alloc_test: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "alloc_test: PATH[/NAME]: [WHAT: ]strerror" */
void errmsg(const char *path, const char *name, const char *what, int err)
{
	fprintf(stderr, "alloc_test: %s%s%s: %s%s%s\n", path, name ? "/" : "", name ? name : "",
		what ? what : "", what ? ": " : "", strerror(err));
}

/* DIR/NAME, or NULL when out of memory. */
char *join_path(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *p;

	if (asprintf(&p, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name) < 0)
		return NULL;
	return p;
}

/* Decimal only (strtoull alone would take "-1", "0x10" and " 5"); with
 * SUFFIXES also one of K, M, G, T for powers of 1024. */
bool parse_u64(const char *s, bool suffixes, uint64_t *out)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	unsigned shift = 0;
	const char *u;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	if (suffixes && *end) {
		u = strchr(units, toupper((unsigned char)*end));
		if (!u)
			return false;
		shift = 10 * (unsigned)(u - units + 1);
		end++;
	}
	if (*end || (shift && v > UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

int errno_slot(int err)
{
	return err > 0 && err < ERRNO_SLOTS ? err : 0;
}

const char *errno_name(int slot, char *buf, size_t size)
{
	const char *name = slot ? strerrorname_np(slot) : NULL;

	if (name)
		return name;
	if (!slot)
		return "EUNKNOWN";
	snprintf(buf, size, "E%d", slot);
	return buf;
}

/* One operation: ERR is 0 or the errno of the failed syscall; SHRT marks a
 * write that wrote BYTES < the requested length. */
void count_op(struct counts *c, int err, uint64_t bytes, bool shrt)
{
	c->ops++;
	c->bytes += bytes;
	if (shrt) {
		c->shrt++;
	} else if (!err) {
		c->ok++;
	} else if (err == ENOSPC) {
		c->enospc++;
	} else {
		c->other++;
		c->err[errno_slot(err)]++;
	}
}

void add_counts(struct counts *to, const struct counts *from)
{
	to->ops += from->ops;
	to->ok += from->ok;
	to->enospc += from->enospc;
	to->shrt += from->shrt;
	to->other += from->other;
	to->bytes += from->bytes;
	for (int i = 0; i < ERRNO_SLOTS; i++)
		to->err[i] += from->err[i];
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Remove directory NAME under PARENT_FD with everything in it. Entries are
 * streamed with readdir and removed with *at() calls, so memory does not grow
 * with the number of entries and no path length limit applies; only one
 * directory stream is open per level (our tree has two levels).
 * PARENT_PATH is for messages. Returns 0, or -1 after printing why.
 */
int remove_tree(int parent_fd, const char *parent_path, const char *name)
{
	char *path = join_path(parent_path, name);
	struct dirent *e;
	struct stat st;
	int fd, rc = 0;
	bool is_dir;
	DIR *d;

	if (!path) {
		note("%s/%s: out of memory", parent_path, name);
		return -1;
	}
	fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		errmsg(path, NULL, "open", errno);
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	for (;;) {
		errno = 0;
		e = readdir(d);
		if (!e) {
			if (errno) {
				errmsg(path, NULL, "readdir", errno);
				rc = -1;
			}
			break;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		is_dir = e->d_type == DT_DIR;
		if (e->d_type == DT_UNKNOWN && !fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			is_dir = S_ISDIR(st.st_mode);
		if (is_dir) {
			if (remove_tree(fd, path, e->d_name))
				rc = -1;
		} else if (unlinkat(fd, e->d_name, 0)) {
			errmsg(path, e->d_name, "unlink", errno);
			rc = -1;
		}
	}
	closedir(d);
	if (!rc && unlinkat(parent_fd, name, AT_REMOVEDIR)) {
		errmsg(path, NULL, "rmdir", errno);
		rc = -1;
	}
	free(path);
	return rc;
}
