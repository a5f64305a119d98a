// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsmsg - report filesystem "out of space" warnings from the FS_MSG
 * generic netlink family.
 *
 * Options, sockets and the event loop; what happens to a message is in
 * monitor.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "monitor.h"

#ifndef FSMSG_WITH_SYSTEMD
#define FSMSG_WITH_SYSTEMD 0
#endif
#if FSMSG_WITH_SYSTEMD
/* CODE_FILE/LINE/FUNC would always name the sink: leave them out. */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#endif

#ifndef FSMSG_VERSION
#define FSMSG_VERSION "1.0.0"
#endif

#define MOUNTINFO "/proc/self/mountinfo"
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

	/* --journal */
	int journal_errno;	/* the error last reported, 0: none */
	unsigned long journal_failures;
};

static const char no_family[] =
	"the kernel has no FS_MSG family: it was built without filesystem warning messages, or this is not the initial network namespace";

static void usage(FILE *fp)
{
	fprintf(fp,
"Usage: fsmsg [OPTION]...\n"
"Report filesystem warnings (out of space, errors, shutdowns; ext2/3/4, XFS,\n"
"btrfs) as the kernel sends them on the FS_MSG generic netlink family.\n"
"\n"
"  -F, --foreground         stay in the foreground, events on standard output\n"
"  -j, --json               one JSON object per line instead of text\n"
"  -r, --receive-time       add when fsmsg received each warning: JSON key\n"
"                           \"received_ns\" (ns since the epoch), text suffix\n"
"                           \" received +<us>us\" (the delay since the kernel's\n"
"                           timestamp)\n"
"  -l, --list               list the filesystems and their warning counters\n"
"  -d, --device DEV         only DEV: MAJ:MIN, a block device, or any path on\n"
"                           the filesystem (repeatable)\n"
"  -T, --fstype TYPE        only filesystems of TYPE, e.g. ext4 (repeatable)\n"
"  -u, --uuid UUID          only the filesystem with UUID (repeatable)\n"
"  -w, --warning TYPE       only warnings of TYPE: enospc, meta-enospc,\n"
"                           inode-enospc, fs-error, shutdown, or a number\n"
"                           (repeatable)\n"
"      --rcvbuf BYTES       the event socket's receive buffer, K or M suffix,\n"
"                           64K to 1024M (default 4M)\n"
"      --severity MIN       only messages of severity MIN or higher: info,\n"
"                           warning, error, critical, or 1 to 4\n"
"  -c, --count N            exit after N warnings (summaries do not count)\n"
"  -t, --timeout SECONDS    exit SECONDS after listening (decimals allowed)\n"
"  -p, --pidfile PATH       write the process id to PATH, remove it on exit;\n"
"                           locked: a second fsmsg on PATH exits 2\n"
"  -s, --syslog             also log events to syslog in the foreground\n"
"      --journal            log to the systemd journal, with a field per\n"
"                           attribute, instead of syslog\n"
#if !FSMSG_WITH_SYSTEMD
"                           (not available: built without journal support)\n"
#endif
"      --prometheus-textfile PATH\n"
"                           keep metrics in PATH for node_exporter's textfile\n"
"                           collector: warnings per filesystem and type\n"
"  -q, --quiet              do not print the \"fsmsg: listening\" line\n"
"  -h, --help               show this help and exit\n"
"  -V, --version            show the version and exit\n"
"\n"
"Without -F, fsmsg detaches and logs to syslog (facility daemon), or to the\n"
"journal with --journal. Filters of different kinds must all match; repeated\n"
"filters of one kind match any value; they apply to the metrics too, and\n"
"are set in the kernel too when it can filter (FS_MSG_CMD_NOTIFY_FILTER_SET).\n"
"Joining the events group and --list need CAP_SYS_ADMIN.\n"
"\n"
"Exit status:\n"
"  0  success, --count reached, SIGINT, SIGTERM or SIGHUP, --timeout without --count\n"
"  1  usage error\n"
"  2  runtime failure: no FS_MSG family, no permission, netlink error\n"
"  3  --timeout expired before --count events arrived\n");
}

