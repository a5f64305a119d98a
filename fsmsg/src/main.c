// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsmsg - report filesystem "out of space" warnings from the FS_MSG
 * generic netlink family.
 *
 * The event loop and what ties the program's files together (fsmsg.h);
 * what happens to a message is in monitor.c.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <netlink/netlink.h>

#include "fsmsg.h"

#if FSMSG_WITH_SYSTEMD
/* CODE_FILE/LINE/FUNC would always name the sink: leave them out. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#endif

void oom(void)
{
	fputs("fsmsg: out of memory\n", stderr);
	exit(EXIT_RUNTIME);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}


/* Errors before the daemon detaches go to the terminal; after, to syslog
 * or the journal. */
void say(struct app *app, int prio, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fsm_monitor_report(&app->mon, prio, "%s", line);
}

static void syslog_line(void *arg, int prio, const char *line)
{
	(void)arg;
	syslog(prio, "%s", line);
}

#if FSMSG_WITH_SYSTEMD
static void journal_sink(void *arg, const struct fsm_fields *entry)
{
	struct app *app = arg;
	struct iovec iov[FSM_FIELDS_MAX];
	size_t n = fsm_fields_iovec(entry, iov);
	int r;

	if (!n)
		return;
	r = sd_journal_sendv(iov, (int)n);
	if (r >= 0) {
		app->journal_errno = 0;
		return;
	}
	app->journal_failures++;
	if (-r == app->journal_errno)
		return;		/* said already */
	app->journal_errno = -r;
	/* Not through the monitor, which would come back here. */
	if (app->mon.err) {
		fprintf(app->mon.err, "fsmsg: cannot log to the systemd journal: %s\n",
			strerror(-r));
		fflush(app->mon.err);
	} else {
		syslog(LOG_ERR, "cannot log to the systemd journal: %s",
		       strerror(-r));
	}
}
#endif

/*
 * READY=1 to systemd (Type=notify) once subscribed, seeded and the
 * readiness line said; nothing without NOTIFY_SOCKET, or in a build
 * without libsystemd. A failure is said, not fatal: fsmsg works anyway,
 * and systemd times the start out.
 */
void notify_ready(struct app *app)
{
#if FSMSG_WITH_SYSTEMD
	int r = sd_notify(0, "READY=1");

	if (r < 0)
		say(app, LOG_WARNING, "cannot notify systemd of readiness: %s",
		    strerror(-r));
#else
	(void)app;
#endif
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLERR));
}

/* One nl_recvmsgs() round on the event socket. */
static int receive(struct app *app)
{
	int err = nl_recvmsgs_default(app->ev);

	/* libnl turns ENOBUFS (the kernel dropped messages for us) into
	 * -NLE_NOMEM. */
	if (err == -NLE_NOMEM) {
		app->overrun = true;
		return 0;
	}
	if (err < 0 && err != -NLE_AGAIN && err != -NLE_INTR) {
		say(app, LOG_ERR, "receiving FS_MSG events failed: %s",
		    nl_geterror(err));
		app->fatal = true;
		return -1;
	}
	return 0;
}

/*
 * How long after the last message the kernel may still hold back warnings
 * it will only report with the next one: its rate limit interval (at least
 * a second), plus a second. Capped by the periodic refresh anyway.
 */
static uint64_t settle_ns(void)
{
	unsigned long long ms = 1000;
	FILE *fp = fopen(RATELIMIT_SYSCTL, "re");

	if (fp) {
		if (fscanf(fp, "%llu", &ms) != 1 || ms < 1000)
			ms = 1000;
		fclose(fp);
	}
	if (ms > METRICS_PERIOD_NS / 1000000)
		ms = METRICS_PERIOD_NS / 1000000;
	return ms * 1000000ULL + NSEC;
}

/* Rewrite the metrics file now. A failure is said once per distinct
 * error, and retried later; fsmsg goes on. */
