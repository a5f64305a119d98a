// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * parse_bench: fsmsg's host-side parse-and-format rate, in messages per
 * second, for the text and the JSON output. No kernel involved.
 *
 * A buffer of N FS_MSG_CMD_WARNING messages is built first, laid out as
 * the kernel's fs_msg_build()/fs_msg_send() lay them out: every attribute
 * it sends, in its order, strings as long as the kernel makes them, and
 * the 64-bit numbers as nla_put_uint() sends them (4 bytes when the value
 * fits in 32 bits, else 8: the timestamps take 8, the rest 4). The
 * messages mix filesystems and warning types, and each (filesystem, type)
 * counts up with some warnings held back, so that no count has a gap.
 *
 * Timed: walking the buffer with libnl's nlmsg_ok()/nlmsg_next() and
 * handing each message to fsm_monitor_message(), what fsmsg's event
 * callback does with a received message: parse and validate against the
 * policy, accounting, filter (none set), format into the monitor's buffer,
 * fwrite() and fflush() to the output FILE. That FILE is a fopencookie()
 * stream whose write function only counts bytes: the stdio work is
 * measured, a write(2) per message (whose cost depends on where stdout
 * goes) is not. With -s devnull the output goes to /dev/null instead, a
 * write(2) each; -s stdout shows it. Not timed: recvmsg(), libnl's copy
 * of each message into a struct nl_msg and its callback dispatch, and the
 * daemon's clock_gettime() per message (the messages carry TIMESTAMP, so
 * its value is not formatted).
 *
 * Each pass starts from a fresh monitor (empty accounting, as after
 * start), set up outside the timed part. Text and JSON passes alternate,
 * so that noise on a shared machine falls on both alike. Exit status 0
 * whether or not the target is met; 1 when a pass did not handle every
 * message as expected, 2 on a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/msg.h>

#include "monitor.h"
#include "nlbuild.h"

#define TARGET_RATE 1000000.0	/* messages per second */
#define MAX_REPEATS 1000

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "?"
#endif

#define W_DATA	(1u << FS_MSG_WARN_ENOSPC)
#define W_META	(1u << FS_MSG_WARN_META_ENOSPC)
#define W_INODE	(1u << FS_MSG_WARN_INODE_ENOSPC)

/* Filesystems as the kernel names them, and the warnings each can give. */
static const struct bench_fs {
	uint32_t major, minor;
	const char *fstype;
	const char *device;	/* s_id */
	uint8_t uuid[16];
	unsigned int warnings;
} filesystems[] = {
	{ 254, 16, "ext4", "vdb",
	  { 0x0c, 0x5f, 0x3a, 0x9e, 0x12, 0x34, 0x4b, 0xcd,
	    0x8e, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab },
	  W_DATA | W_META | W_INODE },
	{ 259, 2, "ext4", "nvme0n1p2",
	  { 0x7d, 0x21, 0x90, 0x4e, 0xa1, 0x5b, 0x4f, 0x02,
	    0x9c, 0x33, 0x6e, 0x1f, 0xd4, 0x80, 0x27, 0x5a },
	  W_DATA | W_META | W_INODE },
	{ 254, 32, "xfs", "vdc",
	  { 0xb3, 0x06, 0x44, 0x1c, 0x8f, 0x7a, 0x41, 0x9d,
	    0xa0, 0x5e, 0x12, 0xc9, 0x3b, 0x66, 0xf1, 0x08 },
	  W_DATA | W_META | W_INODE },
	/* btrfs: an anonymous device number, s_id the first device. */
	{ 0, 45, "btrfs", "vdd",
	  { 0x51, 0xe8, 0x2b, 0x77, 0x0d, 0xc4, 0x46, 0x3e,
	    0xb9, 0x12, 0x8a, 0x50, 0x6f, 0xe3, 0x94, 0x21 },
	  W_DATA | W_META },
	{ 8, 1, "ext3", "sda1",
	  { 0x2f, 0x9a, 0xd1, 0x35, 0x60, 0x0b, 0x4c, 0x88,
	    0x97, 0x4d, 0xe2, 0x19, 0xa6, 0x3c, 0x70, 0xb5 },
	  W_DATA | W_META | W_INODE },
	{ 8, 17, "ext2", "sdb1",
	  { 0xe4, 0x13, 0x5c, 0x02, 0x9b, 0xf7, 0x4a, 0x61,
	    0x8d, 0x2e, 0x07, 0xba, 0x51, 0xc8, 0x3f, 0x94 },
	  W_DATA | W_INODE },
};

