// SPDX-License-Identifier: GPL-2.0
/*
 * fsmsg_probe: the guest tests' hostile and malformed FS_MSG clients.
 *
 *   fsmsg_probe sleep               join events, never read; on SIGTERM say
 *                                   whether the socket overran
 *   fsmsg_probe listen N COUNT SECS N sockets join events; exit 0 when every
 *                                   socket received COUNT warnings in time
 *   fsmsg_probe request CASE        send one crafted FS_GET request, print
 *                                   "ok N" (replies) or "error ERRNO: EXTACK"
 *   fsmsg_probe filter CASE         send one crafted NOTIFY_FILTER_SET request,
 *                                   print "ok 0" or "error ERRNO: EXTACK"
 *   fsmsg_probe watch SECS [KEY=VALUE...]
 *                                   join events, set a kernel filter of the
 *                                   given keys (dev=MAJ:MIN, sb=ID, fstype=T,
 *                                   uuid=HEX32, warning=N, severity=N), then
 *                                   print one line per message for SECS
 *                                   seconds or until SIGTERM; no filtering of
 *                                   its own, so it shows what the kernel sent.
 *                                   Keys after then=PATH replace the filter,
 *                                   on the same socket, once PATH exists
 *   fsmsg_probe group               print the events group's number
 *   fsmsg_probe join GROUP SECS     join GROUP by number and stay SECS seconds;
 *                                   print "joined GROUP" or "error ERRNO ..."
 *   fsmsg_probe setlabel PATH LABEL FS_IOC_SETFSLABEL on the filesystem of PATH
 *   fsmsg_probe setuuid PATH UUID   EXT4_IOC_SETFSUUID on the ext4 of PATH
 *   fsmsg_probe getuuid PATH        print the UUID that FS_IOC_GETFSUUID
 *                                   gives (the VFS superblock's), as blkid
 *                                   prints it
 *   fsmsg_probe forge MAJ MIN       send a forged WARNING into the events group,
 *                                   as any CAP_NET_ADMIN holder can
 *
 * Raw netlink, no libnl, so that every byte sent is the test's choice.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/fs.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../../fsmsg/uapi/linux/fs_msg.h"

#define PROBE_NAME "fsmsg_probe"
#include "genl_req.h"

#define BUF_SIZE	65536

/*
 * From the kernel's fs/ext4/ext4.h, which no uapi header carries; the
 * ioctl number has the size of the header only (fsu_uuid[] is flexible).
 */
struct ext4_fsuuid {
	uint32_t	fsu_len;
	uint32_t	fsu_flags;
};

#define EXT4_IOC_SETFSUUID	_IOW('f', 44, struct ext4_fsuuid)

/* Linux 6.5's linux/fs.h, newer than the build host's. */
#ifndef FS_IOC_GETFSUUID
struct fsuuid2 {
	uint8_t		len;
	uint8_t		uuid[16];
};

#define FS_IOC_GETFSUUID	_IOR(0x15, 0, struct fsuuid2)
#endif

static uint16_t family_id;
static uint32_t events_group;


/* The extack message of an error reply, or "-". */
static const char *extack_msg(struct nlmsghdr *nlh)
{
	struct nlmsgerr *e = NLMSG_DATA(nlh);
	size_t off = NLMSG_HDRLEN + sizeof(*e);
	struct nlattr *a;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return "-";
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	while (off + NLA_HDRLEN <= nlh->nlmsg_len) {
		a = (struct nlattr *)((char *)nlh + off);
		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > nlh->nlmsg_len)
			break;
		if (a->nla_type == NLMSGERR_ATTR_MSG)
			return (const char *)a + NLA_HDRLEN;
		off += NLA_ALIGNED(a->nla_len);
	}
	return "-";
}

/*
 * Read replies until the dump ends or an error or ack arrives.  Returns 0
 * and the number of data messages, or the negative errno of the error.
 */
static int nl_replies(int fd, int *messages, const char **extack,
		      void (*each)(struct nlmsghdr *))
{
	static char buf[BUF_SIZE];
	struct nlmsghdr *nlh;
	ssize_t n;

	*messages = 0;
	*extack = "-";
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			die("recv");
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);

				*extack = extack_msg(nlh);
				return e->error;
			}
			(*messages)++;
			if (each)
				each(nlh);
		}
	}
}

