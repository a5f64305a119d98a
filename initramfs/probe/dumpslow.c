// SPDX-License-Identifier: GPL-2.0
/*
 * dumpslow: a slow FS_MSG dump client, for the tests of how the kernel
 * resumes a dump between dumpit calls.
 *
 *   dumpslow [-T FSTYPE] GO_FILE
 *
 * Sends one FS_MSG_CMD_FS_GET dump request and peeks at the first
 * datagram without consuming it, prints its filesystems, then waits until
 * GO_FILE exists (the shell changes the mounts meanwhile) before it reads
 * the rest.  The socket's receive buffer is the smallest the kernel allows
 * and reads are one page: the kernel's first dumpit call fills one page at
 * the request, and the next one runs only when that datagram is consumed,
 * so everything after the first datagram is built after GO_FILE appeared.
 *
 * Output, one line per filesystem and a summary:
 *   fs DATAGRAM MAJ:MIN FSTYPE DEVICE
 *   first datagram done                (stdout, before waiting)
 *   datagrams N filesystems M          (N: datagrams with filesystems)
 * and "dumpslow: waiting for GO_FILE" on stderr while it waits.
 *
 * Exit status: 0 done, 1 usage, 2 failure (netlink error, timeout).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../../fsmsg/uapi/linux/fs_msg.h"

#define PROBE_NAME "dumpslow"
#include "genl_req.h"

/* One page: the size of the kernel's first dump datagram. */
#define READ_SIZE	4096
#define WAIT_SECONDS	120

static uint16_t family_id;
static int datagrams, filesystems, with_fs;


static const struct nlattr *attr_first(const struct nlmsghdr *nlh)
{
	return (const struct nlattr *)((const char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
}

static void resolve(void)
{
	static char buf[16384];
	const struct nlattr *a;
	struct nlmsghdr *nlh;
	struct req r;
	ssize_t n;
	int fd, len, done = 0;

	fd = nl_open();
	req_init(&r, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY);
	req_put(&r, CTRL_ATTR_FAMILY_NAME, FS_MSG_FAMILY_NAME,
		sizeof(FS_MSG_FAMILY_NAME));
	nl_send(fd, &r);
	while (!done) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			die("recv (nlctrl)");
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);

				if (e->error) {
					fprintf(stderr, "dumpslow: no FS_MSG family: %s\n",
						strerror(-e->error));
					exit(2);
				}
				done = 1;
				break;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
			for (a = attr_first(nlh);
			     len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
			     len -= NLA_ALIGNED(a->nla_len),
			     a = (const struct nlattr *)((const char *)a + NLA_ALIGNED(a->nla_len))) {
				if (a->nla_type == CTRL_ATTR_FAMILY_ID)
					family_id = *(const uint16_t *)((const char *)a + NLA_HDRLEN);
			}
		}
	}
	close(fd);
	if (!family_id) {
		fprintf(stderr, "dumpslow: no FS_MSG family\n");
		exit(2);
	}
}

/* Print one FS_GET reply as "fs DATAGRAM MAJ:MIN FSTYPE DEVICE". */
static void print_fs(const struct nlmsghdr *nlh)
{
	char fstype[64] = "?", device[64] = "?";
	const struct nlattr *a;
	uint32_t major = UINT32_MAX, minor = UINT32_MAX;
	int len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	for (a = attr_first(nlh);
	     len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGNED(a->nla_len),
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGNED(a->nla_len))) {
		const char *data = (const char *)a + NLA_HDRLEN;
		int dlen = a->nla_len - NLA_HDRLEN;

		switch (a->nla_type & NLA_TYPE_MASK) {
		case FS_MSG_A_DEV_MAJOR:
			if (dlen == 4)
				major = *(const uint32_t *)data;
			break;
		case FS_MSG_A_DEV_MINOR:
			if (dlen == 4)
				minor = *(const uint32_t *)data;
			break;
		case FS_MSG_A_FSTYPE:
			snprintf(fstype, sizeof(fstype), "%.*s", dlen, data);
			break;
		case FS_MSG_A_DEVICE:
			snprintf(device, sizeof(device), "%.*s", dlen, data);
			break;
		}
	}
	if (major == UINT32_MAX || minor == UINT32_MAX) {
		fprintf(stderr, "dumpslow: a reply without a device number\n");
		exit(2);
	}
	printf("fs %d %u:%u %s %s\n", datagrams, major, minor, fstype, device);
	filesystems++;
	with_fs = datagrams;
}

/*
 * Parse one datagram of N bytes; returns 1 at NLMSG_DONE, 0 if more are
 * to come.
 */
static int parse(char *buf, ssize_t n)
{
	struct nlmsghdr *nlh;

	for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
		if (nlh->nlmsg_type == NLMSG_DONE)
			return 1;
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = NLMSG_DATA(nlh);

			fprintf(stderr, "dumpslow: the dump failed: %s\n",
				strerror(-e->error));
			exit(2);
		}
		if (nlh->nlmsg_type != family_id) {
			fprintf(stderr, "dumpslow: unexpected message type %u\n",
				nlh->nlmsg_type);
			exit(2);
		}
		print_fs(nlh);
	}
	return 0;
}

static ssize_t read_datagram(int fd, char *buf, int flags)
{
	ssize_t n = recv(fd, buf, READ_SIZE, flags | MSG_TRUNC);

	if (n < 0)
		die("recv");
	if (n > READ_SIZE) {
		fprintf(stderr, "dumpslow: a %zd-byte datagram, larger than the %d-byte reads\n",
			n, READ_SIZE);
		exit(2);
	}
	return n;
}

static void wait_for(const char *go)
{
	struct stat st;
	int i;

	fprintf(stderr, "dumpslow: waiting for %s\n", go);
	for (i = 0; i < WAIT_SECONDS * 20; i++) {
		if (stat(go, &st) == 0)
			return;
		usleep(50000);
	}
	fprintf(stderr, "dumpslow: %s did not appear within %d s\n", go, WAIT_SECONDS);
	exit(2);
}

int main(int argc, char **argv)
{
	static char buf[READ_SIZE];
	const char *fstype = NULL, *go;
	struct req r;
	int fd, one = 1, done;
	ssize_t n;

	if (argc == 4 && !strcmp(argv[1], "-T"))
		fstype = argv[2];
	else if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: dumpslow [-T FSTYPE] GO_FILE\n");
		return 1;
	}
	go = argv[argc - 1];

	resolve();
	fd = nl_open();
	/*
	 * The smallest receive buffer: with one datagram queued the kernel
	 * builds no more, and peeking does not make room for another.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one)))
		die("SO_RCVBUF");
	req_init(&r, family_id, NLM_F_DUMP, FS_MSG_CMD_FS_GET);
	if (fstype)
		req_put(&r, FS_MSG_A_FSTYPE, fstype, strlen(fstype) + 1);
	nl_send(fd, &r);

	/* The first datagram was built by the request itself. */
	datagrams = 1;
	n = read_datagram(fd, buf, MSG_PEEK);
	done = parse(buf, n);
	printf("first datagram done\n");
	fflush(stdout);
	if (!done)
		wait_for(go);
	/* Consume it: only now does the kernel build the next one. */
	read_datagram(fd, buf, 0);
	while (!done) {
		n = read_datagram(fd, buf, 0);
		datagrams++;
		done = parse(buf, n);
	}
	/* The last datagram may hold nothing but NLMSG_DONE. */
	printf("datagrams %d filesystems %d\n", with_fs, filesystems);
	close(fd);
	return 0;
}
