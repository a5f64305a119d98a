// SPDX-License-Identifier: GPL-2.0
/* alloc_test: command line, work folder, report and exit status. */
#include "alloc_test.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_BLOCK	(64ULL << 20)	/* the write buffer is this big */
#define MAX_FILE	(1ULL << 40)
#define MAX_THREADS	512
#define MAX_SECONDS	1e6

#ifndef ALLOC_TEST_VERSION
#define ALLOC_TEST_VERSION "1.0.0"	/* the Makefile's VERSION */
#endif

/* Exit status: 0 and 1 are what the guest's tests check; 64 is sysexits'
 * EX_USAGE. */
enum { EXIT_ENOSPC = 0, EXIT_BOUND = 1, EXIT_ERROR = 2, EXIT_USAGE = 64 };

atomic_int stop_requested;

static const char *const mode_names[] = {
	[M_BUFFERED] = "buffered", [M_DIRECT] = "direct", [M_FALLOCATE] = "fallocate",
	[M_FILES] = "files", [M_DIRS] = "dirs", [M_SYMLINKS] = "symlinks",
	[M_MMAP] = "mmap", [M_FLOOD] = "flood",
};

static const char *const flood_op_names[] = {
	[F_WRITE] = "write", [F_FALLOCATE] = "fallocate", [F_CREATE] = "create", [F_MKDIR] = "mkdir",
};