static void __attribute__((format(printf, 1, 2), noreturn))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("fsmsg: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'fsmsg --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

static void oom(void)
{
	fputs("fsmsg: out of memory\n", stderr);
	exit(EXIT_RUNTIME);
}

static uint64_t now_ns(void)
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

static int parse_count(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v == 0 ? -1 : 0;
}

/* Seconds: digits with at most one decimal point, at most a year. */
/* BYTES[K|M]: K and M are 1024 and 1048576; within RCVBUF_MIN..MAX. */
static int parse_rcvbuf(const char *s, int *v)
{
	unsigned long long n, mult = 1;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end == 'K' || *end == 'k')
		mult = 1ULL << 10, end++;
	else if (*end == 'M' || *end == 'm')
		mult = 1ULL << 20, end++;
	if (*end || n > RCVBUF_MAX / mult || n * mult < RCVBUF_MIN)
		return -1;
	*v = (int)(n * mult);
	return 0;
}

static int parse_timeout(const char *s, struct timespec *ts)
{
	size_t digits = strspn(s, "0123456789"), dot = 0;
	double d;

	if (s[digits] == '.')
		dot = 1 + strspn(s + digits + 1, "0123456789");
	if (s[digits + dot] || digits + (dot ? dot - 1 : 0) == 0)
		return -1;
	d = strtod(s, NULL);
	if (!isfinite(d) || d <= 0 || d > 366.0 * 24 * 3600)
		return -1;
	ts->tv_sec = (time_t)d;
	ts->tv_nsec = (long)((d - (double)ts->tv_sec) * 1e9);
	if (ts->tv_nsec >= 1000000000L)
		ts->tv_nsec = 999999999L;
	if (!ts->tv_sec && !ts->tv_nsec)
		ts->tv_nsec = 1;	/* 0.0000000001: still a timeout */
	return 0;
}

/* The pidfile is removed after the daemon's chdir("/"): keep it absolute. */
static char *absolute(const char *path)
{
	char *cwd, *abs;

	if (path[0] == '/')
		return strdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return NULL;
	if (asprintf(&abs, "%s/%s", cwd, path) < 0)
		abs = NULL;
	free(cwd);
	return abs;
}

/* Options of the listener that --list has no use for: refused with it. */
static const char *not_for_list(int c)
{
	switch (c) {
	case 'F': return "-F/--foreground";
	case 'c': return "-c/--count";
	case 't': return "-t/--timeout";
	case 'p': return "-p/--pidfile";
	case 's': return "-s/--syslog";
	case 'q': return "-q/--quiet";
	case 'r': return "-r/--receive-time";
	case OPT_JOURNAL: return "--journal";
	case OPT_TEXTFILE: return "--prometheus-textfile";
	case OPT_SEVERITY: return "--severity";
	case OPT_RCVBUF: return "--rcvbuf";
	default: return NULL;
	}
}

