// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the input is what one recv() on an FS_MSG socket could
 * return, a run of netlink messages. Each goes through the event parser,
 * the dump-reply parser, both formatters, the accounting and the filters,
 * via the same monitor code the daemon runs, with the metrics and the
 * journal entries. Output invariants are checked too: a line never
 * contains a newline before its end, JSON never a raw control character,
 * a journal field never a newline, the metrics file always passes the
 * strict exposition format parser.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <linux/netlink.h>

#include "monitor.h"
#include "promcheck.h"

static void check_line(const struct fsm_buf *b, bool json)
{
	if (b->oom || !b->len)
		return;
	for (size_t i = 0; i < b->len; i++) {
		unsigned char c = (unsigned char)b->data[i];

		if (c == '\n' && i != b->len - 1)
			abort();	/* one event, one line */
		if (json && c < 0x20 && c != '\n')
			abort();	/* unescaped control character */
	}
	if (b->data[b->len - 1] != '\n' || b->data[b->len] != '\0')
		abort();
}

/* A journal entry: NAME=value fields, no newline anywhere, NUL-free. */
static void check_entry(void *arg, const struct fsm_fields *f)
{
	struct iovec iov[FSM_FIELDS_MAX];
	size_t n = fsm_fields_iovec(f, iov);

	(void)arg;
	for (size_t i = 0; i < n; i++) {
		const char *p = iov[i].iov_base;

		if (!memchr(p, '=', iov[i].iov_len) ||
		    memchr(p, '\n', iov[i].iov_len) || memchr(p, '\0', iov[i].iov_len))
			abort();
	}
}

static void check_metrics(struct fsm_metrics *m)
{
	struct promcheck pc;
	struct fsm_buf b;

	fsm_buf_init(&b);
	if (fsm_metrics_render(m, &b) == 0 && promcheck(&pc, fsm_buf_str(&b)) < 0) {
		fprintf(stderr, "metrics file rejected: %s\n%s", pc.err,
			fsm_buf_str(&b));
		abort();
	}
	fsm_buf_free(&b);
}

static void one_message(const unsigned char *p, size_t len,
			struct fsm_monitor *mon, struct fsm_fs_list *rows)
{
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_buf b;

	/* Straight through the parser and both formatters. */
	if (fsm_event_parse(p, len, 0, &ev, &err) == FSM_PARSE_OK) {
		fsm_buf_init(&b);
		for (int rx = 0; rx < 2; rx++) {
			/* With --receive-time too: the delay either way. */
			fsm_buf_reset(&b);
			fsm_format_event_text(&b, &ev, 1, rx);
			check_line(&b, false);
			fsm_buf_reset(&b);
			fsm_format_event_json(&b, &ev, 1, rx);
			check_line(&b, true);
		}
		fsm_buf_free(&b);
	}
	/* And through the monitor: accounting, filters, missed reports;
	 * the second as if some came from another port id than the
	 * kernel's (sequence numbers with bit 8 set here; the corpus has
	 * 1), which it rejects. */
	fsm_monitor_message(&mon[0], p, len, 2);
	if (len >= NLMSG_HDRLEN) {
		struct nlmsghdr nlh;

		memcpy(&nlh, p, sizeof(nlh));
		if (!fsm_monitor_from_kernel(&mon[1],
					     nlh.nlmsg_seq & 0x100 ? nlh.nlmsg_seq : 0,
					     nlh.nlmsg_seq))
			goto rows;
	}
	fsm_monitor_message(&mon[1], p, len, 3);
rows:
	fsm_fs_list_add(rows, p, len, 0, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t uuid[16] = { 0x0c, 0x5f };
	struct fsm_monitor mon[2] = { { .json = false }, { .json = true } };
	struct fsm_fs_list rows = { 0 };
	struct fsm_metrics met[2];
	struct fsm_filter f, f2;
	unsigned char *buf;
	size_t off = 0;

	/* A private heap copy, aligned as a recv() buffer would be. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);

	/* Two monitors, text and JSON, with filters taking other branches;
	 * the text one with --receive-time. */
	mon[0].received = true;
	fsm_filter_init(&f);
	fsm_filter_add_fstype(&f, "ext4");
	fsm_filter_add_fstype(&f, "btrfs");
	fsm_filter_add_warning(&f, 2);
	fsm_filter_add_warning(&f, 1);
	fsm_filter_init(&f2);
	fsm_filter_add_uuid(&f2, uuid);
	fsm_filter_add_dev(&f2, 254, 16);
	f2.min_severity = FS_MSG_SEVERITY_ERROR;
	mon[0].filter = &f;
	mon[1].filter = &f2;
	for (int i = 0; i < 2; i++) {
		if (fsm_monitor_init(&mon[i]) < 0)
			abort();
		/* A small bound, so that the fuzzer reaches it too. */
		fsm_metrics_init(&met[i], 5, 8);
		mon[i].metrics = &met[i];
		mon[i].sink = check_entry;
	}

	/* Each message gets all the bytes that follow it (so nlmsg_len is
	 * checked against the real end), then the walk follows nlmsg_len
	 * as a receiver would. */
	do {
		struct nlmsghdr nlh;
		size_t rem = size - off;

		one_message(buf + off, rem, mon, &rows);
		if (rem < sizeof(nlh))
			break;
		memcpy(&nlh, buf + off, sizeof(nlh));
		if (nlh.nlmsg_len < NLMSG_HDRLEN || nlh.nlmsg_len > rem)
			break;
		off += NLMSG_ALIGN(nlh.nlmsg_len);
	} while (off < size);

	/* The dump rows: --list output, seed and resync. */
	for (int i = 0; i < 2; i++) {
		fsm_monitor_list(&mon[i], &rows);
		fsm_monitor_seed(&mon[i], &rows);
		fsm_monitor_resync(&mon[i], &rows, 4);
		fsm_monitor_refresh(&mon[i], &rows);
		check_metrics(&met[i]);
	}
	for (size_t i = 0; i < rows.n; i++) {
		struct fsm_buf b;
		uint32_t *cols = NULL;
		long n = fsm_filter_columns(&f, &rows.v[i], 1, &cols);

		fsm_buf_init(&b);
		if (n >= 0)
			fsm_format_fs_json(&b, &rows.v[i], cols, (size_t)n);
		check_line(&b, true);
		fsm_buf_free(&b);
		free(cols);
	}

	for (int i = 0; i < 2; i++) {
		fsm_monitor_fini(&mon[i]);
		fsm_metrics_free(&met[i]);
	}
	fsm_fs_list_free(&rows);
	fsm_filter_free(&f);
	fsm_filter_free(&f2);
	free(buf);
	return 0;
}