/* Fill family_id and events_group from the controller's reply. */
static void parse_family(struct nlmsghdr *nlh)
{
	struct nlattr *a, *g, *ga;
	int len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	for (a = (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	     len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGNED(a->nla_len),
	     a = (struct nlattr *)((char *)a + NLA_ALIGNED(a->nla_len))) {
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			family_id = *(uint16_t *)((char *)a + NLA_HDRLEN);
		if ((a->nla_type & NLA_TYPE_MASK) != CTRL_ATTR_MCAST_GROUPS)
			continue;
		/* A nest of nests of NAME and ID. */
		for (g = (struct nlattr *)((char *)a + NLA_HDRLEN);
		     (char *)g + NLA_HDRLEN <= (char *)a + a->nla_len;
		     g = (struct nlattr *)((char *)g + NLA_ALIGNED(g->nla_len))) {
			const char *name = NULL;
			uint32_t id = 0;

			if (g->nla_len < NLA_HDRLEN)
				break;
			for (ga = (struct nlattr *)((char *)g + NLA_HDRLEN);
			     (char *)ga + NLA_HDRLEN <= (char *)g + g->nla_len;
			     ga = (struct nlattr *)((char *)ga + NLA_ALIGNED(ga->nla_len))) {
				if (ga->nla_len < NLA_HDRLEN)
					break;
				if (ga->nla_type == CTRL_ATTR_MCAST_GRP_NAME)
					name = (const char *)ga + NLA_HDRLEN;
				if (ga->nla_type == CTRL_ATTR_MCAST_GRP_ID)
					id = *(uint32_t *)((char *)ga + NLA_HDRLEN);
			}
			if (name && !strcmp(name, FS_MSG_MCGRP_EVENTS))
				events_group = id;
		}
	}
}

static void resolve(void)
{
	const char *extack;
	struct req r;
	int fd, n, err;

	fd = nl_open();
	/* NLM_F_ACK: the reply is one message, then the ack ends it. */
	req_init(&r, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY);
	req_put(&r, CTRL_ATTR_FAMILY_NAME, FS_MSG_FAMILY_NAME,
		sizeof(FS_MSG_FAMILY_NAME));
	nl_send(fd, &r);
	err = nl_replies(fd, &n, &extack, parse_family);
	close(fd);
	if (err || !family_id || !events_group) {
		fprintf(stderr, "fsmsg_probe: no FS_MSG family or events group (%s)\n",
			err ? strerror(-err) : "missing");
		exit(2);
	}
}

static int join(int rcvbuf)
{
	int fd = nl_open();

	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		die("SO_RCVBUF");
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &events_group,
		       sizeof(events_group)))
		die("NETLINK_ADD_MEMBERSHIP");
	return fd;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Join with the smallest buffer and never read. */
static int cmd_sleep(void)
{
	char buf[BUF_SIZE];
	bool overrun = false;
	ssize_t n;
	int fd;

	fd = join(1);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	fprintf(stderr, "fsmsg_probe: listening, never reading\n");
	while (!stop)
		pause();
	/* ENOBUFS once: the kernel dropped messages rather than wait. */
	for (;;) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			overrun = true;
			continue;
		}
		if (n <= 0)
			break;
	}
	printf("overrun: %s\n", overrun ? "yes" : "no");
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* N listeners, each must receive COUNT warning messages within SECS. */
static int cmd_listen(int n, long count, double secs)
{
	static char buf[BUF_SIZE];
	struct pollfd *pfd = calloc(n, sizeof(*pfd));
	long *got = calloc(n, sizeof(*got));
	int *overruns = calloc(n, sizeof(*overruns));
	double deadline;
	int i, done = 0, bad = 0;

	if (!pfd || !got || !overruns)
		die("calloc");
	for (i = 0; i < n; i++) {
		pfd[i].fd = join(1 << 20);
		pfd[i].events = POLLIN;
	}
	fprintf(stderr, "fsmsg_probe: listening on %d sockets\n", n);
	deadline = now() + secs;
	while (done < n && now() < deadline) {
		if (poll(pfd, n, 100) < 0 && errno != EINTR)
			die("poll");
		for (i = 0; i < n; i++) {
			struct nlmsghdr *nlh;
			ssize_t len;

			if (!(pfd[i].revents & POLLIN) || got[i] >= count)
				continue;
			len = recv(pfd[i].fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (len < 0) {
				if (errno == ENOBUFS)
					overruns[i]++;
				continue;
			}
			for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, len);
			     nlh = NLMSG_NEXT(nlh, len)) {
				struct genlmsghdr *g = NLMSG_DATA(nlh);

				if (nlh->nlmsg_type == family_id &&
				    g->cmd == FS_MSG_CMD_WARNING)
					got[i]++;
			}
			if (got[i] >= count)
				done++;
		}
	}
	for (i = 0; i < n; i++) {
		if (got[i] != count || overruns[i]) {
			printf("socket %d: %ld messages, %d overruns\n", i, got[i],
			       overruns[i]);
			bad++;
		}
	}
	printf("%d sockets, %d received all %ld messages\n", n, n - bad, count);
	free(pfd);
	free(got);
	free(overruns);
	return bad ? 1 : 0;
}

