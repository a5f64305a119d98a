// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fake generic netlink "kernel" with an FS_MSG family, for testing the
 * real fsmsg binary end to end on a host whose kernel lacks the family.
 *
 * LD_PRELOAD it: socket(AF_NETLINK, ..., NETLINK_GENERIC) returns one end
 * of a datagram socketpair, and the calls libnl and fsmsg make on it
 * (bind, getsockname, setsockopt, sendmsg, recvmsg) are answered here.
 * The controller resolves FS_MSG and its "events" group; FS_GET dumps
 * return the filesystems of a script; after the first dump (fsmsg's seed)
 * the script's events are multicast to the sockets that joined the group.
 *
 * Script (FAKEGENL_SCRIPT=file), one directive a line:
 *   nofamily                       the family does not exist
 *   deny-join                      joining the group fails with EPERM
 *   deny-dump                      FS_GET fails with EPERM
 *   fs MAJ MIN FSTYPE DEVICE UUID|- ENOSPC META INODE [SB_ID]   a
 *                                  filesystem and its counters before
 *                                  fsmsg started; SB_ID defaults to its
 *                                  line number among the fs lines (1-based)
 *   event TYPE MAJ MIN COUNT SUPPRESSED COMM   counter := COUNT, sent
 *   lost TYPE MAJ MIN COUNT        counter := COUNT, not sent (dropped)
 *   held TYPE MAJ MIN COUNT        counter := COUNT, not sent: held back by
 *                                  rate limiting, so the dump's SUPPRESSED
 *                                  grows (an event resets it)
 *   overrun                        the next read fails with ENOBUFS
 *   invalid                        a WARNING message without COUNT
 *   forged PORT TYPE MAJ MIN COUNT SUPPRESSED COMM   a warning multicast
 *                                  by another process (netlink port id
 *                                  PORT, nlmsg_pid 0 as a forger may set
 *                                  it); the counters do not change
 *   forged-error PORT              an NLMSG_ERROR (EPERM) and an NLMSG_DONE
 *                                  multicast from port id PORT
 *   realtime                       (setup) timestamps from CLOCK_REALTIME
 *                                  when each warning is sent, as the kernel
 *   filter-unsupported             (setup) FS_MSG_CMD_NOTIFY_FILTER_SET fails
 *                                  with EOPNOTSUPP, as on an older kernel
 *   filter-error                   (setup) it fails with EINVAL and, on a
 *                                  socket with NETLINK_EXT_ACK, the extack
 *                                  message "fake: filter refused"
 *   filter-deny                    (setup) it fails with EPERM
 *   severity N|none                the SEVERITY of the messages that follow
 *                                  (default 2, warning; none: not sent)
 *   summary TYPE MAJ MIN COUNT SUPPRESSED   a FS_MSG_CMD_SUMMARY: counter :=
 *                                  COUNT, the held-back ones reported
 *   details KEY=VALUE...|none      the fs-error and shutdown attributes of
 *                                  the messages that follow: errno, function,
 *                                  line, inode, block, reason, fs_flags
 *   counter MAJ MIN TYPE COUNT     (setup, after the fs line) the counter
 *                                  of TYPE (1 to 5) before fsmsg started
 * The fs line takes a LABEL after SB_ID (sent in dumps and messages).
 * Otherwise the filter is accepted, applied to the kernel's multicasts to
 * that socket, and with FAKEGENL_FILTERS=file appended to the file as one
 * line: "member" or "nonmember" (whether the socket had joined the group),
 * then each attribute in the order received: dev=MAJ:MIN sb_id=N
 * fstype=NAME uuid=HEX warning=N severity=N; "clear" when there were none.
 * Timestamps are 1796283771000000000 + n for the n-th warning (1-based),
 * unless "realtime"; BOOTTIME is 1000 + n. Numbers are sent as the kernel's
 * nla_put_uint() does: 4 bytes when they fit, else 8.
 *
 * More environment, all optional:
 *   FAKEGENL_STATE=file     the kernel outlives fsmsg: counters are loaded
 *                           from the file (over the script's fs lines) and
 *                           saved after the script ran
 *   FAKEGENL_RENAMES=file   every successful rename(2) appends "OLD NEW"
 *   FAKEGENL_JOURNAL=file   sd_journal_sendv() appends the entry's fields,
 *                           one a line, and an empty line
 *   FAKEGENL_JOURNAL_ERRNO=N  sd_journal_sendv() fails with -N
 *   FAKEGENL_RCVBUF=file    SO_RCVBUF/SO_RCVBUFFORCE on a fake socket
 *                           append "SO_RCVBUF N" or "SO_RCVBUFFORCE N"
 *   FAKEGENL_DENY_RCVBUFFORCE=1  SO_RCVBUFFORCE fails with EPERM
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nlbuild.h"

#define GROUP_ID 7
#define MAX_FAKES 16
#define MAX_ROWS 16
#define BASE_TS 1796283771000000000ULL

#define FILTER_MAX 16
#define NTYPES (FS_MSG_WARN_MAX + 1)

/* A socket's FS_MSG_CMD_NOTIFY_FILTER_SET: empty keys match everything. */
struct kfilter {
	bool set;
	int ndev, nsb, nfstype, nuuid, nwarning;
	uint32_t dev[FILTER_MAX][2];
	uint64_t sb[FILTER_MAX];
	char fstype[FILTER_MAX][32];
	uint8_t uuid[FILTER_MAX][16];
	uint32_t warning[FILTER_MAX];
	uint32_t severity;
};

struct fake {
	int fd;			/* handed to the program */
	int peer;		/* the kernel's end */
	bool member;
	bool ext_ack;
	uint32_t port;
	struct kfilter filter;
};

struct row {
	uint32_t major, minor;
	char fstype[32], device[32], label[64];
	bool has_uuid;
	uint8_t uuid[16];
	uint64_t sb_id;
	/* by warning type; [0]: types newer than FS_MSG_WARN_MAX */
	uint64_t count[NTYPES], last[NTYPES], supp[NTYPES];
};

static struct fake fakes[MAX_FAKES];
static struct row rows[MAX_ROWS];
static int nrows;
static bool loaded, nofamily, deny_join, deny_dump, script_ran, realtime;
static bool filter_unsupported, filter_error, filter_deny;
static int severity = 2;	/* -1: not sent */
/* The fs-error and shutdown attributes of the messages that follow. */
static struct {
	bool has_errno, has_line, has_inode, has_block, has_reason;
	bool has_fs_flags;
	uint32_t error, line, reason, fs_flags;
	uint64_t inode, block;
	char function[64];
} details;
static uint64_t nwarn;
static char *script_text;	/* the lines after the setup */

static int (*real_socket)(int, int, int);
static int (*real_close)(int);
static int (*real_setsockopt)(int, int, int, const void *, socklen_t);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static ssize_t (*real_sendto)(int, const void *, size_t, int,
			      const struct sockaddr *, socklen_t);
static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
static int (*real_rename)(const char *, const char *);

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("fakegenl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	_exit(99);
}

static void resolve(void)
{
	if (real_socket)
		return;
	real_socket = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	real_setsockopt = (int (*)(int, int, int, const void *, socklen_t))
		dlsym(RTLD_NEXT, "setsockopt");
	real_sendmsg = (ssize_t (*)(int, const struct msghdr *, int))
		dlsym(RTLD_NEXT, "sendmsg");
	real_recvmsg = (ssize_t (*)(int, struct msghdr *, int))
		dlsym(RTLD_NEXT, "recvmsg");
	real_sendto = (ssize_t (*)(int, const void *, size_t, int,
				   const struct sockaddr *, socklen_t))
		dlsym(RTLD_NEXT, "sendto");
	real_bind = (int (*)(int, const struct sockaddr *, socklen_t))
		dlsym(RTLD_NEXT, "bind");
	real_getsockname = (int (*)(int, struct sockaddr *, socklen_t *))
		dlsym(RTLD_NEXT, "getsockname");
	real_rename = (int (*)(const char *, const char *))
		dlsym(RTLD_NEXT, "rename");
}

static struct row *find_row(uint32_t major, uint32_t minor)
{
	for (int i = 0; i < nrows; i++)
		if (rows[i].major == major && rows[i].minor == minor)
			return &rows[i];
	die("no fs %u:%u in the script", major, minor);
}

static void parse_uuid(const char *s, struct row *r)
{
	int n = 0;

	r->has_uuid = strcmp(s, "-") != 0;
	for (; r->has_uuid && *s && n < 16; s++) {
		unsigned int b;

		if (*s == '-')
			continue;
		if (sscanf(s, "%2x", &b) != 1)
			die("bad uuid");
		r->uuid[n++] = (uint8_t)b;
		s++;
	}
}

/* FAKEGENL_STATE: "nwarn N", then "MAJ MIN TYPE COUNT LAST SUPP" lines. */
static void load_state(void)
{
	const char *path = getenv("FAKEGENL_STATE");
	unsigned int major, minor, w;
	unsigned long long count, last, supp;
	unsigned long long n;
	char line[256];
	FILE *fp;

	if (!path || !(fp = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "nwarn %llu", &n) == 1) {
			nwarn = n;
		} else if (sscanf(line, "%u %u %u %llu %llu %llu", &major, &minor,
				  &w, &count, &last, &supp) == 6 && w >= 1 && w <= FS_MSG_WARN_MAX) {
			for (int i = 0; i < nrows; i++) {
				if (rows[i].major != major || rows[i].minor != minor)
					continue;
				rows[i].count[w] = count;
				rows[i].last[w] = last;
				rows[i].supp[w] = supp;
			}
		}
	}
	fclose(fp);
}

static void save_state(void)
{
	const char *path = getenv("FAKEGENL_STATE");
	FILE *fp;

	if (!path)
		return;
	fp = fopen(path, "w");
	if (!fp)
		die("%s: %s", path, strerror(errno));
	fprintf(fp, "nwarn %llu\n", (unsigned long long)nwarn);
	for (int i = 0; i < nrows; i++)
		for (int w = 1; w <= FS_MSG_WARN_MAX; w++)
			fprintf(fp, "%u %u %d %llu %llu %llu\n", rows[i].major,
				rows[i].minor, w,
				(unsigned long long)rows[i].count[w],
				(unsigned long long)rows[i].last[w],
				(unsigned long long)rows[i].supp[w]);
	if (fclose(fp) != 0)
		die("%s: %s", path, strerror(errno));
}

/* Setup directives now; the rest is kept for after the seed dump. */
static void load(void)
{
	const char *path = getenv("FAKEGENL_SCRIPT");
	char line[512];
	size_t len = 0;
	FILE *fp;

	if (loaded)
		return;
	loaded = true;
	script_text = calloc(1, 1);
	if (!path)
		return;
	fp = fopen(path, "r");
	if (!fp)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), fp)) {
		char a[32], b[32], u[64], lab[64] = "";
		struct row *r;

		if (!strncmp(line, "nofamily", 8)) {
			nofamily = true;
		} else if (!strncmp(line, "deny-join", 9)) {
			deny_join = true;
		} else if (!strncmp(line, "deny-dump", 9)) {
			deny_dump = true;
		} else if (!strncmp(line, "realtime", 8)) {
			realtime = true;
		} else if (!strncmp(line, "filter-unsupported", 18)) {
			filter_unsupported = true;
		} else if (!strncmp(line, "filter-error", 12)) {
			filter_error = true;
		} else if (!strncmp(line, "filter-deny", 11)) {
			filter_deny = true;
		} else if (!strncmp(line, "fs ", 3)) {
			if (nrows == MAX_ROWS)
				die("too many fs");
			r = &rows[nrows++];
			r->sb_id = (uint64_t)nrows;
			if (sscanf(line, "fs %u %u %31s %31s %63s %lu %lu %lu %lu %63s",
				   &r->major, &r->minor, a, b, u, &r->count[1],
				   &r->count[2], &r->count[3], &r->sb_id, lab) < 8)
				die("bad line: %s", line);
			strcpy(r->label, lab);
			strcpy(r->fstype, a);
			strcpy(r->device, b);
			parse_uuid(u, r);
			for (int w = 1; w <= 3; w++)
				if (r->count[w])
					r->last[w] = BASE_TS - 1000 + (uint64_t)w;
		} else if (!strncmp(line, "counter ", 8)) {
			unsigned int major, minor, w;
			unsigned long long count;

			if (sscanf(line, "counter %u %u %u %llu", &major, &minor,
				   &w, &count) != 4 || w < 1 || w > FS_MSG_WARN_MAX)
				die("bad line: %s", line);
			r = find_row(major, minor);
			r->count[w] = count;
			r->last[w] = count ? BASE_TS - 1000 + (uint64_t)w : 0;
		} else if (line[0] != '#' && line[0] != '\n') {
			size_t n = strlen(line);

			script_text = realloc(script_text, len + n + 1);
			if (!script_text)
				die("out of memory");
			memcpy(script_text + len, line, n + 1);
			len += n;
		}
	}
	fclose(fp);
	load_state();
}