static void parse_options(int argc, char **argv, struct options *o)
{
	const char *nolist = NULL;	/* the first option --list refuses */
	static const struct option longopts[] = {
		{ "foreground", no_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "list", no_argument, NULL, 'l' },
		{ "device", required_argument, NULL, 'd' },
		{ "fstype", required_argument, NULL, 'T' },
		{ "uuid", required_argument, NULL, 'u' },
		{ "warning", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "syslog", no_argument, NULL, 's' },
		{ "journal", no_argument, NULL, OPT_JOURNAL },
		{ "prometheus-textfile", required_argument, NULL, OPT_TEXTFILE },
		{ "severity", required_argument, NULL, OPT_SEVERITY },
		{ "rcvbuf", required_argument, NULL, OPT_RCVBUF },
		{ "quiet", no_argument, NULL, 'q' },
		{ "receive-time", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct fsm_error err;
	uint8_t uuid[FSM_UUID_LEN];

	o->rcvbuf = RCVBUF_BYTES;
	uint32_t w;
	int c;

	/* getopt_long() names itself after argv[0] (glibc): make its own
	 * messages start with "fsmsg: " like every other error, however
	 * fsmsg was started (a path, a symlink, fsmsg.static). */
	if (argc > 0)
		argv[0] = (char *)"fsmsg";
	program_invocation_name = (char *)"fsmsg";

	while ((c = getopt_long(argc, argv, "Fjld:T:u:w:c:t:p:sqrhV",
				longopts, NULL)) != -1) {
		if (!nolist)
			nolist = not_for_list(c);
		switch (c) {
		case 'F':
			o->foreground = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'l':
			o->list = true;
			break;
		case 'd':
			if (fsm_resolve_device(&o->filter, optarg, MOUNTINFO,
					       &err) < 0)
				usage_error("%s", err.msg);
			break;
		case 'T':
			if (!*optarg)
				usage_error("invalid --fstype ''");
			if (fsm_filter_add_fstype(&o->filter, optarg) < 0)
				oom();
			break;
		case 'u':
			if (fsm_parse_uuid(optarg, uuid) < 0)
				usage_error("invalid --uuid '%s'", optarg);
			if (fsm_filter_add_uuid(&o->filter, uuid) < 0)
				oom();
			break;
		case 'w':
			if (fsm_parse_warning(optarg, &w) < 0)
				usage_error("invalid --warning '%s' (enospc, meta-enospc, inode-enospc, fs-error, shutdown or a number)",
					    optarg);
			if (fsm_filter_add_warning(&o->filter, w) < 0)
				oom();
			break;
		case OPT_RCVBUF:
			if (parse_rcvbuf(optarg, &o->rcvbuf) < 0)
				usage_error("invalid --rcvbuf '%s' (bytes, K or M, from 64K to 1024M)",
					    optarg);
			break;
		case OPT_SEVERITY:
			if (fsm_parse_severity(optarg, &o->filter.min_severity) < 0)
				usage_error("invalid --severity '%s' (info, warning, error, critical or 1 to 4)",
					    optarg);
			break;
		case 'c':
			if (parse_count(optarg, &o->count) < 0)
				usage_error("invalid --count '%s'", optarg);
			break;
		case 't':
			if (parse_timeout(optarg, &o->timeout) < 0)
				usage_error("invalid --timeout '%s'", optarg);
			o->has_timeout = true;
			break;
		case 'p':
			if (!*optarg)
				usage_error("invalid --pidfile ''");
			free(o->pidfile);
			if (!(o->pidfile = absolute(optarg)))
				oom();
			break;
		case 's':
			o->syslog = true;
			break;
		case OPT_JOURNAL:
			if (!FSMSG_WITH_SYSTEMD)
				usage_error("--journal: this fsmsg was built without systemd journal support (libsystemd)");
			o->journal = true;
			break;
		case OPT_TEXTFILE:
			if (!*optarg)
				usage_error("invalid --prometheus-textfile ''");
			free(o->textfile);
			if (!(o->textfile = absolute(optarg)))
				oom();
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'r':
			o->receive_time = true;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		case 'V':
			printf("fsmsg %s (FS_MSG family version %d)\n",
			       FSMSG_VERSION, FS_MSG_FAMILY_VERSION);
			exit(EXIT_OK);
		default:
			/* getopt_long already named the problem, as "fsmsg: ". */
			fputs("Try 'fsmsg --help' for more information.\n", stderr);
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (o->list && nolist)
		usage_error("%s does not apply to --list", nolist);
	if (o->syslog && o->journal)
		usage_error("--syslog and --journal do not go together: the journal passes its entries on to syslog itself");
}

/* Errors before the daemon detaches go to the terminal; after, to syslog
 * or the journal. */
static void say(struct app *app, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct app *app, int prio, const char *fmt, ...)
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
 * --receive-time: CLOCK_REALTIME right after the recvmsg() that returned
 * the datagram being handled. libnl's nl_recvmsgs() reads one datagram
 * (nl_recv(): recvmsg(), after a MSG_PEEK one for its size), then runs
 * the callbacks on each netlink message in it; the kernel multicasts
 * every warning as a datagram of its own, so this is per warning. It
 * lives here because libnl's recv hook has no argument to carry it;
 * so does the app that hook reports rejected datagrams to.
 */
static uint64_t received_ns;
static struct app *recv_app;

/* Count a datagram not from the kernel: each netlink message in it. */
static void reject_datagram(const unsigned char *buf, int len, uint32_t port,
			    uint64_t t)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	int rem = len, n = 0;

	for (; nlmsg_ok(nlh, rem); nlh = nlmsg_next((struct nlmsghdr *)nlh, &rem))
		n++;
	do
		fsm_monitor_from_kernel(&recv_app->mon, port, t);
	while (--n > 0);
}

/*
 * libnl's recv hook on both sockets: nl_recv(), the receive time, and the
 * sender. A datagram from another port id than the kernel's (0) is
 * dropped here, before libnl looks at it: a forged NLMSG_ERROR, DONE or
 * OVERRUN would otherwise end the event loop or a dump. The next one is
 * read instead (on the non-blocking event socket, -NLE_AGAIN when there
 * is none).
 */
static int recv_checked(struct nl_sock *sk, struct sockaddr_nl *nla,
			unsigned char **buf, struct ucred **creds)
{
	for (;;) {
		int n = nl_recv(sk, nla, buf, creds);

		if (n <= 0)
			return n;
		received_ns = now_ns();
		if (nla->nl_pid == 0)
			return n;
		reject_datagram(*buf, n, nla->nl_pid, received_ns);
		free(*buf);
		*buf = NULL;
		if (creds) {
			free(*creds);
			*creds = NULL;
		}
	}
}

/* The netlink port id the message came from (recvmsg()'s msg_name). */
static uint32_t src_port(struct nl_msg *msg)
{
	struct sockaddr_nl *src = nlmsg_get_src(msg);

	return src ? src->nl_pid : UINT32_MAX;
}

static int event_cb(struct nl_msg *msg, void *arg)
{
	struct app *app = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	uint64_t t = app->opt.receive_time ? received_ns : now_ns();

	app->activity = true;
	/* Only the kernel's: not nlmsg_pid, which a sender sets at will. */
	if (!fsm_monitor_from_kernel(&app->mon, src_port(msg), t))
		return NL_OK;
	if (fsm_monitor_message(&app->mon, nlh, nlh->nlmsg_len, t) < 0) {
		app->fatal = true;
		return NL_STOP;
	}
	return app->mon.done ? NL_STOP : NL_OK;
}

static int dump_cb(struct nl_msg *msg, void *arg)
{
	struct app *app = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct fsm_error err;
	int ret;

	if (!fsm_monitor_from_kernel(&app->mon, src_port(msg), now_ns()))
		return NL_OK;
	ret = fsm_fs_list_add(app->rows, nlh, nlh->nlmsg_len, app->family, &err);
	if (ret == -2) {
		app->rows_oom = true;
		return NL_STOP;
	}
	if (ret < 0)
		say(app, LOG_WARNING, "skipped an invalid FS_MSG dump reply: %s",
		    err.msg);
	return NL_OK;
}

/* Sockets live until exit; one helper so every failure reads the same. */
static struct nl_sock *genl_socket(struct app *app)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_cb *cb;
	int err;

	if (!sk)
		oom();
	cb = nl_socket_get_cb(sk);
	if (!cb)
		oom();
	recv_app = app;
	nl_cb_overwrite_recv(cb, recv_checked);
	nl_cb_put(cb);
	err = genl_connect(sk);
	if (err < 0) {
		say(app, LOG_ERR, "cannot open a generic netlink socket: %s",
		    nl_geterror(err));
		exit(EXIT_RUNTIME);
	}
	return sk;
}

static void resolve_family(struct app *app, struct nl_sock *sk)
{
	int id = genl_ctrl_resolve(sk, FS_MSG_FAMILY_NAME);

	if (id == -NLE_OBJ_NOTFOUND) {
		say(app, LOG_ERR, "%s", no_family);
		exit(EXIT_RUNTIME);
	}
	if (id < 0) {
		say(app, LOG_ERR, "cannot resolve the FS_MSG family: %s",
		    nl_geterror(id));
		exit(EXIT_RUNTIME);
	}
	app->family = id;
	app->mon.family = id;
}

/* FS_GET dump into @rows. Returns 0 or a negative libnl error. */
static int dump(struct app *app, struct fsm_fs_list *rows)
{
	int err = 0;

	/* The kernel flags a dump that raced with a mount or unmount;
	 * a fresh one is consistent again. */
	for (int attempt = 0; attempt < 3; attempt++) {
		struct nl_msg *msg = nlmsg_alloc();

		fsm_fs_list_free(rows);
		if (!msg)
			return -NLE_NOMEM;
		if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, app->family, 0,
				 NLM_F_DUMP, FS_MSG_CMD_FS_GET,
				 FS_MSG_FAMILY_VERSION)) {
			nlmsg_free(msg);
			return -NLE_NOMEM;
		}
		err = nl_send_auto(app->dump, msg);
		nlmsg_free(msg);
		if (err < 0)
			return err;
		app->rows = rows;
		app->rows_oom = false;
		err = nl_recvmsgs_default(app->dump);
		app->rows = NULL;
		if (app->rows_oom)
			return -NLE_NOMEM;
		if (err != -NLE_DUMP_INTR)
			break;
	}
	return err < 0 ? err : 0;
}

