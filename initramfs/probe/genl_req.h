/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw generic netlink requests for the guest's probes (fsmsg_probe,
 * dumpslow): no libnl, so that every byte sent is the test's choice.
 * Define PROBE_NAME before including it; errors are "PROBE_NAME: ...".
 */
#ifndef GENL_REQ_H
#define GENL_REQ_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#define NLA_ALIGNED(len) (((len) + NLA_ALIGNTO - 1) & ~(NLA_ALIGNTO - 1))

static inline void die(const char *what)
{
	fprintf(stderr, PROBE_NAME ": %s: %s\n", what, strerror(errno));
	exit(2);
}

/* A request under construction. */
struct req {
	union {
		struct nlmsghdr nlh;
		char buf[4096];
	};
};

static inline void req_init(struct req *r, uint16_t type, uint16_t flags,
			    uint8_t cmd)
{
	struct genlmsghdr *g;

	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->nlh.nlmsg_seq = 1;
	g = NLMSG_DATA(&r->nlh);
	g->cmd = cmd;
	g->version = 1;
}

static inline void req_put(struct req *r, uint16_t type, const void *data,
			   size_t len)
{
	struct nlattr *a = (struct nlattr *)(r->buf + NLMSG_ALIGN(r->nlh.nlmsg_len));

	if (NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_HDRLEN + NLA_ALIGNED(len) > sizeof(r->buf)) {
		fprintf(stderr, PROBE_NAME ": request too large\n");
		exit(2);
	}
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGNED(a->nla_len);
}

static inline int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		die("socket");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind");
	/* Error replies carry the kernel's explanation. */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return fd;
}

static inline void nl_send(int fd, struct req *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(fd, r->buf, r->nlh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		die("sendto");
}

#endif /* GENL_REQ_H */
