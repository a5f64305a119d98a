/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsing and validation of FS_MSG generic netlink messages.
 *
 * No global state: the parser only reads the message it is given and
 * fills a caller-provided structure whose strings point into that message.
 */
#ifndef FSMSG_EVENT_H
#define FSMSG_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/fs_msg.h>

/*
 * Longest payloads (NUL included) the policy accepts. The kernel sends much
 * less (TASK_COMM_LEN is 16, s_id 32); the slack keeps a future kernel with
 * longer names working, while anything beyond is treated as malformed.
 */
#define FSM_FSTYPE_MAX	64
#define FSM_DEVICE_MAX	64
#define FSM_COMM_MAX	256
#define FSM_LABEL_MAX	512	/* the kernel: 255 bytes and the NUL */
#define FSM_FUNCTION_MAX 512	/* the kernel's KSYM_NAME_LEN */
#define FSM_UUID_LEN	16

/* Distinct warning types one dump reply may carry (the ABI has five). */
#define FSM_MAX_COUNTERS 32

enum fsm_parse_status {
	FSM_PARSE_OK = 0,	/* a valid message of the wanted kind */
	FSM_PARSE_IGNORED = 1,	/* not ours (control message, other command) */
	FSM_PARSE_INVALID = -1,	/* malformed: reason in struct fsm_error */
};

struct fsm_error {
	char msg[512];		/* snprintf-bounded, always NUL-terminated */
};

/*
 * One FS_MSG_CMD_WARNING event, or an FS_MSG_CMD_SUMMARY (@summary): the
 * warnings rate limiting held back (SUPPRESSED) that no later warning
 * carried, sent when the rate limit window closed or at unmount, with no
 * task attributes. For a summary, count == previous count + suppressed.
 */
/*
 * The mount points of a filesystem as /proc/self/mountinfo shows them, by
 * mount id; not from the message: the monitor fills it in from its mount
 * table (filter.h) right before formatting. n 0: none known (not mounted
 * where fsmsg can see it, a chroot, a container): null in JSON, - in text.
 * The strings belong to the table and stay valid until it is re-read.
 */
struct fsm_mnts {
	const char *const *paths;	/* unescaped; n of them */
	size_t n;
	const char *source;	/* mountinfo's source of the first, or NULL */
};

struct fsm_event {
	bool summary;		/* FS_MSG_CMD_SUMMARY */
	uint32_t warning;	/* enum fs_msg_warn, or a newer value */
	uint32_t major;
	uint32_t minor;
	uint64_t count;

	bool has_uid, has_pid, has_timestamp, has_suppressed, has_uuid;
	bool has_sb_id, has_boottime, has_severity;
	/* enum fs_msg_severity, or a newer value; FS_MSG_SEVERITY_WARNING
	 * when the message had none (a kernel from before SEVERITY). */
	uint32_t severity;
	uint64_t uid;		/* CAUSED_ID: the task's fsuid, initial userns */
	uint32_t pid;
	uint64_t timestamp_ns;	/* CLOCK_REALTIME */
	uint64_t boottime_ns;	/* CLOCK_BOOTTIME */
	uint64_t sb_id;		/* unique since boot, never reused */
	uint64_t suppressed;
	uint8_t uuid[FSM_UUID_LEN];

	/* NULL when absent; otherwise NUL-terminated, inside the message */
	const char *fstype;
	const char *device;
	const char *comm;
	const char *label;	/* volume label, any bytes but NUL */

	/* fs-error, shutdown and data-lost details; each only when present */
	bool has_errno, has_line, has_inode, has_block, has_reason;
	bool has_fs_flags, has_offset, has_length;
	uint32_t error;		/* ERRNO: a positive errno value */
	uint32_t line;		/* LINE in the kernel source */
	uint64_t inode;
	uint64_t block;
	uint32_t reason;	/* enum fs_msg_shutdown_reason, or newer */
	uint32_t fs_flags;	/* the filesystem's own flags */
	uint64_t offset;	/* data-lost: the file range, in bytes */
	uint64_t length;
	const char *function;	/* FUNCTION: the kernel function, or NULL */

	struct fsm_mnts mnt;	/* not parsed: see struct fsm_mnts */
};

struct fsm_counter {
	uint32_t warning;
	uint64_t count;		/* cumulative since mount */
	uint64_t last_ns;	/* 0: never */
	uint64_t suppressed;	/* held back since the last message (0: absent) */
	bool has_last, has_suppressed;	/* the kernel sent LAST, SUPPRESSED */
};

/* One FS_MSG_CMD_FS_GET dump reply: a filesystem and its counters. */
struct fsm_fs {
	uint32_t major;
	uint32_t minor;
	bool has_uuid;
	uint8_t uuid[FSM_UUID_LEN];
	bool has_sb_id;
	uint64_t sb_id;
	const char *fstype;	/* NULL when absent */
	const char *device;	/* NULL when absent */
	const char *label;	/* NULL when absent */
	struct fsm_mnts mnt;	/* not parsed, not cloned: see struct fsm_mnts */
	size_t ncounters;
	struct fsm_counter counters[FSM_MAX_COUNTERS];
	void *storage;		/* owned copy of the strings, see fsm_fs_clone */
};

/*
 * Parse the netlink message at @buf (@buflen bytes available; nlmsg_len
 * must fit). @family is the resolved family id, or 0 to accept any.
 * Returns an enum fsm_parse_status; on FSM_PARSE_INVALID (and for
 * FSM_PARSE_IGNORED) @err says why.
 */
int fsm_event_parse(const void *buf, size_t buflen, int family,
		    struct fsm_event *ev, struct fsm_error *err);
int fsm_fs_parse(const void *buf, size_t buflen, int family,
		 struct fsm_fs *fs, struct fsm_error *err);

/* Deep copy whose strings survive the message; release with fsm_fs_release. */
int fsm_fs_clone(struct fsm_fs *dst, const struct fsm_fs *src);
void fsm_fs_release(struct fsm_fs *fs);

/* Counter of @warning in @fs, or NULL. */
const struct fsm_counter *fsm_fs_counter(const struct fsm_fs *fs,
					 uint32_t warning);

/* "enospc", "meta-enospc", "inode-enospc", "fs-error", "shutdown",
 * "data-lost"; NULL for other values. */
const char *fsm_warning_name(uint32_t warning);
/* "info", "warning", "error", "critical"; NULL for other values. */
const char *fsm_severity_name(uint32_t severity);
/* Option value: a name above or its number (1 to 4). 0, or -1. */
int fsm_parse_severity(const char *s, uint32_t *severity);
/* "no space left for data", ...; NULL for other values. */
const char *fsm_warning_words(uint32_t warning);
/* "error", "user", "io-error", ... (enum fs_msg_shutdown_reason); NULL for
 * other values. */
const char *fsm_reason_name(uint32_t reason);
/* "EIO", "EUCLEAN", ...; NULL when the C library has no name for it. */
const char *fsm_errno_name(uint32_t error);

#endif