/* One crafted FS_GET request, named by CASE. */
static int cmd_request(const char *what)
{
	uint32_t u32 = 254;
	uint16_t u16 = 254;
	char big[200];
	const char *extack;
	struct req r;
	int fd, n, err;

	req_init(&r, family_id, NLM_F_DUMP, FS_MSG_CMD_FS_GET);
	if (!strcmp(what, "plain")) {
		/* A good dump. */
	} else if (!strcmp(what, "filter")) {
		req_put(&r, FS_MSG_A_DEV_MAJOR, &u32, sizeof(u32));
	} else if (!strcmp(what, "unknown-attr")) {
		req_put(&r, 99, &u32, sizeof(u32));
	} else if (!strcmp(what, "short-u32")) {
		req_put(&r, FS_MSG_A_DEV_MAJOR, &u16, sizeof(u16));
	} else if (!strcmp(what, "long-fstype")) {
		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		req_put(&r, FS_MSG_A_FSTYPE, big, sizeof(big));
	} else if (!strcmp(what, "unterminated-fstype")) {
		req_put(&r, FS_MSG_A_FSTYPE, "ext4", 4);
	} else if (!strcmp(what, "event-attr")) {
		/* A valid attribute that the dump does not take. */
		req_put(&r, FS_MSG_A_COUNT, &u32, sizeof(u32));
	} else if (!strcmp(what, "unknown-cmd")) {
		req_init(&r, family_id, NLM_F_DUMP, 99);
	} else if (!strcmp(what, "doit")) {
		req_init(&r, family_id, NLM_F_ACK, FS_MSG_CMD_FS_GET);
	} else if (!strcmp(what, "warning-cmd")) {
		req_init(&r, family_id, NLM_F_DUMP, FS_MSG_CMD_WARNING);
	} else {
		fprintf(stderr, "fsmsg_probe: unknown request '%s'\n", what);
		return 1;
	}
	fd = nl_open();
	nl_send(fd, &r);
	err = nl_replies(fd, &n, &extack, NULL);
	close(fd);
	if (err)
		printf("error %d %s: %s\n", -err, strerror(-err), extack);
	else
		printf("ok %d\n", n);
	return 0;
}