static void open_dump_socket(struct app *app)
{
	app->dump = genl_socket(app);
	nl_socket_modify_cb(app->dump, NL_CB_VALID, NL_CB_CUSTOM, dump_cb, app);
}

static void set_rcvbuf(struct app *app)
{
	int fd = nl_socket_get_fd(app->ev), size = app->opt.rcvbuf;

	/* FORCE passes net.core.rmem_max but needs CAP_NET_ADMIN. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) == 0)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) < 0)
		say(app, LOG_WARNING, "cannot set the receive buffer to %d bytes: %s",
		    size, strerror(errno));
}

/* The answer to the kernel filter request, from the ACK or error callback. */
struct kfilter_ack {
	bool done;
	int error;		/* errno from the kernel, 0: accepted */
	char msg[256];		/* extended ack message, "" if none */
};

static int kfilter_ack_cb(struct nl_msg *msg, void *arg)
{
	struct kfilter_ack *a = arg;

	(void)msg;
	a->done = true;
	return NL_STOP;
}

/* The NLMSGERR_ATTR_MSG of an error, if the kernel added one. */
static void extack_msg(const struct nlmsgerr *e, struct kfilter_ack *a)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)
		((const unsigned char *)e - NLMSG_HDRLEN);
	size_t off = sizeof(*e), len;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e) ||
	    !(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	len = nlh->nlmsg_len - NLMSG_HDRLEN;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return;
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	}
	while (off + NLA_HDRLEN <= len) {
		struct nlattr nla;
		const char *data = (const char *)e + off + NLA_HDRLEN;

		memcpy(&nla, (const unsigned char *)e + off, sizeof(nla));
		if (nla.nla_len < NLA_HDRLEN || nla.nla_len > len - off)
			return;
		if ((nla.nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG &&
		    nla.nla_len > NLA_HDRLEN) {
			size_t n = strnlen(data, nla.nla_len - NLA_HDRLEN);

			if (n >= sizeof(a->msg))
				n = sizeof(a->msg) - 1;
			memcpy(a->msg, data, n);
			a->msg[n] = '\0';
			return;
		}
		off += NLA_ALIGN((size_t)nla.nla_len);
	}
}

