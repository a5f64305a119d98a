/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Structured journal entries for --journal: the list of FIELD=value pairs
 * of an event, a missed-warning report or a diagnostic. Pure functions
 * without libsystemd: main.c hands the list to sd_journal_sendv(), the
 * tests to a fake sink.
 */
#ifndef FSMSG_JOURNAL_H
#define FSMSG_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "event.h"
#include "format.h"

/* More than any entry here has (a warning has at most 30, 31 with
 * --receive-time). */
#define FSM_FIELDS_MAX 48
/* FSMSG_MOUNTPOINT fields at most: the first ones by mount id. */
#define FSM_JOURNAL_MAX_MOUNTPOINTS 8

/*
 * MESSAGE_ID of each kind of entry: fixed 128-bit ids, so that
 * `journalctl MESSAGE_ID=...` finds them on any machine.
 */
#define FSM_MSGID_ENOSPC	"62dec85a94f54ce49a5392a28113e3d9"
#define FSM_MSGID_META_ENOSPC	"5155047038ae484e943a282a1358d59a"
#define FSM_MSGID_INODE_ENOSPC	"fe03565bc21444bf8390f30842e9c298"
#define FSM_MSGID_FS_ERROR	"90255aefdffe4a4e824dd1a10dfda8e2"
#define FSM_MSGID_SHUTDOWN	"20fe8a74056a485e897f0136d26b6bae"
#define FSM_MSGID_DATA_LOST	"c0467a553b194e3080aea6e93235c51c"
#define FSM_MSGID_UNKNOWN	"f1ef459928ec4f97b7e8071091dbd8c5"
#define FSM_MSGID_MISSED	"aea531d5c4ed4dcebe99b078603528b5"
#define FSM_MSGID_SUMMARY	"3b8e0f6c2a7d4e19a1c5d7f04b6e9a23"

/* SYSLOG_FACILITY of every entry: LOG_DAEMON, as the syslog output. */
#define FSM_JOURNAL_FACILITY 3

/*
 * syslog priority of an event of this severity: info LOG_INFO, warning
 * LOG_WARNING, error LOG_ERR, critical LOG_CRIT; a newer, higher value
 * LOG_CRIT, anything else LOG_WARNING.
 */
int fsm_severity_priority(uint32_t severity);

/* "NAME=value" entries, back to back in one buffer, each NUL-terminated. */
struct fsm_fields {
	struct fsm_buf buf;
	size_t off[FSM_FIELDS_MAX];
	size_t len[FSM_FIELDS_MAX];	/* without the NUL */
	size_t n;
	bool full;		/* a field was dropped: more than FSM_FIELDS_MAX */
};

void fsm_fields_init(struct fsm_fields *f);
void fsm_fields_free(struct fsm_fields *f);
void fsm_fields_reset(struct fsm_fields *f);

/* NAME=<printf>. Returns 0, or -1 when out of memory or full. */
int fsm_fields_add(struct fsm_fields *f, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* NAME=<s> with control characters and bytes that are not UTF-8 written as
 * \xNN, so that every value is printable text; NULL adds nothing. */
int fsm_fields_add_str(struct fsm_fields *f, const char *name, const char *s);

/* Field @i as a string "NAME=value". */
const char *fsm_fields_get(const struct fsm_fields *f, size_t i);
/* Point @iov (FSM_FIELDS_MAX entries) at the fields; returns how many. */
size_t fsm_fields_iovec(const struct fsm_fields *f, struct iovec *iov);

/* MESSAGE_ID of a warning type (FSM_MSGID_UNKNOWN for newer types). */
const char *fsm_journal_message_id(uint32_t warning);

/*
 * The entries, into @f (reset first). Fields the kernel did not send are
 * left out. MESSAGE is a sentence naming the filesystem by its first
 * mount point when known (else its device), as event and missed report
 * alike; FSMSG_MOUNTPOINT is each mount point. @recv_ns stands in for an absent TIMESTAMP, as in the text
 * output, and with @received (--receive-time) it is FSMSG_RECEIVED_NS, the
 * last field. Each returns 0, or -1 when out of memory.
 */
int fsm_journal_event(struct fsm_fields *f, const struct fsm_event *ev,
		      uint64_t recv_ns, bool received);
int fsm_journal_missed(struct fsm_fields *f, const struct fsm_missed *ms);
/* A diagnostic: MESSAGE, PRIORITY and the identity fields only. */
int fsm_journal_text(struct fsm_fields *f, int prio, const char *message);

#endif