/* Append a nest holding a device number's major and minor. */
static void req_put_dev(struct req *r, uint32_t major, uint32_t minor)
{
	struct nlattr *nest = (struct nlattr *)(r->buf + NLMSG_ALIGN(r->nlh.nlmsg_len));
	uint32_t start = NLMSG_ALIGN(r->nlh.nlmsg_len);

	req_put(r, FS_MSG_A_FILTER_DEV | NLA_F_NESTED, "", 0);
	req_put(r, FS_MSG_A_FILTER_DEV_MAJOR, &major, sizeof(major));
	req_put(r, FS_MSG_A_FILTER_DEV_MINOR, &minor, sizeof(minor));
	nest->nla_len = r->nlh.nlmsg_len - start;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 32 hex digits, dashes anywhere, into @uuid; 0, or -1 if not a UUID. */
static int parse_uuid(const char *text, unsigned char uuid[16])
{
	int i = 0, hi, lo;

	for (; *text && i < 16; text++) {
		if (*text == '-')
			continue;
		hi = hexval(text[0]);
		lo = text[1] ? hexval(text[1]) : -1;
		if (hi < 0 || lo < 0)
			return -1;
		uuid[i++] = hi << 4 | lo;
		text++;
	}
	return i == 16 && !*text ? 0 : -1;
}

/* KEY=VALUE into a NOTIFY_FILTER_SET request; exits 1 on a bad one. */
static void filter_arg(struct req *r, const char *arg)
{
	const char *v = strchr(arg, '=');
	unsigned int maj, min;
	unsigned char uuid[16];
	uint64_t u64;
	uint32_t u32;

	if (!v)
		goto bad;
	v++;
	if (!strncmp(arg, "dev=", 4)) {
		if (sscanf(v, "%u:%u", &maj, &min) != 2)
			goto bad;
		req_put_dev(r, maj, min);
	} else if (!strncmp(arg, "sb=", 3)) {
		u64 = strtoull(v, NULL, 10);
		req_put(r, FS_MSG_A_FILTER_SB_ID, &u64, sizeof(u64));
	} else if (!strncmp(arg, "fstype=", 7)) {
		req_put(r, FS_MSG_A_FILTER_FSTYPE, v, strlen(v) + 1);
	} else if (!strncmp(arg, "uuid=", 5)) {
		if (parse_uuid(v, uuid))
			goto bad;
		req_put(r, FS_MSG_A_FILTER_UUID, uuid, sizeof(uuid));
	} else if (!strncmp(arg, "warning=", 8)) {
		u32 = strtoul(v, NULL, 10);
		req_put(r, FS_MSG_A_FILTER_WARNING, &u32, sizeof(u32));
	} else if (!strncmp(arg, "severity=", 9)) {
		u32 = strtoul(v, NULL, 10);
		req_put(r, FS_MSG_A_FILTER_SEVERITY, &u32, sizeof(u32));
	} else {
		goto bad;
	}
	return;
bad:
	fprintf(stderr, "fsmsg_probe: bad filter '%s'\n", arg);
	exit(1);
}

/* Send a NOTIFY_FILTER_SET request on FD and wait for its ack. */
static int filter_send(int fd, struct req *r, const char **extack)
{
	int n;

	nl_send(fd, r);
	return nl_replies(fd, &n, extack, NULL);
}

/* One crafted NOTIFY_FILTER_SET request, named by CASE. */
static int cmd_filter(const char *what)
{
	const char *extack;
	uint32_t u32 = 1;
	uint16_t u16 = 1;
	struct req r;
	int fd, i, err;

	req_init(&r, family_id, NLM_F_ACK, FS_MSG_CMD_NOTIFY_FILTER_SET);
	if (!strcmp(what, "good")) {
		req_put(&r, FS_MSG_A_FILTER_FSTYPE, "xfs", 4);
		req_put_dev(&r, 254, 16);
	} else if (!strcmp(what, "empty")) {
		/* Clears the filter. */
	} else if (!strcmp(what, "unknown-attr")) {
		req_put(&r, 99, &u32, sizeof(u32));
	} else if (!strcmp(what, "short-u32")) {
		req_put(&r, FS_MSG_A_FILTER_WARNING, &u16, sizeof(u16));
	} else if (!strcmp(what, "bad-warning")) {
		u32 = 99;
		req_put(&r, FS_MSG_A_FILTER_WARNING, &u32, sizeof(u32));
	} else if (!strcmp(what, "bad-severity")) {
		u32 = 0;
		req_put(&r, FS_MSG_A_FILTER_SEVERITY, &u32, sizeof(u32));
	} else if (!strcmp(what, "short-uuid")) {
		req_put(&r, FS_MSG_A_FILTER_UUID, "0123456789", 10);
	} else if (!strcmp(what, "unterminated-fstype")) {
		req_put(&r, FS_MSG_A_FILTER_FSTYPE, "ext4", 4);
	} else if (!strcmp(what, "too-many")) {
		for (i = 0; i < 17; i++)
			req_put(&r, FS_MSG_A_FILTER_FSTYPE, "ext4", 5);
	} else if (!strcmp(what, "dev-big-minor")) {
		/* Would alias 8:1 in MKDEV() if minors were not bounded. */
		req_put_dev(&r, 0, 0x800001);
	} else if (!strcmp(what, "dev-big-major")) {
		/* 4104 is 8 + 4096: would alias 8:1 if majors were not bounded. */
		req_put_dev(&r, 4104, 1);
	} else if (!strcmp(what, "dev-no-minor")) {
		struct nlattr *nest = (struct nlattr *)(r.buf + NLMSG_ALIGN(r.nlh.nlmsg_len));
		uint32_t start = NLMSG_ALIGN(r.nlh.nlmsg_len);

		req_put(&r, FS_MSG_A_FILTER_DEV | NLA_F_NESTED, "", 0);
		req_put(&r, FS_MSG_A_FILTER_DEV_MAJOR, &u32, sizeof(u32));
		nest->nla_len = r.nlh.nlmsg_len - start;
	} else {
		fprintf(stderr, "fsmsg_probe: unknown filter case '%s'\n", what);
		return 1;
	}
	fd = nl_open();
	err = filter_send(fd, &r, &extack);
	close(fd);
	if (err)
		printf("error %d %s: %s\n", -err, strerror(-err), extack);
	else
		printf("ok 0\n");
	return 0;
}

/* The value of a 4- or 8-byte unsigned attribute (NLA_UINT). */
static uint64_t attr_uint(const struct nlattr *a)
{
	uint64_t v64;
	uint32_t v32;

	if (a->nla_len == NLA_HDRLEN + 8) {
		memcpy(&v64, (const char *)a + NLA_HDRLEN, 8);
		return v64;
	}
	memcpy(&v32, (const char *)a + NLA_HDRLEN, 4);
	return v32;
}

/* One line for a message: what a test needs, keyed by name. */
static void print_message(struct nlmsghdr *nlh)
{
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	int len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	unsigned long long sb = 0, count = 0, suppressed = 0;
	unsigned int warning = 0, severity = 0, maj = 0, min = 0;
	const char *fstype = "-", *label = "-";
	char uuid[33] = "-";
	bool task = false;
	int i;
	struct nlattr *a;

	for (a = (struct nlattr *)((char *)g + GENL_HDRLEN);
	     len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGNED(a->nla_len),
	     a = (struct nlattr *)((char *)a + NLA_ALIGNED(a->nla_len))) {
		const char *data = (const char *)a + NLA_HDRLEN;

		switch (a->nla_type & NLA_TYPE_MASK) {
		case FS_MSG_A_WARNING:
			memcpy(&warning, data, 4);
			break;
		case FS_MSG_A_SEVERITY:
			memcpy(&severity, data, 4);
			break;
		case FS_MSG_A_DEV_MAJOR:
			memcpy(&maj, data, 4);
			break;
		case FS_MSG_A_DEV_MINOR:
			memcpy(&min, data, 4);
			break;
		case FS_MSG_A_SB_ID:
			sb = attr_uint(a);
			break;
		case FS_MSG_A_COUNT:
			count = attr_uint(a);
			break;
		case FS_MSG_A_SUPPRESSED:
			suppressed = attr_uint(a);
			break;
		case FS_MSG_A_FSTYPE:
			fstype = data;
			break;
		case FS_MSG_A_LABEL:
			label = data;
			break;
		case FS_MSG_A_UUID:
			if (a->nla_len != NLA_HDRLEN + 16)
				break;
			for (i = 0; i < 16; i++)
				snprintf(uuid + 2 * i, 3, "%02x",
					 (unsigned char)data[i]);
			break;
		case FS_MSG_A_PID:
			task = true;
			break;
		}
	}
	printf("cmd=%s warning=%u severity=%u dev=%u:%u sb=%llu fstype=%s uuid=%s label=%s count=%llu suppressed=%llu task=%s\n",
	       g->cmd == FS_MSG_CMD_WARNING ? "warning" :
	       g->cmd == FS_MSG_CMD_SUMMARY ? "summary" : "other",
	       warning, severity, maj, min, sb, fstype, uuid, label, count,
	       suppressed, task ? "yes" : "no");
	fflush(stdout);
}

/* Listen with a kernel filter; print every message the kernel sends. */
static void watch_print(struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_type == family_id)
		print_message(nlh);
}