static int kfilter_err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e,
			  void *arg)
{
	struct kfilter_ack *a = arg;

	(void)nla;
	a->done = true;
	a->error = -e->error;
	if (e->error == 0)
		return NL_STOP;
	extack_msg(e, a);
	return NL_STOP;
}

/*
 * The filter options as FS_MSG_CMD_NOTIFY_FILTER_SET attributes. A key
 * the kernel would refuse is left out: more values than it takes, a type
 * name longer than it takes (which no filesystem has), a warning type
 * newer than this fsmsg's header (the kernel's policy takes only the types
 * it knows). The kernel then lets more through, and the filter in fsmsg
 * does the rest. Returns false when no option filters (nothing to send).
 */
static bool kfilter_put(const struct fsm_filter *f, struct nl_msg *msg)
{
	bool any = false, fstypes_fit = true, warnings_fit = true;

	for (size_t i = 0; i < f->nfstypes; i++)
		if (strlen(f->fstypes[i]) > KFILTER_FSTYPE_MAX)
			fstypes_fit = false;
	for (size_t i = 0; i < f->nwarnings; i++)
		if (f->warnings[i] > FS_MSG_WARN_MAX)
			warnings_fit = false;

	if (f->ndevs && f->ndevs <= KFILTER_MAX_VALUES) {
		for (size_t i = 0; i < f->ndevs; i++) {
			struct nlattr *nest = nla_nest_start(msg, FS_MSG_A_FILTER_DEV);

			if (!nest ||
			    nla_put_u32(msg, FS_MSG_A_FILTER_DEV_MAJOR, f->devs[i].major) < 0 ||
			    nla_put_u32(msg, FS_MSG_A_FILTER_DEV_MINOR, f->devs[i].minor) < 0)
				oom();
			nla_nest_end(msg, nest);
		}
		any = true;
	}
	if (f->nfstypes && f->nfstypes <= KFILTER_MAX_VALUES && fstypes_fit) {
		for (size_t i = 0; i < f->nfstypes; i++)
			if (nla_put_string(msg, FS_MSG_A_FILTER_FSTYPE, f->fstypes[i]) < 0)
				oom();
		any = true;
	}
	if (f->nuuids && f->nuuids <= KFILTER_MAX_VALUES) {
		for (size_t i = 0; i < f->nuuids; i++)
			if (nla_put(msg, FS_MSG_A_FILTER_UUID, FSM_UUID_LEN, f->uuids[i]) < 0)
				oom();
		any = true;
	}
	if (f->nwarnings && f->nwarnings <= KFILTER_MAX_VALUES && warnings_fit) {
		for (size_t i = 0; i < f->nwarnings; i++)
			if (nla_put_u32(msg, FS_MSG_A_FILTER_WARNING, f->warnings[i]) < 0)
				oom();
		any = true;
	}
	if (f->min_severity) {
		if (nla_put_u32(msg, FS_MSG_A_FILTER_SEVERITY, f->min_severity) < 0)
			oom();
		any = true;
	}
	return any;
}