static struct fake *fake_of(int fd)
{
	for (int i = 0; i < MAX_FAKES; i++)
		if (fakes[i].fd == fd && fakes[i].peer > 0)
			return &fakes[i];
	return NULL;
}

/*
 * A datagram for the program's socket from netlink port id @from (0: the
 * kernel). The socketpair carries the port id as 4 bytes before the
 * message; recvmsg() below takes them off into msg_name.
 */
static void deliver_from(struct fake *f, uint32_t from, const void *p, size_t n)
{
	unsigned char buf[4 + 65536];

	if (n > sizeof(buf) - 4)
		die("deliver: %zu bytes", n);
	memcpy(buf, &from, 4);
	memcpy(buf + 4, p, n);
	if (real_sendto(f->peer, buf, n + 4, MSG_DONTWAIT, NULL, 0) != (ssize_t)(n + 4))
		die("deliver: %s", strerror(errno));
}

static void deliver(struct fake *f, const void *p, size_t n)
{
	deliver_from(f, 0, p, n);
}

/* Fix up seq/port of every message in @r and send each as a datagram. */
static void reply(struct fake *f, struct raw *r, uint32_t seq, bool one)
{
	size_t off = 0;

	while (off < r->len) {
		struct nlmsghdr h;

		memcpy(&h, r->buf + off, sizeof(h));
		h.nlmsg_seq = seq;
		h.nlmsg_pid = f->port;
		memcpy(r->buf + off, &h, sizeof(h));
		if (!one)
			deliver(f, r->buf + off, h.nlmsg_len);
		off += NLMSG_ALIGN(h.nlmsg_len);
	}
	if (one)	/* a dump: all in one datagram, as the kernel does */
		deliver(f, r->buf, r->len);
	raw_free(r);
}