static const char help_text[] =
"Usage: alloc_test [OPTION]... DIR [MODE [COUNT]]\n"
"Fill the filesystem holding DIR until it reports ENOSPC, then print one report\n"
"line. Everything is created in the new folder DIR/alloc_test.<pid>, which is\n"
"removed afterwards unless --keep is given; then the filesystem is synced.\n"
"\n"
"MODE (or --mode MODE; the 2011 numbers 1-4 still work; default buffered):\n"
"  buffered, write, 1  write() blocks into data files\n"
"  direct, 2           pwrite() with O_DIRECT (block size a multiple of 512)\n"
"  fallocate           fallocate() one block per call (block size default 1M)\n"
"  files, 3            create empty files, open(O_CREAT|O_EXCL)\n"
"  dirs, 4             mkdir()\n"
"  symlinks            symlink() with a --symlink-target-len byte target\n"
"  mmap                store one byte per page of a MAP_SHARED window of a\n"
"                      sparse file (block size = window, default 1M); the page\n"
"                      fault allocates. A SIGBUS is counted as ENOSPC, although\n"
"                      SIGBUS cannot tell ENOSPC from EIO\n"
"  flood               fill first, then --threads threads repeat --flood-op\n"
"COUNT is the same as --max-ops.\n"
"\n"
"Options:\n"
"  -m, --mode MODE             the mode, as above\n"
"  -b, --block-size BYTES      bytes per write or fallocate, or the mmap window\n"
"                              (default 4096, fallocate and mmap 1M; max 64M)\n"
"      --file-size BYTES       start a new data file at this size (default 64M)\n"
"      --max-ops N             stop after N operations\n"
"      --max-bytes BYTES       stop once BYTES are written (in whole blocks)\n"
"      --fsync                 fsync() the file after each write (buffered mode):\n"
"                              the cost of writeback; a failed fsync() counts\n"
"                              as the write's error\n"
"      --after-full N          issue N more operations after the first ENOSPC\n"
"                              (default 0: stop at the first ENOSPC)\n"
"      --name-len N            pad entry names to N bytes, 1-255 (long names\n"
"                              fill directories and btrfs metadata sooner)\n"
"      --symlink-target-len N  target length, 1-4095 (default 200: too long for\n"
"                              a symlink stored inside the inode)\n"
"  -k, --keep                  keep the work folder, and the filesystem full\n"
"      --workdir-name NAME     name the work folder NAME, not alloc_test.<pid>;\n"
"                              an existing empty folder NAME is used\n"
"  -j, --json                  print the report as one JSON object\n"
"  -q, --quiet                 no notes on stderr (errors are still printed)\n"
"  -h, --help                  print this help\n"
"  -V, --version               print the version\n"
"\n"
"Flood mode:\n"
"      --flood-op OP           write (default): one block at the end of the\n"
"                              thread's own, normally empty, file; fallocate:\n"
"                              likewise; create or mkdir: a new name each time\n"
"  -t, --threads K             threads, 1-512 (default 1)\n"
"      --ops N                 attempts per thread\n"
"      --seconds T             stop after T seconds (fractions allowed)\n"
"      --no-fill               do not fill first: the filesystem is already full\n"
"  --ops or --seconds (or both) is required. The fill runs buffered, fallocate,\n"
"  files or dirs (for write, fallocate, create, mkdir) up to its first ENOSPC,\n"
"  or to --max-ops/--max-bytes, which bound only the fill. The totals include\n"
"  the fill, so a fill that reaches ENOSPC adds exactly 1 to enospc;\n"
"  ops_per_sec covers the flood phase only.\n"
"\n"
"BYTES take a K, M, G or T suffix (powers of 1024).\n"
"\n"
"Every operation is exactly one syscall, or one page fault in mmap mode.\n"
"Opening the next data file, ftruncate, mmap, msync and close are not counted\n"
"when they succeed; if one fails, that is counted as a failed operation, so\n"
"enospc is the number of syscalls (and faults) that failed with ENOSPC. A write\n"
"that writes less than asked is counted as short; the rest of the block is\n"
"the next operation. --max-ops also caps the operations after ENOSPC. A\n"
"failure other than ENOSPC ends the run with result=error.\n"
"\n"
"Report, one line on stdout (flood adds threads and ops_per_sec):\n"
"  alloc_test mode=M ops=N ok=N enospc=N short=N other=N errors=NAME:N,...|-\n"
"  bytes=N elapsed=SECONDS result=enospc|bound|error [threads=K ops_per_sec=X]\n"
"errors names the errno of each other failure; bytes counts data written or\n"
"allocated (mmap: whole pages; symlinks: target bytes).\n"
"\n"
"A failure before the first operation (opening DIR, making the work folder,\n"
"memory) is counted as one failed operation with its errno, result=error.\n"
"\n"
"Exit status (every status but 64 comes with the report line):\n"
"   0  ENOSPC was reached (result=enospc)\n"
"   1  a bound (COUNT, --max-ops, --max-bytes, --ops, --seconds) ended the run\n"
"      before any ENOSPC (result=bound)\n"
"   2  runtime error (result=error): a failure other than ENOSPC, DIR or the\n"
"      work folder unusable, a cleanup failure, SIGINT or SIGTERM\n"
"  64  usage error: no report line, the reason on stderr\n";

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("alloc_test: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'alloc_test --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

static uint64_t number(const char *opt, const char *s, bool suffixes, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (!parse_u64(s, suffixes, &v))
		usage_error("invalid number '%s' for %s", s, opt);
	if (v < min || v > max)
		usage_error("%s must be between %" PRIu64 " and %" PRIu64, opt, min, max);
	return v;
}

static double seconds(const char *s)
{
	char *end;
	double v;

	/* strtod alone would also take signs, blanks, hex, "inf" and "nan". */
	if (!*s || s[strspn(s, "0123456789.")])
		usage_error("invalid number '%s' for --seconds", s);
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno)
		usage_error("invalid number '%s' for --seconds", s);
	if (v <= 0 || v > MAX_SECONDS)
		usage_error("--seconds must be above 0 and at most %.0f", MAX_SECONDS);
	return v;
}

static enum mode parse_mode(const char *s)
{
	static const char *const old[] = { "1", "2", "3", "4" };
	static const enum mode old_mode[] = { M_BUFFERED, M_DIRECT, M_FILES, M_DIRS };

	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcmp(s, mode_names[i]))
			return (enum mode)i;
	for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++)
		if (!strcmp(s, old[i]))
			return old_mode[i];
	if (!strcmp(s, "write"))
		return M_BUFFERED;
	usage_error("unknown mode '%s'", s);
}

static enum flood_op parse_flood_op(const char *s)
{
	for (size_t i = 0; i < sizeof(flood_op_names) / sizeof(flood_op_names[0]); i++)
		if (!strcmp(s, flood_op_names[i]))
			return (enum flood_op)i;
	usage_error("unknown --flood-op '%s' (write, fallocate, create or mkdir)", s);
}

