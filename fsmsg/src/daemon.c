// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsmsg as a daemon: the pidfile and its lock, detaching from the
 * terminal, the readiness line (and READY=1 to systemd), signals and the
 * --timeout timer.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "fsmsg.h"

/* The pid another fsmsg wrote to the pidfile (0 if unreadable). */
static long pidfile_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *end;
	long pid;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	errno = 0;
	pid = strtol(buf, &end, 10);
	if (errno || end == buf || pid <= 0 || (*end && *end != '\n'))
		return 0;
	return pid;
}

/*
 * Open and lock the pidfile before anything else can fail, so that a
 * second fsmsg with the same -p stops at once and leaves the file alone.
 * flock(): the lock belongs to the open file, so it survives the
 * daemon's fork and lasts until fsmsg exits.
 */
static struct app *pidfile_app;

/* exit() anywhere after the lock (kernel_subscribe(), daemonize()...) removes
 * the file this fsmsg created or took over; _exit() (the daemon's parent)
 * does not.  main() calls it too, before its app goes out of scope. */
void pidfile_cleanup(void)
{
	struct app *app = pidfile_app;

	if (app && app->pidfile_written) {
		unlink(app->opt.pidfile);
		app->pidfile_written = false;
	}
	pidfile_app = NULL;
}

int lock_pidfile(struct app *app)
{
	const char *path = app->opt.pidfile;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);

	if (fd < 0) {
		say(app, LOG_ERR, "cannot write pidfile %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno;
		long pid = pidfile_pid(fd);

		if (err == EWOULDBLOCK && pid > 0)
			say(app, LOG_ERR, "pidfile %s is locked: fsmsg already runs as pid %ld",
			    path, pid);
		else if (err == EWOULDBLOCK)
			say(app, LOG_ERR, "pidfile %s is locked: another fsmsg already runs",
			    path);
		else
			say(app, LOG_ERR, "cannot lock pidfile %s: %s", path,
			    strerror(err));
		close(fd);
		return -1;
	}
	app->pidfd = fd;
	app->pidfile_written = true;	/* ours now: removed at exit */
	pidfile_app = app;
	if (atexit(pidfile_cleanup) != 0)
		oom();
	return 0;
}

int write_pidfile(struct app *app)
{
	char line[32];
	int len = snprintf(line, sizeof(line), "%ld\n", (long)getpid());

	errno = 0;
	if (ftruncate(app->pidfd, 0) < 0 ||
	    pwrite(app->pidfd, line, (size_t)len, 0) != (ssize_t)len) {
		if (errno == 0)
			errno = EIO;
		say(app, LOG_ERR, "cannot write pidfile %s: %s", app->opt.pidfile,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* Logging "listening" is also the test that the journal takes entries. */
int listening(struct app *app)
{
	unsigned long failures = app->journal_failures;

	fsm_monitor_log(&app->mon, LOG_INFO, "listening: %s/%s",
			FS_MSG_FAMILY_NAME, FS_MSG_MCGRP_EVENTS);
	if (app->journal_failures != failures)
		return -1;	/* the sink said why */
	if (!app->opt.quiet) {
		fprintf(stderr, "fsmsg: listening: %s/%s\n", FS_MSG_FAMILY_NAME,
			FS_MSG_MCGRP_EVENTS);
		fflush(stderr);
	}
	notify_ready(app);
	return 0;
}

/*
 * Like daemon(3), but the parent waits until the child has written its
 * pidfile and printed the readiness line: a script that starts fsmsg can
 * rely on both once the command returned. Exits in the parent.
 */
void daemonize(struct app *app)
{
	int pfd[2], fd;
	char ok = 1;
	pid_t pid;

	fflush(NULL);
	if (pipe2(pfd, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		say(app, LOG_ERR, "cannot become a daemon: %s", strerror(errno));
		exit(EXIT_RUNTIME);
	}
	if (pid > 0) {
		ssize_t n;

		close(pfd[1]);
		do
			n = read(pfd[0], &ok, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 && ok == 0 ? EXIT_OK : EXIT_RUNTIME);
	}
	close(pfd[0]);
	setsid();
	if (chdir("/") < 0) {
		/* Only keeps a mount busy; not worth failing. */
	}
	if (app->opt.pidfile && write_pidfile(app) < 0)
		exit(EXIT_RUNTIME);	/* the parent sees EOF and fails */
	if (listening(app) < 0) {
		if (app->opt.pidfile)
			unlink(app->opt.pidfile);
		exit(EXIT_RUNTIME);
	}

	/* From here on, only syslog. */
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	app->mon.out = NULL;
	app->mon.err = NULL;
	ok = 0;
	if (write(pfd[1], &ok, 1) != 1) {
		/* The parent is gone; nothing to tell. */
	}
	close(pfd[1]);
}

int setup_signals(void)
{
	sigset_t set;

	/* Blocked signals are queued even where a shell set them to be
	 * ignored (background jobs ignore SIGINT), so signalfd sees them. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* SIGHUP (a closed terminal, a "reload"): ends fsmsg like SIGTERM,
	 * pidfile removed, metrics file written (fsmsg.8, SIGNALS). */
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int setup_timer(const struct timespec *timeout)
{
	struct itimerspec its = { .it_value = *timeout };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd >= 0 && timerfd_settime(fd, 0, &its, NULL) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}