static void error_reply(struct fake *f, const struct nlmsghdr *req, int err)
{
	struct raw r = { 0 };
	struct nlmsgerr e = { .error = err, .msg = *req };

	raw_begin_type(&r, NLMSG_ERROR, 0, 0);
	r.len -= GENL_HDRLEN;
	raw_put(&r, &e, sizeof(e));
	raw_end(&r);
	reply(f, &r, req->nlmsg_seq, false);
}

static void family_reply(struct fake *f, const struct nlmsghdr *req)
{
	struct raw r = { 0 };
	uint16_t id = TEST_FAMILY;
	size_t grps, grp;

	raw_begin_type(&r, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY,
		       (req->nlmsg_flags & NLM_F_DUMP) ? NLM_F_MULTI : 0);
	raw_attr(&r, CTRL_ATTR_FAMILY_ID, &id, sizeof(id));
	raw_str(&r, CTRL_ATTR_FAMILY_NAME, FS_MSG_FAMILY_NAME);
	raw_u32(&r, CTRL_ATTR_VERSION, FS_MSG_FAMILY_VERSION);
	raw_u32(&r, CTRL_ATTR_HDRSIZE, 0);
	raw_u32(&r, CTRL_ATTR_MAXATTR, FS_MSG_A_MAX);
	grps = r.len;
	raw_nest_begin(&r, CTRL_ATTR_MCAST_GROUPS);
	grp = r.len;
	raw_nest_begin(&r, 1);
	raw_u32(&r, CTRL_ATTR_MCAST_GRP_ID, GROUP_ID);
	raw_str(&r, CTRL_ATTR_MCAST_GRP_NAME, FS_MSG_MCGRP_EVENTS);
	r.nest = grp;
	raw_nest_end(&r);
	r.nest = grps;
	raw_nest_end(&r);
	raw_end(&r);
	if (req->nlmsg_flags & NLM_F_DUMP) {
		raw_begin_type(&r, NLMSG_DONE, 0, NLM_F_MULTI);
		raw_put(&r, &(int){ 0 }, sizeof(int));
		raw_end(&r);
		reply(f, &r, req->nlmsg_seq, true);
		return;
	}
	reply(f, &r, req->nlmsg_seq, false);
	if (req->nlmsg_flags & NLM_F_ACK)
		error_reply(f, req, 0);
}

