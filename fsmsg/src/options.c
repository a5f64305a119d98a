// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsmsg's command line: --help, the options and their checks.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsmsg.h"

static void usage(FILE *fp)
{
	fprintf(fp,
"Usage: fsmsg [OPTION]...\n"
"Report filesystem warnings (out of space, errors, shutdowns, data lost at\n"
"writeback; ext2/3/4, XFS, btrfs) as the kernel sends them on the FS_MSG\n"
"generic netlink family.\n"
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
"                           inode-enospc, fs-error, shutdown, data-lost, or\n"
"                           a number (repeatable)\n"
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
"  2  runtime failure: no permission, netlink error, output error\n"
"  3  --timeout expired before --count events arrived\n"
"  4  the kernel has no FS_MSG family (CONFIG_FS_MSG)\n");
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

void parse_options(int argc, char **argv, struct options *o)
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
			if (fsm_resolve_device(&o->filter, optarg, fsm_mountinfo_path(),
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
				usage_error("invalid --warning '%s' (enospc, meta-enospc, inode-enospc, fs-error, shutdown, data-lost or a number)",
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

