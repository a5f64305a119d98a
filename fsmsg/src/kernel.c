// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsmsg and the kernel: the FS_MSG family's sockets, the subscription to
 * its events group, dumps of the counters, the kernel-side message filter
 * and the datagrams that reach the event socket.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "fsmsg.h"

static const char no_family[] =
	"the kernel has no FS_MSG family: it was built without CONFIG_FS_MSG (filesystem warning messages), or this is not the initial network namespace";

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
		exit(EXIT_NO_FAMILY);
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
int kernel_dump(struct app *app, struct fsm_fs_list *rows)
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

void kernel_subscribe(struct app *app)
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
void kernel_seed(struct app *app)
{
	struct fsm_fs_list rows = { 0 };
	int err;

	open_dump_socket(app);
	err = kernel_dump(app, &rows);
	if (err < 0) {
		dump_failed(app, err, "reading the FS_MSG counters");
		fsm_fs_list_free(&rows);
		exit(EXIT_RUNTIME);
	}
	fsm_monitor_seed(&app->mon, &rows);
	fsm_fs_list_free(&rows);
}

int kernel_list(struct app *app)
{
	struct fsm_fs_list rows = { 0 };
	int err, ret = EXIT_OK;

	open_dump_socket(app);
	resolve_family(app, app->dump);
	err = kernel_dump(app, &rows);
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