static void run_script(void);

static void dump_reply(struct fake *f, const struct nlmsghdr *req)
{
	struct raw r = { 0 };

	for (int i = 0; i < nrows; i++)
		raw_fs_row_n(&r, rows[i].major, rows[i].minor, rows[i].fstype,
				 rows[i].device,
				 rows[i].has_uuid ? rows[i].uuid : NULL,
				 &rows[i].count[1], &rows[i].last[1],
				 &rows[i].supp[1], &rows[i].sb_id,
				 rows[i].label[0] ? rows[i].label : NULL,
				 FS_MSG_WARN_MAX);
	raw_begin_type(&r, NLMSG_DONE, 0, NLM_F_MULTI);
	raw_put(&r, &(int){ 0 }, sizeof(int));
	raw_end(&r);
	reply(f, &r, req->nlmsg_seq, true);
	if (!script_ran) {
		script_ran = true;
		run_script();
	}
}

/* The TIMESTAMP of the warning just counted (nwarn). */
static uint64_t warn_ts(void)
{
	struct timespec ts;

	if (!realtime)
		return BASE_TS + nwarn;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Whether a kernel message about @row, of type @w, passes filter @k. */
static bool passes(const struct kfilter *k, const struct row *row, uint32_t w)
{
	int i;

	if (!k->set)
		return true;
	for (i = 0; i < k->ndev; i++)
		if (k->dev[i][0] == row->major && k->dev[i][1] == row->minor)
			break;
	if (k->ndev && i == k->ndev)
		return false;
	for (i = 0; i < k->nsb; i++)
		if (k->sb[i] == row->sb_id)
			break;
	if (k->nsb && i == k->nsb)
		return false;
	for (i = 0; i < k->nfstype; i++)
		if (!strcmp(k->fstype[i], row->fstype))
			break;
	if (k->nfstype && i == k->nfstype)
		return false;
	for (i = 0; i < k->nuuid; i++)
		if (row->has_uuid && !memcmp(k->uuid[i], row->uuid, 16))
			break;
	if (k->nuuid && i == k->nuuid)
		return false;
	for (i = 0; i < k->nwarning; i++)
		if (k->warning[i] == w)
			break;
	if (k->nwarning && i == k->nwarning)
		return false;
	return (severity < 0 ? 2 : (uint32_t)severity) >= k->severity;
}

/* @row NULL: not the kernel's FS_MSG message, no filter applies. */
static void multicast_msg(uint32_t from, const struct row *row, uint32_t w,
			  const void *p, size_t n)
{
	for (int i = 0; i < MAX_FAKES; i++)
		if (fakes[i].peer > 0 && fakes[i].member &&
		    (from || !row || passes(&fakes[i].filter, row, w)))
			deliver_from(&fakes[i], from, p, n);
}

static void multicast_from(uint32_t from, const void *p, size_t n)
{
	multicast_msg(from, NULL, 0, p, n);
}

/* The overrun marker: one byte, no port id. */
static void multicast_marker(void)
{
	for (int i = 0; i < MAX_FAKES; i++)
		if (fakes[i].peer > 0 && fakes[i].member &&
		    real_sendto(fakes[i].peer, "!", 1, MSG_DONTWAIT, NULL, 0) != 1)
			die("deliver: %s", strerror(errno));
}

/* The details directive's attributes, in the order the kernel puts them. */
static void put_details(struct raw *r)
{
	if (details.has_errno)
		raw_u32(r, FS_MSG_A_ERRNO, details.error);
	if (details.function[0])
		raw_str(r, FS_MSG_A_FUNCTION, details.function);
	if (details.has_line)
		raw_u32(r, FS_MSG_A_LINE, details.line);
	if (details.has_inode)
		raw_uint(r, FS_MSG_A_INODE, details.inode);
	if (details.has_block)
		raw_uint(r, FS_MSG_A_BLOCK, details.block);
	if (details.has_reason)
		raw_u32(r, FS_MSG_A_REASON, details.reason);
	if (details.has_fs_flags)
		raw_u32(r, FS_MSG_A_FS_FLAGS, details.fs_flags);
}

/* "details KEY=VALUE...": the details of the messages that follow. */
static void set_details(const char *line)
{
	char copy[256], *save = NULL;

	memset(&details, 0, sizeof(details));
	snprintf(copy, sizeof(copy), "%s", line + strlen("details"));
	for (char *t = strtok_r(copy, " ", &save); t;
	     t = strtok_r(NULL, " ", &save)) {
		unsigned long long v;
		char name[64];

		if (!strcmp(t, "none"))
			continue;
		if (sscanf(t, "function=%63s", name) == 1) {
			snprintf(details.function, sizeof(details.function),
				 "%s", name);
			continue;
		}
		if (sscanf(t, "%63[a-z_]=%llu", name, &v) != 2)
			die("bad details: %s", line);
		if (!strcmp(name, "errno")) {
			details.has_errno = true;
			details.error = (uint32_t)v;
		} else if (!strcmp(name, "line")) {
			details.has_line = true;
			details.line = (uint32_t)v;
		} else if (!strcmp(name, "inode")) {
			details.has_inode = true;
			details.inode = v;
		} else if (!strcmp(name, "block")) {
			details.has_block = true;
			details.block = v;
		} else if (!strcmp(name, "reason")) {
			details.has_reason = true;
			details.reason = (uint32_t)v;
		} else if (!strcmp(name, "fs_flags")) {
			details.has_fs_flags = true;
			details.fs_flags = (uint32_t)v;
		} else {
			die("bad details: %s", line);
		}
	}
}

/* @from 0: the kernel's warning; else a forged one, which counts nothing. */
static void send_event(uint32_t w, uint32_t major, uint32_t minor,
		       uint64_t count, uint64_t suppressed, const char *comm,
		       bool valid, uint32_t from)
{
	struct row *row = find_row(major, minor);
	struct raw r = { 0 };
	uint64_t ts;

	if (!from)
		++nwarn;
	ts = warn_ts();
	if (valid && !from) {
		row->count[w < NTYPES ? w : 0] = count;
		row->last[w < NTYPES ? w : 0] = ts;
		row->supp[w < NTYPES ? w : 0] = 0;	/* reported with this one */
	}
	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_u32(&r, FS_MSG_A_WARNING, w);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, major);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, minor);
	raw_uint(&r, FS_MSG_A_CAUSED_ID, 0);
	raw_str(&r, FS_MSG_A_FSTYPE, row->fstype);
	raw_str(&r, FS_MSG_A_DEVICE, row->device);
	if (row->has_uuid)
		raw_attr(&r, FS_MSG_A_UUID, row->uuid, 16);
	raw_u32(&r, FS_MSG_A_PID, 4242);
	raw_str(&r, FS_MSG_A_COMM, comm);
	raw_uint(&r, FS_MSG_A_TIMESTAMP, ts);
	if (valid)
		raw_uint(&r, FS_MSG_A_COUNT, count);
	raw_uint(&r, FS_MSG_A_SUPPRESSED, suppressed);
	raw_uint(&r, FS_MSG_A_SB_ID, row->sb_id);
	raw_uint(&r, FS_MSG_A_BOOTTIME, 1000 + nwarn);
	if (severity >= 0)
		raw_u32(&r, FS_MSG_A_SEVERITY, (uint32_t)severity);
	if (row->label[0])
		raw_str(&r, FS_MSG_A_LABEL, row->label);
	put_details(&r);
	raw_end(&r);
	multicast_msg(from, row, w, r.buf, r.len);
	raw_free(&r);
}