static void write_metrics(struct app *app)
{
	const char *stage = "cannot render the metrics";
	uint64_t t = mono_ns();
	int e = ENOMEM;

	fsm_buf_reset(&app->prom);
	/* The info series render the table as it is: read it first if it
	 * never was or the mounts changed since. */
	if (!app->mounts.loaded || app->mounts.stale)
		fsm_mounts_load(&app->mounts);
	if (fsm_metrics_render(&app->metrics, &app->prom) == 0) {
		if (fsm_write_atomic(app->opt.textfile, fsm_buf_str(&app->prom),
				     app->prom.len, &stage) == 0) {
			if (app->werr_stage)
				say(app, LOG_INFO, "metrics file %s: written again",
				    app->opt.textfile);
			app->werr_stage = NULL;
			app->werr_errno = 0;
			app->metrics.changed = false;
			fsm_metrics_written(&app->metrics);
			app->heartbeat_due = false;
			app->next_write = t + METRICS_MIN_INTERVAL_NS;
			return;
		}
		e = errno;
	}
	if (stage != app->werr_stage || e != app->werr_errno)
		say(app, LOG_ERR, "metrics file %s: %s: %s", app->opt.textfile,
		    stage, strerror(e));
	app->werr_stage = stage;
	app->werr_errno = e;
	app->next_write = t + METRICS_RETRY_NS;
}

/* Re-read the kernel's counters into the metrics (not the accounting). */
static void refresh(struct app *app)
{
	struct fsm_fs_list rows = { 0 };
	int err = kernel_dump(app, &rows);

	if (err < 0) {
		if (err != app->rerr)
			say(app, LOG_WARNING, "cannot re-read the kernel's counters for the metrics file: %s",
			    nl_geterror(err));
		app->rerr = err;
	} else {
		app->rerr = 0;
		fsm_monitor_refresh(&app->mon, &rows);
	}
	fsm_fs_list_free(&rows);
	app->settle_ns = settle_ns();
}

/* The metrics timer fired (or the loop looks anyway). */
static void tick(struct app *app)
{
	uint64_t expirations, t = mono_ns();
	bool periodic = t >= app->periodic_at;

	if (read(app->tickfd, &expirations, sizeof(expirations)) < 0) {
		/* EAGAIN: nothing pending, which is fine. */
	}
	if (periodic || (app->settle_at && t >= app->settle_at)) {
		app->settle_at = 0;
		if (periodic) {
			app->periodic_at = t + METRICS_PERIOD_NS;
			app->heartbeat_due = true;
		}
		refresh(app);
	}
	if ((app->metrics.changed || app->heartbeat_due) && t >= app->next_write)
		write_metrics(app);
}

