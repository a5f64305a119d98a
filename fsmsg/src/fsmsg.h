/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsmsg's program: what its files share.  main.c ties them together:
 * options.c parses the command line, kernel.c talks to the FS_MSG family
 * (sockets, subscription, dumps, the kernel filter), daemon.c is the
 * pidfile, detaching, signals and the --timeout timer.  What happens to
 * a message is in monitor.c.
 */
#ifndef FSMSG_FSMSG_H
#define FSMSG_FSMSG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <netlink/netlink.h>

#include "monitor.h"

#ifndef FSMSG_WITH_SYSTEMD
#define FSMSG_WITH_SYSTEMD 0
#endif

#ifndef FSMSG_VERSION
#define FSMSG_VERSION "1.0.0"
#endif

#define RATELIMIT_SYSCTL "/proc/sys/fs/fs_msg/ratelimit_interval_ms"

#define NSEC 1000000000ULL
/* The metrics file: rewritten at most once a second when something
 * changed; after a failed write, not before ten seconds; refreshed from
 * the kernel's counters and rewritten every minute whatever happened,
 * so that its age tells whether fsmsg runs. */
#define METRICS_MIN_INTERVAL_NS	(1 * NSEC)
#define METRICS_RETRY_NS	(10 * NSEC)
#define METRICS_PERIOD_NS	(60 * NSEC)

/* Room for a burst: each queued skb costs ~1 KiB of receive buffer. */
#define RCVBUF_BYTES (4 << 20)		/* default of --rcvbuf */
#define RCVBUF_MIN (64 << 10)		/* a burst of warnings, at least */
#define RCVBUF_MAX (1 << 30)		/* the kernel caps at INT_MAX / 2 */

/* Datagrams read per wake-up before signals get another look. */
#define BATCH 64

enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,
	EXIT_RUNTIME = 2,
	EXIT_TIMEOUT = 3,
	EXIT_NO_FAMILY = 4,	/* the kernel has no FS_MSG family */
};

/* Long options without a short one. */
enum {
	OPT_JOURNAL = 0x100,
	OPT_TEXTFILE,
	OPT_SEVERITY,
	OPT_RCVBUF,
};

/* Values of one key a kernel filter takes (FS_MSG_CMD_NOTIFY_FILTER_SET). */
#define KFILTER_MAX_VALUES 16
/* Longest type name it takes (the spec's max-len of FILTER_FSTYPE). */
#define KFILTER_FSTYPE_MAX 31

struct options {
	bool foreground;
	bool json;
	bool list;
	bool syslog;
	bool journal;
	bool quiet;
	bool receive_time;	/* --receive-time */
	uint64_t count;		/* 0: unlimited */
	int rcvbuf;		/* --rcvbuf, bytes */
	bool has_timeout;
	struct timespec timeout;
	char *pidfile;		/* absolute, malloc()ed */
	char *textfile;		/* --prometheus-textfile, absolute, malloc()ed */
	struct fsm_filter filter;
};

struct app {
	struct options opt;
	struct fsm_monitor mon;
	struct nl_sock *ev;	/* subscribed to FS_MSG/events */
	struct nl_sock *dump;	/* requests (FS_GET dumps) */
	int family;
	int sigfd;
	int timerfd;
	bool overrun;		/* ENOBUFS seen, resync pending */
	bool fatal;		/* writing output failed */
	bool pidfile_written;	/* ours: locked, to be removed at exit */
	int pidfd;		/* the pidfile, flock()ed for the lifetime */
	struct fsm_fs_list *rows;	/* dump in progress */
	bool rows_oom;
	bool activity;		/* messages arrived since the loop last looked */

	/* --prometheus-textfile; times are CLOCK_MONOTONIC ns. */
	struct fsm_metrics metrics;
	struct fsm_buf prom;	/* the file's contents */
	int tickfd;		/* when to refresh or rewrite */
	uint64_t next_write;	/* no rewrite before */
	uint64_t settle_at;	/* refresh then, 0: not planned */
	uint64_t periodic_at;	/* next periodic refresh and rewrite */
	uint64_t settle_ns;	/* from the last message to the refresh */
	bool heartbeat_due;	/* rewrite even if nothing changed */
	const char *werr_stage;	/* the write error last reported */
	int werr_errno;
	int rerr;		/* the refresh error last reported */

	/* Where filesystems are mounted (mountinfo), for every output. */
	struct fsm_mounts mounts;

	/* --journal */
	int journal_errno;	/* the error last reported, 0: none */
	unsigned long journal_failures;
};

/* main.c */
void oom(void) __attribute__((noreturn));
uint64_t now_ns(void);
void say(struct app *app, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void notify_ready(struct app *app);

/* options.c */
void parse_options(int argc, char **argv, struct options *o);

/* kernel.c */
void kernel_subscribe(struct app *app);
void kernel_seed(struct app *app);
int kernel_list(struct app *app);
int kernel_dump(struct app *app, struct fsm_fs_list *rows);

/* daemon.c */
int lock_pidfile(struct app *app);
int write_pidfile(struct app *app);
void pidfile_cleanup(void);
int listening(struct app *app);
void daemonize(struct app *app);
int setup_signals(void);
int setup_timer(const struct timespec *timeout);

#endif /* FSMSG_FSMSG_H */