/* A summary: the held-back warnings, counter := @count; no task. */
static void send_summary(uint32_t w, uint32_t major, uint32_t minor,
			 uint64_t count, uint64_t suppressed)
{
	struct row *row = find_row(major, minor);
	struct raw r = { 0 };
	uint64_t ts = warn_ts() + 500;

	if (w >= 1 && w <= FS_MSG_WARN_MAX) {
		row->count[w] = count;
		row->supp[w] = 0;
	}
	raw_begin(&r, FS_MSG_CMD_SUMMARY);
	raw_u32(&r, FS_MSG_A_WARNING, w);
	if (severity >= 0)
		raw_u32(&r, FS_MSG_A_SEVERITY, (uint32_t)severity);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, major);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, minor);
	raw_uint(&r, FS_MSG_A_SB_ID, row->sb_id);
	raw_str(&r, FS_MSG_A_FSTYPE, row->fstype);
	raw_str(&r, FS_MSG_A_DEVICE, row->device);
	if (row->has_uuid)
		raw_attr(&r, FS_MSG_A_UUID, row->uuid, 16);
	if (row->label[0])
		raw_str(&r, FS_MSG_A_LABEL, row->label);
	raw_uint(&r, FS_MSG_A_TIMESTAMP, ts);
	raw_uint(&r, FS_MSG_A_BOOTTIME, 1000 + nwarn);
	raw_uint(&r, FS_MSG_A_COUNT, count);
	raw_uint(&r, FS_MSG_A_SUPPRESSED, suppressed);
	put_details(&r);
	raw_end(&r);
	multicast_msg(0, row, w, r.buf, r.len);
	raw_free(&r);
}