/* Set the metrics timer to the next thing to do. */
static void arm(struct app *app)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	uint64_t next = app->periodic_at;

	if (app->activity) {
		app->activity = false;
		app->settle_at = mono_ns() + app->settle_ns;
	}
	if (app->settle_at && app->settle_at < next)
		next = app->settle_at;
	if ((app->metrics.changed || app->heartbeat_due) && app->next_write < next)
		next = app->next_write;
	if (!next)
		next = 1;	/* 0 would disarm it; 1 ns is long past */
	its.it_value.tv_sec = (time_t)(next / NSEC);
	its.it_value.tv_nsec = (long)(next % NSEC);
	if (timerfd_settime(app->tickfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		say(app, LOG_ERR, "cannot set the metrics timer: %s", strerror(errno));
}

/* --prometheus-textfile at start: check the folder, clear leftovers. */
static int metrics_start(struct app *app)
{
	const char *path = app->opt.textfile;
	size_t len = strlen(path);
	struct fsm_error err;

	if (fsm_textfile_check(path, &err) < 0) {
		say(app, LOG_ERR, "%s", err.msg);
		return -1;
	}
	if (len < 5 || strcmp(path + len - 5, ".prom"))
		say(app, LOG_WARNING, "metrics file %s: node_exporter's textfile collector only reads files whose name ends in .prom",
		    path);
	fsm_textfile_cleanup(path);
	app->mon.metrics = &app->metrics;
	app->settle_ns = settle_ns();
	return 0;
}

static bool stop(const struct app *app)
{
	return app->fatal || app->mon.done;
}

/*
 * After an overrun: dump the kernel's counters, read what is still queued
 * (those messages are older than the dump, and are events like any), then
 * whatever the dump counts beyond the last known counts was lost.
 */
static void resync(struct app *app)
{
	struct fsm_fs_list rows = { 0 };
	int err;

	app->overrun = false;
	fsm_monitor_overrun(&app->mon);
	err = kernel_dump(app, &rows);
	if (err < 0) {
		say(app, LOG_ERR, "overrun: cannot read the kernel's counters (%s): the number of missed warnings is unknown",
		    nl_geterror(err));
		fsm_fs_list_free(&rows);
		return;
	}
	while (!stop(app) && readable(nl_socket_get_fd(app->ev))) {
		if (readable(app->sigfd))
			goto out;	/* exiting anyway */
		if (receive(app) < 0)
			goto out;
	}
	if (!stop(app) && fsm_monitor_resync(&app->mon, &rows, now_ns()) < 0)
		app->fatal = true;
out:
	fsm_fs_list_free(&rows);
}

static int run(struct app *app)
{
	struct pollfd pfd[5];
	nfds_t n = 2;
	int ti = -1, ki = -1;	/* --timeout timer, metrics timer */
	int mi = -1;		/* mountinfo: POLLPRI when the mounts change */

	pfd[0] = (struct pollfd){ .fd = app->sigfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = nl_socket_get_fd(app->ev), .events = POLLIN };
	if (app->timerfd >= 0) {
		ti = (int)n;
		pfd[n++] = (struct pollfd){ .fd = app->timerfd, .events = POLLIN };
	}
	if (app->tickfd >= 0) {
		ki = (int)n;
		pfd[n++] = (struct pollfd){ .fd = app->tickfd, .events = POLLIN };
		arm(app);
	}
	/* Without it (no /proc) the table is still re-read for a device it
	 * does not have. */
	if (fsm_mounts_watch(&app->mounts) >= 0) {
		mi = (int)n;
		pfd[n++] = (struct pollfd){ .fd = app->mounts.fd, .events = POLLPRI };
	}

	while (!stop(app)) {
		int ret = poll(pfd, n, app->overrun ? 0 : -1);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			say(app, LOG_ERR, "poll: %s", strerror(errno));
			return EXIT_RUNTIME;
		}
		if (pfd[0].revents) {
			struct signalfd_siginfo si;

			if (read(app->sigfd, &si, sizeof(si)) == sizeof(si))
				fsm_monitor_log(&app->mon, LOG_INFO, "exiting on %s",
						si.ssi_signo == SIGINT ? "SIGINT" :
						si.ssi_signo == SIGHUP ? "SIGHUP" : "SIGTERM");
			return EXIT_OK;
		}
		if (ti >= 0 && pfd[ti].revents)
			return app->opt.count ? EXIT_TIMEOUT : EXIT_OK;
		if (mi >= 0 && pfd[mi].revents) {
			uint64_t gen = app->mounts.generation;

			fsm_mounts_polled(&app->mounts, pfd[mi].revents);
			/* The metrics file names mount points: rewrite it
			 * when they changed (the timer is armed below). */
			if (app->opt.textfile && app->mounts.stale) {
				fsm_mounts_load(&app->mounts);
				if (app->mounts.generation != gen)
					app->metrics.changed = true;
			}
			/* A file that cannot be polled (POLLNVAL, or not
			 * /proc): stop watching, lookups re-read on a miss. */
			if (pfd[mi].revents & POLLNVAL ||
			    !(pfd[mi].revents & (POLLPRI | POLLERR))) {
				pfd[mi].fd = -1;
			}
		}
		if (pfd[1].revents) {
			for (int i = 0; i < BATCH && !stop(app) && !app->overrun; i++) {
				if (receive(app) < 0 ||
				    !readable(nl_socket_get_fd(app->ev)))
					break;
			}
		}
		if (app->overrun && !stop(app))
			resync(app);
		if (ki >= 0 && !stop(app)) {
			if (pfd[ki].revents)
				tick(app);
			arm(app);
		}
	}
	if (app->fatal) {
		if (app->mon.write_errno)
			say(app, LOG_ERR, "cannot write events: %s",
			    strerror(app->mon.write_errno));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct app app = { .sigfd = -1, .timerfd = -1, .tickfd = -1, .pidfd = -1 };
	bool ran = false;
	int ret;

	fsm_filter_init(&app.opt.filter);
	fsm_metrics_init(&app.metrics, now_ns(), FSM_METRICS_DEFAULT_MAX_SERIES);
	fsm_buf_init(&app.prom);
	parse_options(argc, argv, &app.opt);

	app.mon.json = app.opt.json;
	app.mon.out = stdout;
	app.mon.err = stderr;
	app.mon.filter = &app.opt.filter;
	app.mon.max_events = app.opt.count;
	app.mon.received = app.opt.receive_time;
	if (fsm_mounts_init(&app.mounts, fsm_mountinfo_path()) < 0)
		oom();
	app.mon.mounts = &app.mounts;
	app.metrics.mounts = &app.mounts;
	if (fsm_monitor_init(&app.mon) < 0)
		oom();

	if (app.opt.list) {
		ret = kernel_list(&app);
		goto out;
	}
	/* Before anything can fail, so that a service's failure is logged
	 * where its events go. */
#if FSMSG_WITH_SYSTEMD
	if (app.opt.journal) {
		app.mon.sink = journal_sink;
		app.mon.sink_arg = &app;
	}
#endif
	if (!app.opt.journal && (app.opt.syslog || !app.opt.foreground)) {
		openlog("fsmsg", LOG_PID, LOG_DAEMON);
		app.mon.log = syslog_line;
	}

	if (app.opt.pidfile && lock_pidfile(&app) < 0) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	app.sigfd = setup_signals();
	if (app.sigfd < 0) {
		say(&app, LOG_ERR, "cannot set up signal handling: %s",
		    strerror(errno));
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (app.opt.textfile && metrics_start(&app) < 0) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	/* Everything that can fail does so here, on the terminal. */
	kernel_subscribe(&app);
	kernel_seed(&app);
	if (app.opt.textfile) {
		app.tickfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (app.tickfd < 0) {
			say(&app, LOG_ERR, "cannot set up the metrics timer: %s",
			    strerror(errno));
			ret = EXIT_RUNTIME;
			goto out;
		}
		/* A full disk must not keep fsmsg from reporting it: a
		 * failed write is said, and retried. */
		write_metrics(&app);
		app.periodic_at = mono_ns() + METRICS_PERIOD_NS;
	}

	if (!app.opt.foreground) {
		daemonize(&app);
	} else {
		if (app.opt.pidfile && write_pidfile(&app) < 0) {
			ret = EXIT_RUNTIME;
			goto out;
		}
		if (listening(&app) < 0) {
			ret = EXIT_RUNTIME;
			goto out;
		}
	}

	if (app.opt.has_timeout) {
		app.timerfd = setup_timer(&app.opt.timeout);
		if (app.timerfd < 0) {
			say(&app, LOG_ERR, "cannot set up the timeout: %s",
			    strerror(errno));
			ret = EXIT_RUNTIME;
			goto out;
		}
	}
	ran = true;
	ret = run(&app);
out:
	fsm_monitor_rejected_flush(&app.mon);
	/* The file says what the kernel counted when fsmsg stopped. */
	if (ran && app.opt.textfile) {
		refresh(&app);
		write_metrics(&app);
	}
	pidfile_cleanup();
	if (app.pidfd >= 0)
		close(app.pidfd);
	if (app.ev)
		nl_socket_free(app.ev);
	if (app.dump)
		nl_socket_free(app.dump);
	if (app.sigfd >= 0)
		close(app.sigfd);
	if (app.timerfd >= 0)
		close(app.timerfd);
	if (app.tickfd >= 0)
		close(app.tickfd);
	if (app.mon.log)
		closelog();
	fsm_monitor_fini(&app.mon);
	fsm_mounts_free(&app.mounts);
	fsm_metrics_free(&app.metrics);
	fsm_buf_free(&app.prom);
	fsm_filter_free(&app.opt.filter);
	free(app.opt.pidfile);
	free(app.opt.textfile);
	return ret;
}

