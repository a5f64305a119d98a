/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Prometheus metrics of --prometheus-textfile: one series per
 * (filesystem, warning type) holding the kernel's cumulative count and the
 * time of the latest warning, plus fsmsg's own counters; rendered in the
 * text exposition format (0.0.4) for node_exporter's textfile collector,
 * and written atomically. No global state.
 *
 * A series is identified by its rendered labels: dev (MAJ:MIN), device,
 * fstype, uuid and warning. Series live in the accounting's hash table,
 * under their (filesystem, type) key (accounting.h): one table for both,
 * sorted only when the file is rendered. A series is kept while its
 * filesystem is in the kernel's list (a Prometheus counter must not
 * disappear or go backwards); once a dump no longer lists it (unmounted),
 * the file is written once more with its final values, and again without
 * it. A different filesystem later mounted on the same
 * device number gets series of its own.
 */
#ifndef FSMSG_METRICS_H
#define FSMSG_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accounting.h"
#include "event.h"
#include "format.h"
#include "mounts.h"

#define FSM_METRICS_DEFAULT_MAX_SERIES 65536

/* What identifies a series, before rendering. Strings may be NULL (""). */
struct fsm_labels {
	uint32_t major;
	uint32_t minor;
	uint32_t warning;
	const char *fstype;
	const char *device;
	bool has_uuid;
	uint8_t uuid[FSM_UUID_LEN];
};

struct fsm_metrics {
	/* The table the series live in: the monitor's, shared once it
	 * observes (fsm_metrics_share), else one of its own made on the
	 * first observation. NULL: no series yet. */
	struct fsm_acct *acct;
	bool own_acct;
	size_t n;		/* series */
	size_t max;
	uint64_t untracked;	/* observations of series beyond @max */
	uint64_t start_ns;	/* fsmsg_start_time_seconds */
	uint64_t overruns;	/* fsmsg_overruns_total */
	uint64_t missed;	/* fsmsg_missed_warnings_total */
	uint64_t rejected;	/* fsmsg_rejected_messages_total */
	bool changed;		/* since the caller last cleared it */
	/* Where filesystems are mounted, for fsmsg_filesystem_info; set by
	 * the caller, only read (never re-read) when rendering. NULL: no
	 * such family in the file. */
	const struct fsm_mounts *mounts;
	struct fsm_buf key[3];	/* scratch: rendered device, fstype, uuid */
};

void fsm_metrics_init(struct fsm_metrics *m, uint64_t start_ns, size_t max);
/* Frees its table if it is its own; a shared one is the monitor's. */
void fsm_metrics_free(struct fsm_metrics *m);

/*
 * Keep the series in @acct (the monitor's table, which then owns them)
 * from now on. A table of its own is freed with its series, which are
 * then lost: share before the first observation.
 */
void fsm_metrics_share(struct fsm_metrics *m, struct fsm_acct *acct);

/*
 * The kernel says the count of @l is @count, its latest warning at @ts_ns
 * (0: unknown). The series is created if new. Its count only grows
 * (messages queued before a dump carry older counts), except when a lower
 * count comes with a clearly newer timestamp: the filesystem was mounted
 * again and the kernel's count restarted, a counter reset Prometheus
 * handles. Returns 0, or -1 when the series cannot be tracked (full, or
 * out of memory).
 */
int fsm_metrics_observe(struct fsm_metrics *m, const struct fsm_labels *l,
			uint64_t count, uint64_t ts_ns);

/*
 * The kernel's list of mounted filesystems is @rows (a complete dump):
 * the series of a filesystem not in it (same device number and the same
 * device, fstype and uuid labels) are marked gone; a later observation of
 * theirs unmarks them. Marking one sets @changed: the next file has
 * their final values. Returns 0, or -1 when out of memory (nothing marked).
 */
int fsm_metrics_mounted(struct fsm_metrics *m, const struct fsm_fs *rows,
			size_t n);

/*
 * The file rendered last was written: drop the series marked gone (their
 * final values are in it), and the table keys left with nothing. Dropping
 * sets @changed: the next file leaves them out.
 */
void fsm_metrics_written(struct fsm_metrics *m);

/* The series of @l, or NULL. (Not const: it renders into m->key.) */
const struct fsm_series *fsm_metrics_find(struct fsm_metrics *m,
					  const struct fsm_labels *l);

/* A label value as the exposition format quotes it (without the quotes):
 * \ " and newline escaped, bytes that are not UTF-8 written as \xNN. */
int fsm_prom_label_value(struct fsm_buf *b, const char *s);

/*
 * The whole file, the series sorted by device number, warning type, uuid,
 * fstype and device. With @m->mounts, the family fsmsg_filesystem_info
 * too: for each filesystem with series (not gone) and each of its mount
 * points in the table, by mount id,
 *   fsmsg_filesystem_info{dev="254:16",device="/dev/vdb",fstype="ext4",
 *                         uuid="...",mountpoint="/srv"} 1
 * where device is mountinfo's source of that mount (node_exporter's
 * device label) and mountpoint the path as mountinfo has it, unescaped:
 * the labels node_exporter's node_filesystem_* series have. A filesystem
 * mounted nowhere fsmsg can see has none. Returns 0, or -1 when out of
 * memory.
 */
int fsm_metrics_render(const struct fsm_metrics *m, struct fsm_buf *b);

/*
 * Replace @path atomically with @len bytes of @data: a temporary file
 * "@path.tmp.XXXXXX" in the same folder, written, flushed to disk, made
 * 0644, renamed over @path. Readers see the old file or the new one, never
 * a part. Returns 0, or -1 with errno set and *@stage naming the step that
 * failed; the temporary file is removed then.
 */
int fsm_write_atomic(const char *path, const void *data, size_t len,
		     const char **stage);

/*
 * Check at start that @path (absolute) can be a metrics file: its folder
 * exists and is writable, and @path is not a folder. Returns 0, or -1
 * with a sentence in @err.
 */
int fsm_textfile_check(const char *path, struct fsm_error *err);

/* Remove "@path.tmp.*" files left by a crashed run. Returns how many. */
int fsm_textfile_cleanup(const char *path);

#endif