/* Tasks that hit ENOSPC: comm (at most 15 bytes), uid. */
static const struct bench_task {
	const char *comm;
	uint64_t uid;
} tasks[] = {
	{ "dd", 0 }, { "postgres", 105 }, { "kworker/u8:1", 0 },
	{ "cp", 1000 }, { "rsync", 1000 }, { "alloc_test", 0 },
	{ "tar", 1000 }, { "java", 998 }, { "Web Content", 1000 },
	{ "btrfs-transacti", 0 }, { "mysqld", 27 }, { "git", 1000 },
};

#define NFS (sizeof(filesystems) / sizeof(filesystems[0]))
#define NTASKS (sizeof(tasks) / sizeof(tasks[0]))
#define NWARN 3

struct corpus {
	struct raw raw;
	size_t nmsgs;
};

/* xorshift64: a fixed, repeatable mix. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* fs_msg_build() + fs_msg_send(), attribute for attribute. */
static void put_warning(struct raw *r, const struct bench_fs *fs,
			uint32_t warning, const struct bench_task *t,
			uint32_t pid, uint64_t ts, uint64_t count,
			uint64_t suppressed)
{
	raw_begin(r, FS_MSG_CMD_WARNING);
	raw_u32(r, FS_MSG_A_WARNING, warning);
	raw_u32(r, FS_MSG_A_DEV_MAJOR, fs->major);
	raw_u32(r, FS_MSG_A_DEV_MINOR, fs->minor);
	raw_str(r, FS_MSG_A_FSTYPE, fs->fstype);
	raw_str(r, FS_MSG_A_DEVICE, fs->device);
	raw_attr(r, FS_MSG_A_UUID, fs->uuid, sizeof(fs->uuid));
	raw_uint(r, FS_MSG_A_CAUSED_ID, t->uid);
	raw_u32(r, FS_MSG_A_PID, pid);
	raw_str(r, FS_MSG_A_COMM, t->comm);
	raw_uint(r, FS_MSG_A_TIMESTAMP, ts);
	raw_uint(r, FS_MSG_A_COUNT, count);
	raw_uint(r, FS_MSG_A_SUPPRESSED, suppressed);
	raw_uint(r, FS_MSG_A_SB_ID, (uint64_t)(fs - filesystems) + 1);
	raw_uint(r, FS_MSG_A_BOOTTIME, ts - 1796000000000000000ULL);
	raw_u32(r, FS_MSG_A_SEVERITY, FS_MSG_SEVERITY_WARNING);
	raw_end(r);
}

static void build_corpus(struct corpus *c, size_t n)
{
	struct { const struct bench_fs *fs; uint32_t warning; } keys[NFS * NWARN];
	uint64_t counts[NFS * NWARN] = { 0 };
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	uint64_t ts = 1796283771123456789ULL;	/* 2026-12-03, CLOCK_REALTIME */
	size_t nkeys = 0;

	for (size_t i = 0; i < NFS; i++)
		for (uint32_t w = 1; w <= NWARN; w++)
			if (filesystems[i].warnings & (1u << w)) {
				keys[nkeys].fs = &filesystems[i];
				keys[nkeys].warning = w;
				nkeys++;
			}

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		uint64_t rnd = next_rand(&seed);
		size_t k = (size_t)(rnd % nkeys);
		const struct bench_task *t = &tasks[(rnd >> 16) % NTASKS];
		/* One message in eight comes after rate limiting held
		 * some back; the count still has no gap. */
		uint64_t suppressed = (rnd >> 32) % 8 == 0 ?
				      1 + (rnd >> 40) % 200 : 0;

		counts[k] += suppressed + 1;
		ts += 1000000 + (rnd >> 24) % 5000000;	/* 1 to 6 ms apart */
		put_warning(&c->raw, keys[k].fs, keys[k].warning, t,
			    1000 + (uint32_t)((rnd >> 48) % 60000), ts,
			    counts[k], suppressed);
	}
	c->nmsgs = n;
}

/* The output: counts what fsmsg writes and drops it. */
struct sink {
	uint64_t bytes;
	uint64_t writes;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct sink *s = cookie;

	(void)buf;
	s->bytes += n;
	s->writes++;
	return (ssize_t)n;
}