enum {
	OPT_FILE_SIZE = 256, OPT_MAX_OPS, OPT_MAX_BYTES, OPT_AFTER_FULL, OPT_SYMLINK_LEN,
	OPT_NAME_LEN,
	OPT_WORKDIR, OPT_FLOOD_OP, OPT_OPS, OPT_SECONDS, OPT_NO_FILL, OPT_FSYNC,
};

/* Options given, to reject those that do nothing in the chosen mode. */
enum {
	G_MODE = 1 << 0, G_BLOCK = 1 << 1, G_FILE_SIZE = 1 << 2, G_MAX_OPS = 1 << 3,
	G_MAX_BYTES = 1 << 4, G_AFTER_FULL = 1 << 5, G_SYMLINK_LEN = 1 << 6,
	G_FLOOD = 1 << 7,	/* any of the flood options */
	G_NAME_LEN = 1 << 8, G_FSYNC = 1 << 9,
};

#define DATA_MODES "when writing data (not files, dirs, symlinks, flood create or mkdir)"

static void only_if(unsigned given, unsigned bit, bool valid, const char *opt, const char *where)
{
	if ((given & bit) && !valid)
		usage_error("%s: only valid %s", opt, where);
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "block-size", required_argument, NULL, 'b' },
		{ "file-size", required_argument, NULL, OPT_FILE_SIZE },
		{ "max-ops", required_argument, NULL, OPT_MAX_OPS },
		{ "max-bytes", required_argument, NULL, OPT_MAX_BYTES },
		{ "after-full", required_argument, NULL, OPT_AFTER_FULL },
		{ "symlink-target-len", required_argument, NULL, OPT_SYMLINK_LEN },
		{ "name-len", required_argument, NULL, OPT_NAME_LEN },
		{ "keep", no_argument, NULL, 'k' },
		{ "workdir-name", required_argument, NULL, OPT_WORKDIR },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "flood-op", required_argument, NULL, OPT_FLOOD_OP },
		{ "threads", required_argument, NULL, 't' },
		{ "ops", required_argument, NULL, OPT_OPS },
		{ "seconds", required_argument, NULL, OPT_SECONDS },
		{ "no-fill", no_argument, NULL, OPT_NO_FILL },
		{ "fsync", no_argument, NULL, OPT_FSYNC },
		{ 0 }
	};
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	unsigned given = 0;
	bool data, flood;
	enum mode fill_mode;
	int c, npos;

	*cfg = (struct config){ .mode = M_BUFFERED, .file_size = 64ULL << 20, .symlink_len = 200,
				.threads = 1 };
	opterr = 0;	/* our own messages, which name alloc_test, not argv[0] */
	while ((c = getopt_long(argc, argv, ":m:b:kjqhVt:", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			cfg->mode = parse_mode(optarg);
			given |= G_MODE;
			break;
		case 'b':
			cfg->block_size = (size_t)number("--block-size", optarg, true, 1, MAX_BLOCK);
			given |= G_BLOCK;
			break;
		case OPT_FILE_SIZE:
			cfg->file_size = number("--file-size", optarg, true, 1, MAX_FILE);
			given |= G_FILE_SIZE;
			break;
		case OPT_MAX_OPS:
			cfg->max_ops = number("--max-ops", optarg, false, 1, UINT64_MAX);
			given |= G_MAX_OPS;
			break;
		case OPT_MAX_BYTES:
			cfg->max_bytes = number("--max-bytes", optarg, true, 1, UINT64_MAX);
			given |= G_MAX_BYTES;
			break;
		case OPT_AFTER_FULL:
			cfg->after_full = number("--after-full", optarg, false, 0, UINT64_MAX);
			given |= G_AFTER_FULL;
			break;
		case OPT_SYMLINK_LEN:
			cfg->symlink_len = (size_t)number("--symlink-target-len", optarg, false, 1,
							  PATH_MAX - 1);
			given |= G_SYMLINK_LEN;
			break;
		case OPT_NAME_LEN:
			cfg->name_len = (size_t)number("--name-len", optarg, false, 1, NAME_MAX);
			given |= G_NAME_LEN;
			break;
		case 'k':
			cfg->keep = true;
			break;
		case OPT_WORKDIR:
			if (!*optarg || strchr(optarg, '/') || !strcmp(optarg, ".") ||
			    !strcmp(optarg, "..") || strlen(optarg) > NAME_MAX)
				usage_error("--workdir-name must be a plain file name, not '%s'", optarg);
			cfg->workdir_name = optarg;
			break;
		case 'j':
			cfg->json = true;
			break;
		case 'q':
			cfg->quiet = true;
			break;
		case 'h':
			fputs(help_text, stdout);
			exit(fflush(stdout) || ferror(stdout) ? EXIT_ERROR : 0);
		case 'V':
			puts("alloc_test " ALLOC_TEST_VERSION);
			exit(fflush(stdout) || ferror(stdout) ? EXIT_ERROR : 0);
		case OPT_FLOOD_OP:
			cfg->flood_op = parse_flood_op(optarg);
			given |= G_FLOOD;
			break;
		case 't':
			cfg->threads = (unsigned)number("--threads", optarg, false, 1, MAX_THREADS);
			given |= G_FLOOD;
			break;
		case OPT_OPS:
			cfg->flood_ops = number("--ops", optarg, false, 1, UINT64_MAX);
			given |= G_FLOOD;
			break;
		case OPT_SECONDS:
			cfg->flood_seconds = seconds(optarg);
			given |= G_FLOOD;
			break;
		case OPT_NO_FILL:
			cfg->no_fill = true;
			given |= G_FLOOD;
			break;
		case OPT_FSYNC:
			cfg->fsync = true;
			given |= G_FSYNC;
			break;
		case ':':
			usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			/* A known optopt means a long option given "=value". */
			if (optopt && optopt < 256 && !strchr("mbkjqhVt", optopt))
				usage_error("unknown option '-%c'", optopt);
			if (optopt)
				usage_error("option '%s' takes no argument", argv[optind - 1]);
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}

	/* The 2011 form: DIR [n [count]]. */
	npos = argc - optind;
	if (npos < 1)
		usage_error("missing DIR");
	if (npos > 3)
		usage_error("too many arguments: '%s'", argv[optind + 3]);
	cfg->dir = argv[optind];
	if (npos >= 2) {
		if (given & G_MODE)
			usage_error("MODE given twice, as an argument and with --mode");
		cfg->mode = parse_mode(argv[optind + 1]);
	}
	if (npos == 3) {
		if (given & G_MAX_OPS)
			usage_error("COUNT and --max-ops both given");
		cfg->max_ops = number("COUNT", argv[optind + 2], false, 1, UINT64_MAX);
		given |= G_MAX_OPS;
	}

	flood = cfg->mode == M_FLOOD;
	fill_mode = flood ? fill_mode_of(cfg->flood_op) : cfg->mode;
	data = fill_mode == M_BUFFERED || fill_mode == M_DIRECT || fill_mode == M_FALLOCATE ||
	       fill_mode == M_MMAP;
	only_if(given, G_FLOOD, flood, "--flood-op, --threads, --ops, --seconds, --no-fill",
		"in flood mode");
	only_if(given, G_BLOCK, data, "--block-size", DATA_MODES);
	only_if(given, G_FILE_SIZE, data, "--file-size", DATA_MODES);
	only_if(given, G_MAX_BYTES, data || fill_mode == M_SYMLINKS, "--max-bytes",
		"when writing data or symlinks (use --max-ops)");
	only_if(given, G_FSYNC, cfg->mode == M_BUFFERED, "--fsync", "in buffered mode");
	only_if(given, G_AFTER_FULL, !flood, "--after-full", "outside flood mode");
	only_if(given, G_SYMLINK_LEN, cfg->mode == M_SYMLINKS, "--symlink-target-len",
		"in symlinks mode");
	only_if(given, G_NAME_LEN, cfg->mode == M_FILES || cfg->mode == M_DIRS ||
		cfg->mode == M_SYMLINKS, "--name-len", "in files, dirs and symlinks modes");
	only_if(given, G_MAX_OPS | G_MAX_BYTES, !cfg->no_fill, "--max-ops, --max-bytes, COUNT",
		"with a fill (they bound the fill, not the flood), not with --no-fill");
	if (flood && !cfg->flood_ops && cfg->flood_seconds <= 0)
		usage_error("flood mode needs --ops N or --seconds T");

	if (!cfg->block_size)
		cfg->block_size = fill_mode == M_FALLOCATE || fill_mode == M_MMAP ? 1 << 20 : 4096;
	if (fill_mode == M_DIRECT && cfg->block_size % 512)
		usage_error("--block-size must be a multiple of 512 for O_DIRECT");
	if (fill_mode == M_MMAP && cfg->block_size % page)
		usage_error("--block-size must be a multiple of the page size (%" PRIu64
			    ") in mmap mode", page);
	if (cfg->file_size < cfg->block_size)
		usage_error("--file-size must be at least the block size (%zu)", cfg->block_size);
}

/* Incompressible data, so that a compressing filesystem fills like others. */
/* Is the folder NAME in DFD empty?  Sets errno (ENOTEMPTY) when it is not. */
static bool empty_dir(int dfd, const char *name)
{
	struct dirent *e;
	bool empty = true;
	DIR *d;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	errno = 0;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	if (!empty)
		errno = ENOTEMPTY;
	closedir(d);
	return empty && !errno;
}

static void fill_pattern(unsigned char *p, size_t n)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* The "other" errno counts, ascending, the unknown slot last. */
static void print_errors(const struct counts *c, bool json)
{
	bool first = true;
	char buf[16];
	int slot;

	for (int i = 1; i <= ERRNO_SLOTS; i++) {
		slot = i % ERRNO_SLOTS;
		if (!c->err[slot])
			continue;
		printf(json ? "%s\"%s\":%" PRIu64 : "%s%s:%" PRIu64, first ? "" : ",",
		       errno_name(slot, buf, sizeof(buf)), c->err[slot]);
		first = false;
	}
	if (first && !json)
		putchar('-');
}

static void report(const struct config *cfg, const struct run *r, double elapsed, const char *result)
{
	const struct counts *c = &r->c;
	const char *mode = mode_names[cfg->mode];
	double rate = r->flood_secs > 0 ? (double)r->flood_ops / r->flood_secs : 0;

	if (cfg->json) {
		printf("{\"mode\":\"%s\",\"ops\":%" PRIu64 ",\"ok\":%" PRIu64 ",\"enospc\":%" PRIu64
		       ",\"short\":%" PRIu64 ",\"other\":%" PRIu64 ",\"errors\":{",
		       mode, c->ops, c->ok, c->enospc, c->shrt, c->other);
		print_errors(c, true);
		printf("},\"bytes\":%" PRIu64 ",\"elapsed\":%.3f,\"result\":\"%s\"", c->bytes, elapsed,
		       result);
		if (cfg->mode == M_FLOOD)
			printf(",\"threads\":%u,\"ops_per_sec\":%.1f", cfg->threads, rate);
		puts("}");
		return;
	}
	printf("alloc_test mode=%s ops=%" PRIu64 " ok=%" PRIu64 " enospc=%" PRIu64 " short=%" PRIu64
	       " other=%" PRIu64 " errors=", mode, c->ops, c->ok, c->enospc, c->shrt, c->other);
	print_errors(c, false);
	printf(" bytes=%" PRIu64 " elapsed=%.3f result=%s", c->bytes, elapsed, result);
	if (cfg->mode == M_FLOOD)
		printf(" threads=%u ops_per_sec=%.1f", cfg->threads, rate);
	putchar('\n');
}

static void bound_note(const struct config *cfg, const struct run *r)
{
	char limit[64];

	if (r->bound == B_OPS)
		snprintf(limit, sizeof(limit), "%" PRIu64 " operations", cfg->max_ops);
	else
		snprintf(limit, sizeof(limit), "%" PRIu64 " bytes", cfg->max_bytes);
	if (cfg->mode != M_FLOOD)
		note("the limit of %s was reached before the filesystem reported ENOSPC", limit);
	else if (r->bound != B_NONE)
		note("the fill reached its limit of %s, and the flood got no ENOSPC", limit);
	else
		note("the flood got no ENOSPC: the filesystem is not full");
}

/*
 * A failure before the first operation: one failed operation with errno ERR
 * (an ENOSPC among them is counted as enospc, like any failing syscall), so
 * that the report still says what went wrong. The run ends with result=error.
 */
static void setup_error(struct run *r, const char *path, const char *what, int err)
{
	if (path)
		errmsg(path, NULL, what, err);
	else
		note("%s", strerror(err));
	count_op(&r->c, err, 0, false);
	r->failed = true;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop_signal, .sa_flags = SA_RESTART };
	struct config cfg;
	struct run r = { .cfg = &cfg, .wfd = -1 };
	const char *result;
	char *wname = NULL, *wpath = NULL;
	double t0, elapsed = 0;
	bool made = false;
	int dfd, code;

	parse_args(argc, argv, &cfg);

	dfd = open(cfg.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		setup_error(&r, cfg.dir, NULL, errno);
		goto done;
	}
	if (cfg.workdir_name)
		wname = strdup(cfg.workdir_name);
	else if (asprintf(&wname, "alloc_test.%ld", (long)getpid()) < 0)
		wname = NULL;
	if (wname)
		wpath = join_path(cfg.dir, wname);
	if (!wpath) {
		setup_error(&r, NULL, NULL, ENOMEM);
		goto done;
	}
	/*
	 * Made before filling: on a full filesystem the mkdir could fail.  A
	 * named folder may exist already, empty, made before the filesystem
	 * filled up.
	 */
	if (mkdirat(dfd, wname, 0755)) {
		if (errno != EEXIST || !cfg.workdir_name) {
			setup_error(&r, wpath, "mkdir", errno);
			goto done;
		}
		if (!empty_dir(dfd, wname)) {
			setup_error(&r, wpath, NULL, errno);
			goto done;
		}
	} else {
		made = true;
	}
	r.wfd = openat(dfd, wname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r.wfd < 0) {
		setup_error(&r, wpath, "open", errno);
		if (made)
			unlinkat(dfd, wname, AT_REMOVEDIR);
		goto done;
	}
	r.wpath = wpath;

	if (cfg.mode == M_BUFFERED || cfg.mode == M_DIRECT ||
	    (cfg.mode == M_FLOOD && cfg.flood_op == F_WRITE)) {
		/* Page aligned for O_DIRECT. */
		if (posix_memalign(&r.buf, (size_t)sysconf(_SC_PAGESIZE), cfg.block_size)) {
			note("out of memory for a %zu byte block", cfg.block_size);
			r.buf = NULL;
			count_op(&r.c, ENOMEM, 0, false);
			r.failed = true;
		} else {
			fill_pattern(r.buf, cfg.block_size);
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	t0 = now();
	if (!r.failed) {
		if (cfg.mode == M_FLOOD)
			flood(&r);
		else
			fill(&r, cfg.mode, cfg.after_full);
	}
	elapsed = now() - t0;

	close(r.wfd);
	if (!cfg.keep && remove_tree(dfd, cfg.dir, wname))
		r.failed = true;
	/* syncfs, not sync: only the filesystem under test matters. */
	if (syncfs(dfd)) {
		errmsg(cfg.dir, NULL, "syncfs", errno);
		r.failed = true;
	}

done:
	if (r.failed || r.interrupted) {
		result = "error";
		code = EXIT_ERROR;
	} else if (r.c.enospc) {
		result = "enospc";
		code = EXIT_ENOSPC;
	} else {
		result = "bound";
		code = EXIT_BOUND;
	}
	report(&cfg, &r, elapsed, result);
	if (fflush(stdout) || ferror(stdout)) {
		note("cannot write the report: %s", strerror(errno));
		code = EXIT_ERROR;
	}
	if (r.interrupted)
		note("interrupted by a signal");
	if (!cfg.quiet && code == EXIT_BOUND)
		bound_note(&cfg, &r);
	if (!cfg.quiet && cfg.keep && r.wfd >= 0)
		note("kept %s", wpath);
	free(r.buf);
	if (dfd >= 0)
		close(dfd);
	free(wpath);
	free(wname);
	return code;
}