/*
 * Set the socket's filter to the keys args[0..nargs).  The ack comes on the
 * joined socket: events queued before it are printed as they are read.
 */
static int watch_filter(int fd, int nargs, char **args)
{
	const char *extack;
	struct req r;
	int i, n, err;

	req_init(&r, family_id, NLM_F_ACK, FS_MSG_CMD_NOTIFY_FILTER_SET);
	for (i = 0; i < nargs; i++)
		filter_arg(&r, args[i]);
	nl_send(fd, &r);
	err = nl_replies(fd, &n, &extack, watch_print);
	if (err)
		fprintf(stderr, "fsmsg_probe: filter: %s: %s\n",
			strerror(-err), extack);
	return err;
}

static int cmd_watch(double secs, int nargs, char **args)
{
	static char buf[BUF_SIZE];
	const char *then = NULL;
	struct pollfd pfd;
	double deadline;
	int i, nfirst = nargs;

	for (i = 0; i < nargs; i++)
		if (!strncmp(args[i], "then=", 5)) {
			then = args[i] + 5;
			nfirst = i;
			break;
		}
	pfd.fd = join(1 << 20);
	pfd.events = POLLIN;
	if (nfirst && watch_filter(pfd.fd, nfirst, args))
		return 2;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	fprintf(stderr, "fsmsg_probe: listening with %d filter keys\n", nfirst);
	deadline = now() + secs;
	while (!stop && now() < deadline) {
		struct nlmsghdr *nlh;
		ssize_t len;

		if (then && access(then, F_OK) == 0) {
			if (watch_filter(pfd.fd, nargs - nfirst - 1,
					 args + nfirst + 1))
				return 2;
			fprintf(stderr, "fsmsg_probe: refiltered with %d filter keys\n",
				nargs - nfirst - 1);
			then = NULL;
		}

		if (poll(&pfd, 1, 100) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (!(pfd.revents & POLLIN))
			continue;
		len = recv(pfd.fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (len < 0) {
			if (errno == ENOBUFS)
				printf("overrun\n");
			continue;
		}
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len))
			if (nlh->nlmsg_type == family_id)
				print_message(nlh);
	}
	return 0;
}