/*
 * Set the filter options in the kernel, on the event socket (the filter
 * is the socket's), and wait for the answer. A kernel without the
 * command (EOPNOTSUPP) leaves the filtering to fsmsg, which filters
 * anyway; any other refusal is fatal. Warnings that arrive before the
 * answer go through event_cb as any other.
 */
static void set_kernel_filter(struct app *app)
{
	struct kfilter_ack ack = { .done = false };
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *cb, *orig;
	int one = 1, err;

	if (!msg)
		oom();
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, app->family, 0,
			 NLM_F_ACK, FS_MSG_CMD_NOTIFY_FILTER_SET,
			 FS_MSG_FAMILY_VERSION))
		oom();
	if (!kfilter_put(&app->opt.filter, msg)) {
		nlmsg_free(msg);
		return;
	}
	/* The kernel's reason comes in the extended ack. */
	setsockopt(nl_socket_get_fd(app->ev), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	/* nl_socket_get_cb() takes a reference: put it after cloning. */
	orig = nl_socket_get_cb(app->ev);
	if (!orig)
		oom();
	cb = nl_cb_clone(orig);
	nl_cb_put(orig);
	if (!cb)
		oom();
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, kfilter_ack_cb, &ack);
	nl_cb_err(cb, NL_CB_CUSTOM, kfilter_err_cb, &ack);
	err = nl_send_auto(app->ev, msg);
	nlmsg_free(msg);
	while (err >= 0 && !ack.done && !app->fatal)
		err = nl_recvmsgs(app->ev, cb);
	nl_cb_put(cb);
	if (ack.done && ack.error == 0)
		return;
	if (ack.done && ack.error == EOPNOTSUPP)
		return;		/* an older kernel: fsmsg filters alone */
	if (app->fatal)
		exit(EXIT_RUNTIME);
	if (!ack.done) {
		say(app, LOG_ERR, "cannot set the kernel's message filter: %s",
		    nl_geterror(err));
	} else if (ack.error == EPERM || ack.error == EACCES) {
		say(app, LOG_ERR, "setting the kernel's message filter needs CAP_SYS_ADMIN (run fsmsg as root)");
	} else if (ack.msg[0]) {
		say(app, LOG_ERR, "the kernel refused the message filter: %s (%s)",
		    ack.msg, nl_geterror(nl_syserr2nlerr(ack.error)));
	} else {
		say(app, LOG_ERR, "the kernel refused the message filter: %s",
		    nl_geterror(nl_syserr2nlerr(ack.error)));
	}
	exit(EXIT_RUNTIME);
}

static void subscribe(struct app *app)
{
	int grp, err;

	app->ev = genl_socket(app);
	/* Multicast events carry no sequence numbers to check. */
	nl_socket_disable_seq_check(app->ev);
	nl_socket_modify_cb(app->ev, NL_CB_VALID, NL_CB_CUSTOM, event_cb, app);
	resolve_family(app, app->ev);

	grp = genl_ctrl_resolve_grp(app->ev, FS_MSG_FAMILY_NAME,
				    FS_MSG_MCGRP_EVENTS);
	if (grp < 0) {
		if (grp == -NLE_OBJ_NOTFOUND)
			say(app, LOG_ERR, "the FS_MSG family has no '%s' multicast group",
			    FS_MSG_MCGRP_EVENTS);
		else
			say(app, LOG_ERR, "cannot resolve the FS_MSG '%s' group: %s",
			    FS_MSG_MCGRP_EVENTS, nl_geterror(grp));
		exit(EXIT_RUNTIME);
	}
	set_rcvbuf(app);
	err = nl_socket_add_membership(app->ev, grp);
	if (err == -NLE_PERM || err == -NLE_NOACCESS) {
		say(app, LOG_ERR, "joining the FS_MSG events group needs CAP_SYS_ADMIN (run fsmsg as root)");
		exit(EXIT_RUNTIME);
	}
	if (err < 0) {
		say(app, LOG_ERR, "cannot join the FS_MSG events group: %s",
		    nl_geterror(err));
		exit(EXIT_RUNTIME);
	}
	set_kernel_filter(app);
	err = nl_socket_set_nonblocking(app->ev);
	if (err < 0) {
		say(app, LOG_ERR, "cannot make the event socket non-blocking: %s",
		    nl_geterror(err));
		exit(EXIT_RUNTIME);
	}
}

