/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exact accounting of FS_MSG warnings per (filesystem, warning type).
 *
 * The kernel numbers the warnings of one type on one filesystem (COUNT,
 * cumulative since mount) and says how many it rate-limited since the last
 * message it sent (SUPPRESSED). With nothing lost, consecutive messages
 * satisfy count = previous + suppressed + 1 (count = previous + suppressed
 * for a summary, which carries no warning of its own); anything beyond
 * that is a warning fsmsg missed. The table is bounded: keys are filesystems × types,
 * and once @max_keys are tracked further keys are not (and counted).
 *
 * The same table holds the Prometheus series of each key (metrics.h): one
 * hash table of (filesystem, type) for the accounting and the metrics. A
 * key may have series and no accounting state yet (a filesystem the
 * metrics saw in a dump before any message), and keeps its accounting
 * state when its series are dropped.
 */
#ifndef FSMSG_ACCOUNTING_H
#define FSMSG_ACCOUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fsm_key {
	uint32_t major;
	uint32_t minor;
	uint32_t warning;
};

struct fsm_acct;

/*
 * A series of the metrics file (see metrics.h), kept in the table under
 * its key: a list, since a key can have series of other labels (another
 * filesystem on the same device number, a renamed device). One allocation
 * with its label values.
 */
struct fsm_series {
	struct fsm_series *next;	/* same key, other labels */
	uint32_t major;
	uint32_t minor;
	uint32_t warning;
	/* Rendered (escaped) label values, in text[]; uuid is "" when the
	 * filesystem has none. */
	const char *device;
	const char *fstype;
	const char *uuid;
	uint64_t count;		/* the kernel's cumulative count */
	uint64_t last_ns;	/* latest warning, CLOCK_REALTIME; 0: none */
	bool gone;		/* not in the kernel's latest list */
	char text[];
};

#define FSM_ACCT_DEFAULT_MAX_KEYS 65536

/*
 * How much newer than anything known a warning must be for a lower count
 * to mean "mounted again". The margin absorbs a message that was queued
 * before a dump but stamped a little after the counter's LAST (clock reads
 * on two CPUs); a remount takes far longer than this.
 */
#define FSM_REMOUNT_MARGIN_NS 100000000ULL

/* @ts_ns is clearly newer than @known_ns: both known, beyond the margin. */
bool fsm_remounted(uint64_t ts_ns, uint64_t known_ns);

struct fsm_acct *fsm_acct_new(size_t max_keys);
/* Frees the series in it too. */
void fsm_acct_free(struct fsm_acct *a);
/* Keys in the table, with accounting state or series or both. */
size_t fsm_acct_size(const struct fsm_acct *a);
/* Keys that could not be tracked because the table was full. */
uint64_t fsm_acct_untracked(const struct fsm_acct *a);
/* Last known count of @k; false when the key is not tracked. */
bool fsm_acct_get(const struct fsm_acct *a, const struct fsm_key *k,
		  uint64_t *count);

/*
 * The severity of the latest message of a tracked key (0: none seen), so
 * that a missed-warning report can be filtered as its messages are.
 */
void fsm_acct_set_severity(struct fsm_acct *a, const struct fsm_key *k,
			   uint32_t severity);
uint32_t fsm_acct_severity(const struct fsm_acct *a, const struct fsm_key *k);

/*
 * Seed from the dump taken right after subscribing: warnings up to @count
 * happened before fsmsg listened, or are still queued on its socket.
 * Returns 0, or -1 when the key cannot be tracked.
 */
int fsm_acct_seed(struct fsm_acct *a, const struct fsm_key *k,
		  uint64_t count, uint64_t last_ns);

/*
 * Resynchronise from a dump taken after a socket overrun: *missed is how
 * far the kernel's count is ahead of the last known count (a key not seen
 * before started from 0, since its filesystem appeared after the seed).
 */
int fsm_acct_sync(struct fsm_acct *a, const struct fsm_key *k,
		  uint64_t count, uint64_t last_ns, uint64_t *missed);

/*
 * A delivered message: *missed is the number of warnings lost between the
 * previous known count and this message. A message whose count is not
 * above the last known one was already counted (queued before the seed or
 * resync dump) and leaves the state alone, unless its timestamp is newer
 * than anything known: then the filesystem was mounted again and its
 * counts restarted. @ts_ns is 0 when the message had no TIMESTAMP.
 */
int fsm_acct_event(struct fsm_acct *a, const struct fsm_key *k,
		   uint64_t count, uint64_t suppressed, uint64_t ts_ns,
		   uint64_t *missed);
/*
 * The same for a summary, which reports held-back warnings only: it
 * expects count = previous + suppressed (no warning of its own).
 */
int fsm_acct_summary(struct fsm_acct *a, const struct fsm_key *k,
		     uint64_t count, uint64_t suppressed, uint64_t ts_ns,
		     uint64_t *missed);

/*
 * The list of series of @k: the address of its head, or NULL when @k is
 * not in the table and @create is false, or cannot be added (full: not
 * counted as untracked, the metrics count their own; out of memory).
 * The address is valid until the table next changes.
 */
struct fsm_series **fsm_acct_series(struct fsm_acct *a,
				    const struct fsm_key *k, bool create);

/*
 * Walk the keys that have series, in no order: *@pos starts at 0; returns
 * the address of the next key's list head, NULL at the end. The series
 * may be changed and unlinked during the walk, the table not.
 */
struct fsm_series **fsm_acct_next_series(struct fsm_acct *a, size_t *pos);

/*
 * Remove the keys that have neither accounting state nor series left.
 * Returns 0, or -1 when out of memory (then nothing was removed).
 */
int fsm_acct_prune(struct fsm_acct *a);

#endif