/*
 * A WARNING that looks like the kernel's, multicast from user space into
 * the events group (netlink lets CAP_NET_ADMIN do that): listeners must
 * tell it by its sender port id, which is ours, not the kernel's 0.
 */
static int cmd_forge(uint32_t major, uint32_t minor)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	uint64_t count = 1, zero = 0;
	uint32_t warning = FS_MSG_WARN_ENOSPC, pid = 1;
	struct req r;
	int fd;

	if (events_group > 32) {
		fprintf(stderr, "fsmsg_probe: group %u cannot be addressed by sendto()\n",
			events_group);
		return 3;
	}
	sa.nl_groups = 1U << (events_group - 1);
	req_init(&r, family_id, 0, FS_MSG_CMD_WARNING);
	r.nlh.nlmsg_flags = 0;
	r.nlh.nlmsg_pid = 0;		/* claims to be the kernel */
	req_put(&r, FS_MSG_A_WARNING, &warning, sizeof(warning));
	req_put(&r, FS_MSG_A_DEV_MAJOR, &major, sizeof(major));
	req_put(&r, FS_MSG_A_DEV_MINOR, &minor, sizeof(minor));
	req_put(&r, FS_MSG_A_FSTYPE, "ext4", 5);
	req_put(&r, FS_MSG_A_DEVICE, "forged", 7);
	req_put(&r, FS_MSG_A_PID, &pid, sizeof(pid));
	req_put(&r, FS_MSG_A_COMM, "forged", 7);
	req_put(&r, FS_MSG_A_CAUSED_ID, &zero, sizeof(zero));
	req_put(&r, FS_MSG_A_TIMESTAMP, &zero, sizeof(zero));
	req_put(&r, FS_MSG_A_COUNT, &count, sizeof(count));
	req_put(&r, FS_MSG_A_SUPPRESSED, &zero, sizeof(zero));
	fd = nl_open();
	if (sendto(fd, r.buf, r.nlh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		die("sendto (group)");
	close(fd);
	printf("forged a warning for %u:%u into group %u\n", major, minor,
	       events_group);
	return 0;
}

/* FS_IOC_SETFSLABEL on the filesystem that holds PATH. */
static int cmd_setlabel(const char *path, const char *label)
{
	char buf[FSLABEL_MAX] = "";
	int fd;

	if (strlen(label) >= sizeof(buf)) {
		fprintf(stderr, "fsmsg_probe: label too long\n");
		return 1;
	}
	strcpy(buf, label);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	if (ioctl(fd, FS_IOC_SETFSLABEL, buf))
		die("FS_IOC_SETFSLABEL");
	close(fd);
	return 0;
}

/* EXT4_IOC_SETFSUUID to UUID (32 hex digits, dashes anywhere). */
static int cmd_setuuid(const char *path, const char *text)
{
	struct {
		struct ext4_fsuuid h;
		uint8_t uuid[16];
	} u = { .h.fsu_len = 16 };
	int fd;

	if (parse_uuid(text, u.uuid)) {
		fprintf(stderr, "fsmsg_probe: not a UUID of 32 hex digits\n");
		return 1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	if (ioctl(fd, EXT4_IOC_SETFSUUID, &u))
		die("EXT4_IOC_SETFSUUID");
	close(fd);
	return 0;
}

static int cmd_getuuid(const char *path)
{
	struct fsuuid2 u;
	int fd, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	if (ioctl(fd, FS_IOC_GETFSUUID, &u))
		die("FS_IOC_GETFSUUID");
	close(fd);
	if (u.len != 16) {
		fprintf(stderr, "fsmsg_probe: a UUID of %u bytes\n", u.len);
		return 2;
	}
	for (i = 0; i < 16; i++)
		printf("%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "",
		       u.uuid[i]);
	printf("\n");
	return 0;
}

static long number(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "fsmsg_probe: '%s' is not a number in %ld..%ld\n",
			s, min, max);
		exit(1);
	}
	return v;
}