/* What happens after fsmsg seeded: warnings, losses, an overrun. */
static void run_script(void)
{
	char *save = NULL;

	for (char *line = strtok_r(script_text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int w, major, minor, port;
		unsigned long count, supp;
		char comm[64];

		if (sscanf(line, "event %u %u %u %lu %lu %63s", &w, &major,
			   &minor, &count, &supp, comm) == 6) {
			send_event(w, major, minor, count, supp, comm, true, 0);
		} else if (sscanf(line, "forged %u %u %u %u %lu %lu %63s", &port,
				  &w, &major, &minor, &count, &supp, comm) == 7 &&
			   port) {
			send_event(w, major, minor, count, supp, comm, true, port);
		} else if (sscanf(line, "lost %u %u %u %lu", &w, &major, &minor,
				  &count) == 4 && w >= 1 && w <= FS_MSG_WARN_MAX) {
			struct row *row = find_row(major, minor);

			row->count[w] = count;
			++nwarn;
			row->last[w] = warn_ts();
			row->supp[w] = 0;	/* the lost message carried them */
		} else if (sscanf(line, "held %u %u %u %lu", &w, &major, &minor,
				  &count) == 4 && w >= 1 && w <= FS_MSG_WARN_MAX) {
			struct row *row = find_row(major, minor);

			if (count > row->count[w])
				row->supp[w] += count - row->count[w];
			row->count[w] = count;
			++nwarn;
			row->last[w] = warn_ts();
		} else if (sscanf(line, "forged-error %u", &port) == 1 && port) {
			struct raw r = { 0 };
			struct nlmsgerr e = { .error = -EPERM };

			raw_begin_type(&r, NLMSG_ERROR, 0, 0);
			r.len -= GENL_HDRLEN;
			raw_put(&r, &e, sizeof(e));
			raw_end(&r);
			raw_begin_type(&r, NLMSG_DONE, 0, NLM_F_MULTI);
			r.len -= GENL_HDRLEN;
			raw_put(&r, &(int){ 0 }, sizeof(int));
			raw_end(&r);
			multicast_from(port, r.buf, r.len);
			raw_free(&r);
		} else if (sscanf(line, "summary %u %u %u %lu %lu", &w, &major,
				  &minor, &count, &supp) == 5) {
			send_summary(w, major, minor, count, supp);
		} else if (!strncmp(line, "details", 7)) {
			set_details(line);
		} else if (!strcmp(line, "severity none")) {
			severity = -1;
		} else if (sscanf(line, "severity %u", &w) == 1) {
			severity = (int)w;
		} else if (!strcmp(line, "overrun")) {
			multicast_marker();	/* becomes ENOBUFS when read */
		} else if (!strcmp(line, "invalid")) {
			send_event(1, rows[0].major, rows[0].minor, 0, 0, "bad",
				   false, 0);
		} else {
			die("bad line: %s", line);
		}
	}
	save_state();
}

/* An error with an extended ack message, when the socket asked for them. */
static void extack_reply(struct fake *f, const struct nlmsghdr *req, int err,
			 const char *text)
{
	struct raw r = { 0 };
	struct nlmsgerr e = { .error = err, .msg = *req };

	if (!f->ext_ack) {
		error_reply(f, req, err);
		return;
	}
	/* Capped: the request's header only, then the TLVs. */
	raw_begin_type(&r, NLMSG_ERROR, 0, NLM_F_CAPPED | NLM_F_ACK_TLVS);
	r.len -= GENL_HDRLEN;
	raw_put(&r, &e, sizeof(e));
	raw_str(&r, NLMSGERR_ATTR_MSG, text);
	raw_end(&r);
	reply(f, &r, req->nlmsg_seq, false);
}

/* FS_MSG_CMD_NOTIFY_FILTER_SET: parse, record, keep for the socket. */
static void filter_set(struct fake *f, const struct nlmsghdr *req,
		       const unsigned char *a, size_t n)
{
	const char *path = getenv("FAKEGENL_FILTERS");
	struct kfilter k = { .set = true };
	char line[4096];
	size_t used = 0, off = 0;

	if (filter_unsupported) {
		error_reply(f, req, -EOPNOTSUPP);
		return;
	}
	if (filter_deny) {
		error_reply(f, req, -EPERM);
		return;
	}
	if (filter_error) {
		extack_reply(f, req, -EINVAL, "fake: filter refused");
		return;
	}
	used += (size_t)snprintf(line, sizeof(line), "%s",
				 f->member ? "member" : "nonmember");
	while (off + NLA_HDRLEN <= n) {
		struct nlattr nla;
		const unsigned char *d = a + off + NLA_HDRLEN;
		uint32_t v = 0;
		uint64_t u = 0;

		memcpy(&nla, a + off, sizeof(nla));
		if (nla.nla_len < NLA_HDRLEN || nla.nla_len > n - off)
			die("filter: bad attribute");
		if (nla.nla_len >= NLA_HDRLEN + 4)
			memcpy(&v, d, 4);
		switch (nla.nla_type & NLA_TYPE_MASK) {
		case FS_MSG_A_FILTER_DEV: {
			uint32_t mm[2] = { 0, 0 };
			size_t o = 0, len = nla.nla_len - NLA_HDRLEN;

			while (o + NLA_HDRLEN + 4 <= len) {
				struct nlattr in;

				memcpy(&in, d + o, sizeof(in));
				if ((in.nla_type & NLA_TYPE_MASK) == FS_MSG_A_FILTER_DEV_MAJOR)
					memcpy(&mm[0], d + o + NLA_HDRLEN, 4);
				else if ((in.nla_type & NLA_TYPE_MASK) == FS_MSG_A_FILTER_DEV_MINOR)
					memcpy(&mm[1], d + o + NLA_HDRLEN, 4);
				o += NLA_ALIGN(in.nla_len);
			}
			if (k.ndev == FILTER_MAX)
				goto too_many;
			k.dev[k.ndev][0] = mm[0];
			k.dev[k.ndev++][1] = mm[1];
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 " dev=%u:%u", mm[0], mm[1]);
			break;
		}
		case FS_MSG_A_FILTER_SB_ID:
			if (nla.nla_len == NLA_HDRLEN + 8)
				memcpy(&u, d, 8);
			else
				u = v;
			if (k.nsb == FILTER_MAX)
				goto too_many;
			k.sb[k.nsb++] = u;
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 " sb_id=%lu", u);
			break;
		case FS_MSG_A_FILTER_FSTYPE:
			if (k.nfstype == FILTER_MAX)
				goto too_many;
			snprintf(k.fstype[k.nfstype], sizeof(k.fstype[0]), "%.*s",
				 (int)(nla.nla_len - NLA_HDRLEN), (const char *)d);
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 " fstype=%s", k.fstype[k.nfstype++]);
			break;
		case FS_MSG_A_FILTER_UUID:
			if (nla.nla_len != NLA_HDRLEN + 16) {
				extack_reply(f, req, -EINVAL, "fake: UUID not 16 bytes");
				return;
			}
			if (k.nuuid == FILTER_MAX)
				goto too_many;
			memcpy(k.uuid[k.nuuid++], d, 16);
			used += (size_t)snprintf(line + used, sizeof(line) - used, " uuid=");
			for (int i = 0; i < 16; i++)
				used += (size_t)snprintf(line + used, sizeof(line) - used,
							 "%02x", d[i]);
			break;
		case FS_MSG_A_FILTER_WARNING:
			if (k.nwarning == FILTER_MAX)
				goto too_many;
			k.warning[k.nwarning++] = v;
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 " warning=%u", v);
			break;
		case FS_MSG_A_FILTER_SEVERITY:
			k.severity = v;
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 " severity=%u", v);
			break;
		default:
			extack_reply(f, req, -EINVAL, "fake: unknown attribute");
			return;
		}
		if (used >= sizeof(line))
			die("filter line too long");
		off += NLA_ALIGN((size_t)nla.nla_len);
	}
	if (!k.ndev && !k.nsb && !k.nfstype && !k.nuuid && !k.nwarning &&
	    !k.severity) {
		k.set = false;
		snprintf(line + used, sizeof(line) - used, " clear");
	}
	if (path) {
		FILE *fp = fopen(path, "a");

		if (!fp)
			die("%s: %s", path, strerror(errno));
		fprintf(fp, "%s\n", line);
		fclose(fp);
	}
	f->filter = k;
	if (req->nlmsg_flags & NLM_F_ACK)
		error_reply(f, req, 0);
	return;