static void dump_failed(struct app *app, int err, const char *what)
{
	if (err == -NLE_PERM || err == -NLE_NOACCESS)
		say(app, LOG_ERR, "%s needs CAP_SYS_ADMIN (run fsmsg as root)", what);
	else
		say(app, LOG_ERR, "%s failed: %s", what, nl_geterror(err));
}

/* Subscribe first, then dump: a warning in between is in both, and the
 * accounting knows a queued message at or below the seed was counted. */
static void seed(struct app *app)
{
	struct fsm_fs_list rows = { 0 };
	int err;

	open_dump_socket(app);
	err = dump(app, &rows);
	if (err < 0) {
		dump_failed(app, err, "reading the FS_MSG counters");
		fsm_fs_list_free(&rows);
		exit(EXIT_RUNTIME);
	}
	fsm_monitor_seed(&app->mon, &rows);
	fsm_fs_list_free(&rows);
}

static int list(struct app *app)
{
	struct fsm_fs_list rows = { 0 };
	int err, ret = EXIT_OK;

	open_dump_socket(app);
	resolve_family(app, app->dump);
	err = dump(app, &rows);
	if (err < 0) {
		dump_failed(app, err, "listing the filesystems");
		ret = EXIT_RUNTIME;
	} else if (fsm_monitor_list(&app->mon, &rows) < 0) {
		say(app, LOG_ERR, "cannot write the list: %s",
		    strerror(app->mon.write_errno));
		ret = EXIT_RUNTIME;
	}
	fsm_fs_list_free(&rows);
	return ret;
}

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

/* exit() anywhere after the lock (subscribe(), daemonize()...) removes
 * the file this fsmsg created or took over; _exit() (the daemon's parent)
 * does not. */
static void pidfile_cleanup(void)
{
	struct app *app = pidfile_app;

	if (app && app->pidfile_written) {
		unlink(app->opt.pidfile);
		app->pidfile_written = false;
	}
}

static int lock_pidfile(struct app *app)
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

static int write_pidfile(struct app *app)
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
static int listening(struct app *app)
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
	return 0;
}

/*
 * Like daemon(3), but the parent waits until the child has written its
 * pidfile and printed the readiness line: a script that starts fsmsg can
 * rely on both once the command returned. Exits in the parent.
 */
static void daemonize(struct app *app)
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

static int setup_signals(void)
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

static int setup_timer(const struct timespec *timeout)
{
	struct itimerspec its = { .it_value = *timeout };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd >= 0 && timerfd_settime(fd, 0, &its, NULL) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
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
	if (fsm_metrics_render(&app->metrics, &app->prom) == 0) {
		if (fsm_write_atomic(app->opt.textfile, fsm_buf_str(&app->prom),
				     app->prom.len, &stage) == 0) {
			if (app->werr_stage)
				say(app, LOG_INFO, "metrics file %s: written again",
				    app->opt.textfile);
			app->werr_stage = NULL;
			app->werr_errno = 0;
			app->metrics.changed = false;
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
	int err = dump(app, &rows);

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
	err = dump(app, &rows);
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
	struct pollfd pfd[4];
	nfds_t n = 2;
	int ti = -1, ki = -1;	/* --timeout timer, metrics timer */

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
	if (fsm_monitor_init(&app.mon) < 0)
		oom();

	if (app.opt.list) {
		ret = list(&app);
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
	subscribe(&app);
	seed(&app);
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
	pidfile_app = NULL;
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
	fsm_metrics_free(&app.metrics);
	fsm_buf_free(&app.prom);
	fsm_filter_free(&app.opt.filter);
	free(app.opt.pidfile);
	free(app.opt.textfile);
	return ret;
}
