/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mount table: the mount points of each filesystem, by device number,
 * for every output. No global state.
 */
#ifndef FSMSG_MOUNTS_H
#define FSMSG_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "filter.h"

/*
 * The mountinfo file fsmsg reads: $FSMSG_MOUNTINFO when set and not empty
 * (the tests' fake), else /proc/self/mountinfo.
 */
const char *fsm_mountinfo_path(void);

/*
 * The mount table: every mount of mountinfo by device number (field 3,
 * the superblock's: btrfs's anonymous 0:N too), then mount id, read once
 * and cached. Re-read when marked stale (poll() on its fd says POLLPRI:
 * the mounts changed) and when a device is not in it, at most once every
 * FSM_MOUNTS_MISS_NS of the callers' clock for the latter.
 */
#define FSM_MOUNTS_MISS_NS 1000000000ULL
struct fsm_mount_row {
	uint32_t major;
	uint32_t minor;
	unsigned long long id;
	char *source;
};
struct fsm_mounts {
	char *path;		/* the mountinfo file */
	struct fsm_mount_row *rows;	/* sorted by major, minor, id */
	char **paths;		/* rows[i]'s mount point, unescaped */
	size_t n;
	bool loaded;		/* read at least once (or tried) */
	bool stale;		/* re-read before the next lookup */
	bool have_miss;
	uint64_t miss_ns;	/* when last re-read for a device not found */
	int fd;			/* open for poll(), or -1 */
	uint64_t generation;	/* bumped by every read that changed it */
};

/* Returns 0, or -1 when out of memory. @path is copied. */
int fsm_mounts_init(struct fsm_mounts *t, const char *path);
void fsm_mounts_free(struct fsm_mounts *t);
/* (Re-)read the file now. 0, or -1 when it cannot be read or memory runs
 * out: the table is then empty (every mount point unknown). */
int fsm_mounts_load(struct fsm_mounts *t);
/* Open the file for poll(POLLPRI) (t->fd); the fd, or -1 with errno. */
int fsm_mounts_watch(struct fsm_mounts *t);
/* The poll() revents of t->fd: POLLPRI or POLLERR mark the table stale. */
void fsm_mounts_polled(struct fsm_mounts *t, short revents);
/* The mount points of @major:@minor, into @out (n 0: none). Loads the
 * table first if never read or stale, and re-reads it once when the
 * device is not in it (unless it did so less than FSM_MOUNTS_MISS_NS
 * before @now_ns). */
void fsm_mounts_find(struct fsm_mounts *t, uint32_t major, uint32_t minor,
		     uint64_t now_ns, struct fsm_mnts *out);
/* The same from the table as it is, never reading the file. */
void fsm_mounts_lookup(const struct fsm_mounts *t, uint32_t major,
		       uint32_t minor, struct fsm_mnts *out);

#endif
