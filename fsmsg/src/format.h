/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text and JSON renderings of FS_MSG events, missed-warning reports and the
 * filesystem list, into a caller-owned growable buffer. No global state.
 */
#ifndef FSMSG_FORMAT_H
#define FSMSG_FORMAT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct fsm_buf {
	char *data;		/* NUL-terminated once anything was added */
	size_t len;
	size_t cap;
	bool oom;		/* an append failed: contents are incomplete */
};

void fsm_buf_init(struct fsm_buf *b);
void fsm_buf_free(struct fsm_buf *b);
void fsm_buf_reset(struct fsm_buf *b);
int fsm_buf_append(struct fsm_buf *b, const void *p, size_t n);
int fsm_buf_puts(struct fsm_buf *b, const char *s);
int fsm_buf_printf(struct fsm_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int fsm_buf_vprintf(struct fsm_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* The contents as a string ("" when empty). */
const char *fsm_buf_str(const struct fsm_buf *b);

/* Warnings that fsmsg could not report (socket overrun, count gap). */
struct fsm_missed {
	uint32_t major;
	uint32_t minor;
	uint32_t warning;
	uint64_t missed;
	const char *fstype;	/* NULL: unknown */
	const char *device;	/* NULL: unknown */
	bool has_uuid;
	uint8_t uuid[FSM_UUID_LEN];
	struct fsm_mnts mnt;	/* as an event's: see struct fsm_mnts */
};

/* Building blocks; all append to @b and return 0, or -1 when out of memory. */
int fsm_format_time(struct fsm_buf *b, uint64_t ns);	/* ISO 8601, UTC */
/* The same to the second, "2026-12-03T07:42:51Z": jq's fromdateiso8601. */
int fsm_format_time_sec(struct fsm_buf *b, uint64_t ns);
int fsm_format_uuid(struct fsm_buf *b, const uint8_t uuid[FSM_UUID_LEN]);
int fsm_format_warning_name(struct fsm_buf *b, uint32_t warning);
/* "warning", ..., "unknown-N" */
int fsm_format_severity_name(struct fsm_buf *b, uint32_t severity);
int fsm_json_string(struct fsm_buf *b, const char *s);	/* NULL: null */
int fsm_text_string(struct fsm_buf *b, const char *s);	/* NULL: - */
/* The mount points as text shows them: "/srv", "/srv +2", "-" for none;
 * the path one token (space, ':', '"' and control bytes as \xXX). */
int fsm_format_mountpoints_text(struct fsm_buf *b, const struct fsm_mnts *mnt);

/*
 * Length of the well-formed UTF-8 sequence at @s (NUL-terminated), 0 if
 * it is not one. Never reads past a NUL.
 */
size_t fsm_utf8_seq(const unsigned char *s);

/*
 * One line each, '\n' included. @recv_ns is when fsmsg received the
 * message (CLOCK_REALTIME): it stands in for an absent TIMESTAMP, and with
 * @received (--receive-time) it is added to the event line: JSON ends with
 * ,"received_ns":<recv_ns>; text ends with " received +<us>us", the receive
 * time less TIMESTAMP in microseconds with three decimals, signed
 * (" received -" without a TIMESTAMP). @now_ns is the time of a missed
 * report.
 */
int fsm_format_event_text(struct fsm_buf *b, const struct fsm_event *ev,
			  uint64_t recv_ns, bool received);
int fsm_format_event_json(struct fsm_buf *b, const struct fsm_event *ev,
			  uint64_t recv_ns, bool received);
int fsm_format_missed_text(struct fsm_buf *b, const struct fsm_missed *m);
/* The same without "fsmsg: " and the newline, for syslog. */
int fsm_format_missed_words(struct fsm_buf *b, const struct fsm_missed *m);
int fsm_format_missed_json(struct fsm_buf *b, const struct fsm_missed *m,
			   uint64_t now_ns);

/* --list: the counters shown are the warning types in @cols. */
int fsm_format_fs_json(struct fsm_buf *b, const struct fsm_fs *fs,
		       const uint32_t *cols, size_t ncols);
int fsm_format_fs_table(struct fsm_buf *b, const struct fsm_fs *fss,
			size_t n, const uint32_t *cols, size_t ncols);

#endif
