/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What fsmsg does with the messages it receives, independent of sockets:
 * parse, account, filter, format and write events, missed-warning reports
 * and the --list output. main.c feeds it from netlink; the unit tests feed
 * it crafted messages and read what it wrote.
 */
#ifndef FSMSG_MONITOR_H
#define FSMSG_MONITOR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "accounting.h"
#include "event.h"
#include "filter.h"
#include "format.h"
#include "journal.h"
#include "metrics.h"
#include "mounts.h"

/* Receives a finished line (no newline) for syslog; prio is a LOG_* value. */
typedef void (*fsm_log_fn)(void *arg, int prio, const char *line);
/* Receives a structured entry for the journal (see journal.h). */
typedef void (*fsm_sink_fn)(void *arg, const struct fsm_fields *entry);

struct fsm_monitor {
	/* Set by the caller before fsm_monitor_init(). */
	bool json;
	FILE *out;		/* events and --list; NULL: not written */
	FILE *err;		/* diagnostics; NULL: not written */
	fsm_log_fn log;		/* NULL: no syslog */
	void *log_arg;
	fsm_sink_fn sink;	/* NULL: no journal */
	void *sink_arg;
	/* The metrics file, owned by the caller; NULL: none. Its series
	 * live in @acct (fsm_metrics_share). */
	struct fsm_metrics *metrics;
	const struct fsm_filter *filter;	/* required */
	/* Where each filesystem is mounted, for every output; owned by the
	 * caller. NULL: no mount points (null in JSON, - in text). */
	struct fsm_mounts *mounts;
	int family;		/* resolved family id, 0: any */
	uint64_t max_events;	/* --count, 0: no limit */
	/* --receive-time: the receive time of each message is added to its
	 * event line (stdout and syslog) and journal entry. */
	bool received;

	/* State. */
	struct fsm_acct *acct;
	struct fsm_buf buf;
	uint64_t events;	/* warnings written (what --count counts) */
	uint64_t summaries;	/* summaries written */
	uint64_t invalid;	/* malformed messages skipped */
	uint64_t missed;	/* warnings reported missed */
	uint64_t overruns;
	uint64_t rejected;	/* messages not sent by the kernel, ignored */
	uint64_t rejected_unsaid;	/* of those, not reported yet */
	uint64_t rejected_said_ns;	/* when last reported (now_ns clock) */
	uint32_t rejected_port;	/* port id of the latest one */
	bool done;		/* --count reached */
	bool acct_full_reported;
	bool metrics_full_reported;
	struct fsm_fields fields;	/* the journal entry being built */
	int write_errno;	/* set when writing to @out failed */
};

/* A growable list of owned dump rows. */
struct fsm_fs_list {
	struct fsm_fs *v;
	size_t n;
	size_t cap;
};

void fsm_fs_list_free(struct fsm_fs_list *l);
/*
 * Parse a dump reply and keep a copy. Returns 0 (added or not a reply),
 * FSM_PARSE_INVALID with @err set, or -2 when out of memory.
 */
int fsm_fs_list_add(struct fsm_fs_list *l, const void *buf, size_t len,
		    int family, struct fsm_error *err);

int fsm_monitor_init(struct fsm_monitor *m);
void fsm_monitor_fini(struct fsm_monitor *m);

/* "fsmsg: <message>" on @err and <message> to syslog or the journal. */
void fsm_monitor_report(struct fsm_monitor *m, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* <message> to syslog or the journal only (start and stop notices). */
void fsm_monitor_log(struct fsm_monitor *m, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * One message from the event socket, received at @now_ns (CLOCK_REALTIME;
 * with m->received, read right after the recvmsg() that returned it, as
 * it is shown). Invalid ones are reported and skipped. Returns 0, or -1
 * when writing the output failed (write_errno).
 */
int fsm_monitor_message(struct fsm_monitor *m, const void *buf, size_t len,
			uint64_t now_ns);

/*
 * Whether a received message comes from the kernel: its netlink source
 * address (recvmsg()'s msg_name, libnl's nlmsg_get_src()) has port id 0.
 * The nlmsg_pid header field proves nothing, a sender sets it freely;
 * and any process with CAP_NET_ADMIN may send to the multicast group.
 * Anything else is counted as rejected (and in the metrics) and said on
 * @err and syslog: the first at once, later ones at most once every
 * FSM_REJECTED_REPORT_NS as a tally. The caller drops the message.
 */
#define FSM_REJECTED_REPORT_NS (60ULL * 1000000000ULL)
bool fsm_monitor_from_kernel(struct fsm_monitor *m, uint32_t portid,
			     uint64_t now_ns);
/* Say the rejected messages not reported yet, if any (at exit). */
void fsm_monitor_rejected_flush(struct fsm_monitor *m);

/* Seed the counts (and the metrics) from the dump taken right after
 * subscribing. */
void fsm_monitor_seed(struct fsm_monitor *m, const struct fsm_fs_list *l);

/*
 * A later dump for the metrics only: counts the kernel has that no message
 * brought yet (warnings it holds back by rate limiting), filesystems
 * mounted since, and those no longer mounted, whose series go once the
 * file was written (fsm_metrics_written). The accounting of missed
 * warnings is left alone.
 */
void fsm_monitor_refresh(struct fsm_monitor *m, const struct fsm_fs_list *l);

/* The socket overran: say so (the caller then dumps, drains, resyncs). */
void fsm_monitor_overrun(struct fsm_monitor *m);

/* Report what the kernel counted beyond what fsmsg saw. Returns 0 or -1. */
int fsm_monitor_resync(struct fsm_monitor *m, const struct fsm_fs_list *l,
		       uint64_t now_ns);

/* --list: write the filtered rows as a table or JSON lines. 0 or -1. */
int fsm_monitor_list(struct fsm_monitor *m, const struct fsm_fs_list *l);

#endif