too_many:
	extack_reply(f, req, -E2BIG, "fake: more than 16 values");
}

/* The kernel's side of sendmsg(): requests to the controller or FS_MSG. */
static void handle(struct fake *f, const unsigned char *p, size_t n)
{
	struct nlmsghdr req;
	struct genlmsghdr gh;

	if (n < NLMSG_HDRLEN + GENL_HDRLEN)
		die("short request");
	memcpy(&req, p, sizeof(req));
	memcpy(&gh, p + NLMSG_HDRLEN, sizeof(gh));
	if (req.nlmsg_type == GENL_ID_CTRL && gh.cmd == CTRL_CMD_GETFAMILY) {
		const unsigned char *a = p + NLMSG_HDRLEN + GENL_HDRLEN;
		bool ours = true;

		/* By name: only FS_MSG exists here. */
		if (n > NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN)
			ours = strcmp((const char *)a + NLA_HDRLEN,
				      FS_MSG_FAMILY_NAME) == 0;
		if (nofamily || !ours)
			error_reply(f, &req, -ENOENT);
		else
			family_reply(f, &req);
	} else if (req.nlmsg_type == TEST_FAMILY && gh.cmd == FS_MSG_CMD_FS_GET &&
		   (req.nlmsg_flags & NLM_F_DUMP)) {
		if (deny_dump)
			error_reply(f, &req, -EPERM);
		else
			dump_reply(f, &req);
	} else if (req.nlmsg_type == TEST_FAMILY &&
		   gh.cmd == FS_MSG_CMD_NOTIFY_FILTER_SET) {
		size_t len = req.nlmsg_len < n ? req.nlmsg_len : n;

		filter_set(f, &req, p + NLMSG_HDRLEN + GENL_HDRLEN,
			   len - NLMSG_HDRLEN - GENL_HDRLEN);
	} else {
		error_reply(f, &req, -EOPNOTSUPP);
	}
}

int socket(int domain, int type, int protocol)
{
	int sv[2];

	resolve();
	if (domain != AF_NETLINK || protocol != NETLINK_GENERIC)
		return real_socket(domain, type, protocol);
	load();
	if (socketpair(AF_UNIX, SOCK_DGRAM | (type & (SOCK_CLOEXEC | SOCK_NONBLOCK)),
		       0, sv) < 0)
		return -1;
	for (int i = 0; i < MAX_FAKES; i++) {
		if (fakes[i].peer <= 0) {
			fakes[i] = (struct fake){ .fd = sv[0], .peer = sv[1] };
			return sv[0];
		}
	}
	die("too many sockets");
}

int close(int fd)
{
	struct fake *f;

	resolve();
	f = fake_of(fd);
	if (f) {
		real_close(f->peer);
		f->peer = 0;
	}
	return real_close(fd);
}

int bind(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	struct fake *f;
	struct sockaddr_nl nl;

	resolve();
	f = fake_of(fd);
	if (!f)
		return real_bind(fd, addr.__sockaddr__, len);
	if (len < sizeof(nl)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&nl, addr.__sockaddr__, sizeof(nl));
	f->port = nl.nl_pid ? nl.nl_pid : (uint32_t)getpid() + (uint32_t)fd;
	return 0;
}