/*
 * The timed part: every message of the buffer, as fsmsg's event callback
 * hands it over. Not inlined, so that callgrind can count it alone
 * (--toggle-collect=bench_loop*).
 */
#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_NOINLINE __attribute__((noinline, noclone))
#else
#define BENCH_NOINLINE __attribute__((noinline))
#endif
BENCH_NOINLINE int bench_loop(struct fsm_monitor *m, unsigned char *buf,
			      size_t len);
BENCH_NOINLINE int bench_loop(struct fsm_monitor *m, unsigned char *buf,
			      size_t len)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	int rem = (int)len;

	/* libnl's walk, as nl_recvmsgs() does over a received buffer. */
	for (; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem))
		if (fsm_monitor_message(m, nlh, nlh->nlmsg_len,
					1796283771000000000ULL) < 0)
			return -1;
	return 0;
}

enum sink_kind { SINK_NULL, SINK_DEVNULL, SINK_STDOUT };

struct bench {
	const struct corpus *c;
	struct fsm_filter filter;
	enum sink_kind sink_kind;
	uint64_t bytes[2];	/* output of the first pass, per format */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One pass over the buffer; returns its duration in ns, 0 on failure. */
static uint64_t pass(struct bench *b, bool json)
{
	static const cookie_io_functions_t io = { .write = sink_write };
	struct fsm_monitor m = { 0 };
	struct sink s = { 0 };
	uint64_t t0, t1;
	bool ok;

	if (b->sink_kind == SINK_STDOUT)
		m.out = stdout;
	else if (b->sink_kind == SINK_DEVNULL)
		m.out = fopen("/dev/null", "w");
	else
		m.out = fopencookie(&s, "w", io);
	if (!m.out) {
		fprintf(stderr, "parse_bench: cannot open the output: %s\n",
			strerror(errno));
		return 0;
	}
	m.json = json;
	m.err = stderr;
	m.filter = &b->filter;
	m.family = TEST_FAMILY;
	if (fsm_monitor_init(&m) < 0) {
		fputs("parse_bench: out of memory\n", stderr);
		if (m.out != stdout)
			fclose(m.out);
		return 0;
	}

	t0 = mono_ns();
	ok = bench_loop(&m, b->c->raw.buf, b->c->raw.len) == 0;
	t1 = mono_ns();

	/* Every message an event, none invalid, none missed, one write
	 * per event, the same output each time. */
	if (!ok || m.events != b->c->nmsgs || m.invalid || m.missed) {
		fprintf(stderr, "parse_bench: %s pass: %" PRIu64 " events, %" PRIu64
			" invalid, %" PRIu64 " missed of %zu messages%s%s\n",
			json ? "JSON" : "text", m.events, m.invalid, m.missed,
			b->c->nmsgs, ok ? "" : "; write error: ",
			ok ? "" : strerror(m.write_errno));
		ok = false;
	} else if (b->sink_kind == SINK_NULL) {
		if (s.writes != m.events) {
			fprintf(stderr, "parse_bench: %" PRIu64 " writes for %" PRIu64 " events\n",
				s.writes, m.events);
			ok = false;
		} else if (!b->bytes[json]) {
			b->bytes[json] = s.bytes;
		} else if (b->bytes[json] != s.bytes) {
			fprintf(stderr, "parse_bench: output changed: %" PRIu64
				" bytes, then %" PRIu64 "\n", b->bytes[json], s.bytes);
			ok = false;
		}
	}
	fsm_monitor_fini(&m);
	if (m.out != stdout && fclose(m.out) != 0)
		ok = false;
	if (!ok)
		return 0;
	return t1 > t0 ? t1 - t0 : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct result {
	double median, min, max;	/* msg/s */
	double ns_per_msg;		/* at the median */
};

static struct result summarise(uint64_t *ns, int n, size_t nmsgs)
{
	struct result r;
	double med;

	qsort(ns, (size_t)n, sizeof(*ns), cmp_u64);
	med = n % 2 ? (double)ns[n / 2] :
		      ((double)ns[n / 2 - 1] + (double)ns[n / 2]) / 2;
	r.median = (double)nmsgs * 1e9 / med;
	r.max = (double)nmsgs * 1e9 / (double)ns[0];
	r.min = (double)nmsgs * 1e9 / (double)ns[n - 1];
	r.ns_per_msg = med / (double)nmsgs;
	return r;
}

static void usage(FILE *fp)
{
	fputs("usage: parse_bench [-n MESSAGES] [-r REPEATS] [-w WARMUP]\n"
	      "                   [-f text|json|both] [-s null|devnull|stdout]\n"
	      "  -n  messages in the buffer (default 100000)\n"
	      "  -r  timed passes per format, at least 1 (default 5)\n"
	      "  -w  untimed warm-up passes per format (default 1)\n"
	      "  -f  formats to time (default both)\n"
	      "  -s  output: null, a FILE that drops what it is given (default);\n"
	      "      devnull, /dev/null, a write(2) per message;\n"
	      "      stdout, to see the lines (with -n 10 -r 1 -w 0, say)\n", fp);
}

static long parse_num(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "parse_bench: invalid number '%s' (%ld to %ld)\n",
			s, min, max);
		usage(stderr);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const char *const names[2] = { "text", "json" };
	static uint64_t ns[2][MAX_REPEATS];
	struct bench b = { .sink_kind = SINK_NULL };
	struct result res[2];
	struct corpus c;
	long nmsgs = 100000, repeats = 5, warmup = 1;
	bool want[2] = { true, true }, met = true;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:w:f:s:h")) != -1) {
		switch (opt) {
		case 'n':
			nmsgs = parse_num(optarg, 1, 5000000);
			break;
		case 'r':
			repeats = parse_num(optarg, 1, MAX_REPEATS);
			break;
		case 'w':
			warmup = parse_num(optarg, 0, 100);
			break;
		case 'f':
			want[0] = !strcmp(optarg, "text") || !strcmp(optarg, "both");
			want[1] = !strcmp(optarg, "json") || !strcmp(optarg, "both");
			if (!want[0] && !want[1]) {
				usage(stderr);
				return 2;
			}
			break;
		case 's':
			if (!strcmp(optarg, "null")) {
				b.sink_kind = SINK_NULL;
			} else if (!strcmp(optarg, "devnull")) {
				b.sink_kind = SINK_DEVNULL;
			} else if (!strcmp(optarg, "stdout")) {
				b.sink_kind = SINK_STDOUT;
			} else {
				usage(stderr);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	build_corpus(&c, (size_t)nmsgs);
	b.c = &c;
	fsm_filter_init(&b.filter);

	printf("fsmsg parse+format: %ld messages in one %zu-byte buffer (%.0f bytes each on average), %ld warm-up + %ld timed passes per format\n",
	       nmsgs, c.raw.len, (double)c.raw.len / (double)nmsgs, warmup,
	       repeats);
	printf("path: fsm_monitor_message() per message, into %s\n",
	       b.sink_kind == SINK_NULL ?
	       "a FILE that drops the output (fopencookie, no syscall)" :
	       b.sink_kind == SINK_DEVNULL ?
	       "/dev/null (a write(2) per message)" : "stdout");
	printf("built: %s, CFLAGS %s\n\n", __VERSION__, BENCH_CFLAGS);

	for (long i = 0; i < warmup; i++)
		for (int f = 0; f < 2; f++)
			if (want[f] && !pass(&b, f))
				goto fail;
	for (long i = 0; i < repeats; i++)
		for (int f = 0; f < 2; f++)
			if (want[f] && !(ns[f][i] = pass(&b, f)))
				goto fail;

	printf("%-6s %12s %12s %12s %10s %10s\n", "format", "median msg/s",
	       "min msg/s", "max msg/s", "ns/msg", "bytes/msg");
	for (int f = 0; f < 2; f++) {
		if (!want[f])
			continue;
		res[f] = summarise(ns[f], (int)repeats, c.nmsgs);
		printf("%-6s %12.0f %12.0f %12.0f %10.1f", names[f],
		       res[f].median, res[f].min, res[f].max, res[f].ns_per_msg);
		if (b.bytes[f])
			printf(" %10.1f\n", (double)b.bytes[f] / (double)c.nmsgs);
		else
			printf(" %10s\n", "-");
		if (res[f].median < TARGET_RATE)
			met = false;
	}
	printf("\ntarget: at least %.0f msg/s (median of each format): %s\n",
	       TARGET_RATE, met ? "met" : "NOT met");

	raw_free(&c.raw);
	fsm_filter_free(&b.filter);
	return 0;
fail:
	raw_free(&c.raw);
	fsm_filter_free(&b.filter);
	return 1;
}