/*
 * Join group GROUP by number, as a process that cannot resolve the family
 * (another network namespace) would; print "joined GROUP" and stay a
 * member for SECS seconds, or "error ERRNO STRERROR".
 */
static int cmd_join(uint32_t group, long secs)
{
	int fd = nl_open();

	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group,
		       sizeof(group))) {
		printf("error %d %s\n", errno, strerror(errno));
		close(fd);
		return 0;
	}
	printf("joined %u\n", group);
	fflush(stdout);
	if (secs)
		sleep(secs);
	close(fd);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fsmsg_probe sleep\n"
		"       fsmsg_probe listen SOCKETS COUNT SECONDS\n"
		"       fsmsg_probe request plain|filter|unknown-attr|short-u32|long-fstype|\n"
		"                           unterminated-fstype|event-attr|unknown-cmd|doit|\n"
		"                           warning-cmd\n"
		"       fsmsg_probe filter good|empty|unknown-attr|short-u32|bad-warning|\n"
		"                          bad-severity|short-uuid|unterminated-fstype|\n"
		"                          too-many|dev-big-minor|dev-big-major|\n"
		"                          dev-no-minor\n"
		"       fsmsg_probe group\n"
		"       fsmsg_probe join GROUP SECONDS\n"
		"       fsmsg_probe watch SECONDS [dev=M:N|sb=ID|fstype=T|uuid=HEX|\n"
		"                                  warning=N|severity=N ...]\n"
		"                                 [then=PATH KEY=VALUE ...]\n"
		"       fsmsg_probe setlabel PATH LABEL\n"
		"       fsmsg_probe setuuid PATH UUID\n"
		"       fsmsg_probe getuuid PATH\n"
		"       fsmsg_probe forge MAJOR MINOR\n");
	exit(1);
}

int main(int argc, char **argv)
{
	long sockets, count, secs;

	if (argc == 2 && !strcmp(argv[1], "sleep")) {
		resolve();
		return cmd_sleep();
	}
	if (argc == 5 && !strcmp(argv[1], "listen")) {
		sockets = number(argv[2], 1, 1024);
		count = number(argv[3], 1, 1000000);
		secs = number(argv[4], 1, 3600);
		resolve();
		return cmd_listen(sockets, count, secs);
	}
	if (argc == 3 && !strcmp(argv[1], "request")) {
		resolve();
		return cmd_request(argv[2]);
	}
	if (argc == 3 && !strcmp(argv[1], "filter")) {
		resolve();
		return cmd_filter(argv[2]);
	}
	if (argc >= 3 && !strcmp(argv[1], "watch")) {
		secs = number(argv[2], 1, 3600);
		resolve();
		return cmd_watch(secs, argc - 3, argv + 3);
	}
	if (argc == 2 && !strcmp(argv[1], "group")) {
		resolve();
		printf("%u\n", events_group);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "join"))
		return cmd_join(number(argv[2], 1, 0xffffffffL),
				number(argv[3], 0, 3600));
	if (argc == 4 && !strcmp(argv[1], "setlabel"))
		return cmd_setlabel(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "setuuid"))
		return cmd_setuuid(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "getuuid"))
		return cmd_getuuid(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "forge")) {
		uint32_t maj = number(argv[2], 0, 4095);
		uint32_t min = number(argv[3], 0, 1048575);

		resolve();
		return cmd_forge(maj, min);
	}
	usage();
	return 1;
}