int getsockname(int fd, __SOCKADDR_ARG addr, socklen_t *len)
{
	struct fake *f;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	resolve();
	f = fake_of(fd);
	if (!f)
		return real_getsockname(fd, addr.__sockaddr__, len);
	nl.nl_pid = f->port;
	memcpy(addr.__sockaddr__, &nl, *len < sizeof(nl) ? *len : sizeof(nl));
	*len = sizeof(nl);
	return 0;
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct fake *f;

	resolve();
	f = fake_of(fd);
	if (!f)
		return real_setsockopt(fd, level, name, val, len);
	if (level == SOL_NETLINK && name == NETLINK_ADD_MEMBERSHIP) {
		int grp;

		memcpy(&grp, val, sizeof(grp));
		if (deny_join) {
			errno = EPERM;
			return -1;
		}
		if (grp != GROUP_ID) {
			errno = EINVAL;
			return -1;
		}
		f->member = true;
	}
	if (level == SOL_NETLINK && name == NETLINK_EXT_ACK && len >= sizeof(int)) {
		int on;

		memcpy(&on, val, sizeof(on));
		f->ext_ack = on != 0;
	}
	if (level == SOL_SOCKET && (name == SO_RCVBUF || name == SO_RCVBUFFORCE) &&
	    len >= sizeof(int)) {
		const char *log = getenv("FAKEGENL_RCVBUF");
		bool force = name == SO_RCVBUFFORCE;
		int size;

		memcpy(&size, val, sizeof(size));
		if (log) {
			FILE *fp = fopen(log, "a");

			if (!fp || fprintf(fp, "%s %d\n", force ? "SO_RCVBUFFORCE" :
					   "SO_RCVBUF", size) < 0 || fclose(fp) != 0)
				die("%s: %s", log, strerror(errno));
		}
		if (force && getenv("FAKEGENL_DENY_RCVBUFFORCE")) {
			errno = EPERM;
			return -1;
		}
	}
	return 0;	/* buffer sizes and the like: fine */
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct fake *f;
	unsigned char buf[65536];
	size_t n = 0;

	resolve();
	f = fake_of(fd);
	if (!f)
		return real_sendmsg(fd, msg, flags);
	for (size_t i = 0; i < msg->msg_iovlen; i++) {
		if (n + msg->msg_iov[i].iov_len > sizeof(buf))
			die("request too large");
		memcpy(buf + n, msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
		n += msg->msg_iov[i].iov_len;
	}
	handle(f, buf, n);
	return (ssize_t)n;
}

ssize_t sendto(int fd, const void *p, size_t n, int flags,
	       __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	struct fake *f;

	resolve();
	f = fake_of(fd);
	if (!f)
		return real_sendto(fd, p, n, flags, addr.__sockaddr__, len);
	handle(f, p, n);
	return (ssize_t)n;
}

/*
 * What the program reads: the datagram without its 4-byte port id, which
 * goes into msg_name as the kernel's netlink does. MSG_PEEK and MSG_TRUNC
 * behave as on a real socket (libnl peeks for the size first).
 */
ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct fake *f;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	unsigned char buf[4 + 65536];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = msg->msg_control,
		.msg_controllen = msg->msg_controllen,
	};
	size_t len, done = 0;
	ssize_t n;

	resolve();
	f = fake_of(fd);
	if (!f)
		return real_recvmsg(fd, msg, flags);
	n = real_recvmsg(fd, &m, flags & ~MSG_TRUNC);
	if (n < 0)
		return n;
	if (n == 1 && buf[0] == '!') {
		/* The overrun marker: reported once, then gone. */
		if (flags & MSG_PEEK) {
			char c;

			recv(fd, &c, 1, MSG_DONTWAIT);
		}
		errno = ENOBUFS;
		return -1;
	}
	if (n < 4)
		die("recvmsg: a datagram of %zd bytes", n);
	memcpy(&nl.nl_pid, buf, 4);
	len = (size_t)n - 4;
	for (size_t i = 0; i < msg->msg_iovlen && done < len; i++) {
		size_t k = msg->msg_iov[i].iov_len;

		if (k > len - done)
			k = len - done;
		memcpy(msg->msg_iov[i].iov_base, buf + 4 + done, k);
		done += k;
	}
	msg->msg_controllen = m.msg_controllen;
	msg->msg_flags = m.msg_flags | (done < len ? MSG_TRUNC : 0);
	if (msg->msg_name) {
		memcpy(msg->msg_name, &nl,
		       msg->msg_namelen < sizeof(nl) ? msg->msg_namelen : sizeof(nl));
		msg->msg_namelen = sizeof(nl);
	}
	return (ssize_t)((flags & MSG_TRUNC) ? len : done);
}

/* The tests count the metrics file's rewrites and check where they come
 * from. */
int rename(const char *oldpath, const char *newpath)
{
	const char *log = getenv("FAKEGENL_RENAMES");
	int ret;

	resolve();
	ret = real_rename(oldpath, newpath);
	if (ret == 0 && log) {
		int saved = errno;
		FILE *fp = fopen(log, "a");

		if (!fp || fprintf(fp, "%s %s\n", oldpath, newpath) < 0 ||
		    fclose(fp) != 0)
			die("%s: %s", log, strerror(errno));
		errno = saved;
	}
	return ret;
}

/* A fake journal: fsmsg --journal links libsystemd; this one comes first. */
int sd_journal_sendv(const struct iovec *iov, int n)
{
	const char *path = getenv("FAKEGENL_JOURNAL");
	const char *fail = getenv("FAKEGENL_JOURNAL_ERRNO");
	FILE *fp;

	if (fail)
		return -atoi(fail);
	if (!path) {
		int (*real)(const struct iovec *, int) =
			(int (*)(const struct iovec *, int))
			dlsym(RTLD_NEXT, "sd_journal_sendv");

		return real ? real(iov, n) : -ENOSYS;
	}
	fp = fopen(path, "a");
	if (!fp)
		die("%s: %s", path, strerror(errno));
	for (int i = 0; i < n; i++) {
		fwrite(iov[i].iov_base, 1, iov[i].iov_len, fp);
		fputc('\n', fp);
	}
	fputc('\n', fp);
	if (fclose(fp) != 0)
		die("%s: %s", path, strerror(errno));
	return 0;
}
