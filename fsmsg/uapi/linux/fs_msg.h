/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/fs_msg.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_FS_MSG_H
#define _UAPI_LINUX_FS_MSG_H

#define FS_MSG_FAMILY_NAME	"FS_MSG"
#define FS_MSG_FAMILY_VERSION	1

/**
 * enum fs_msg_warn - What the filesystem ran out of, or what happened to it.
 * @FS_MSG_WARN_NONE: Not a warning; never sent.
 * @FS_MSG_WARN_ENOSPC: No space left for file data.
 * @FS_MSG_WARN_META_ENOSPC: No space left for metadata: a directory entry, an
 *   inode, an extended attribute, a symlink target or a transaction.
 * @FS_MSG_WARN_INODE_ENOSPC: No free inodes left, while free blocks remain.
 *   Creating files fails although df still shows space.
 * @FS_MSG_WARN_FS_ERROR: The filesystem found an error: corrupted metadata, or
 *   an I/O error on its metadata or journal. errno says which, and function,
 *   line, inode and block where the filesystem's own kernel message names
 *   them. Errors reported while messages are built may be coalesced into one
 *   message; count and suppressed account for every one.
 * @FS_MSG_WARN_SHUTDOWN: The filesystem stopped accepting writes: it shut down
 *   or went read-only after an error, or was shut down on request. Sent once
 *   per mount, never held back by rate limiting; reason says why and fs-flags
 *   gives the filesystem's own flags.
 * @FS_MSG_WARN_DATA_LOST: Writeback could not write file data that a write had
 *   already accepted: the device failed the write (a thin pool out of space, a
 *   failing disk). The application learns of it at fsync(), if it calls it.
 *   One per failed writeback unit (an ext4 io_end, an XFS ioend, a btrfs
 *   ordered extent); errno, inode, offset and length say what was lost. No
 *   task attributes: writeback runs in a kernel thread, not in the task that
 *   wrote the data.
 */
enum fs_msg_warn {
	FS_MSG_WARN_NONE,
	FS_MSG_WARN_ENOSPC,
	FS_MSG_WARN_META_ENOSPC,
	FS_MSG_WARN_INODE_ENOSPC,
	FS_MSG_WARN_FS_ERROR,
	FS_MSG_WARN_SHUTDOWN,
	FS_MSG_WARN_DATA_LOST,

	/* private: */
	__FS_MSG_WARN_MAX,
	FS_MSG_WARN_MAX = (__FS_MSG_WARN_MAX - 1)
};

/**
 * enum fs_msg_shutdown_reason - Why a filesystem stopped accepting writes.
 * @FS_MSG_SHUTDOWN_REASON_ERROR: Its error policy after an error it found
 *   (ext4 errors=remount-ro).
 * @FS_MSG_SHUTDOWN_REASON_USER: Shut down on request, by an ioctl or the
 *   administrator.
 * @FS_MSG_SHUTDOWN_REASON_IO_ERROR: An I/O error on metadata or the log it
 *   could not recover from.
 * @FS_MSG_SHUTDOWN_REASON_CORRUPTION: Corrupted metadata found in memory or on
 *   disk.
 * @FS_MSG_SHUTDOWN_REASON_DEVICE_REMOVED: Its device went away.
 * @FS_MSG_SHUTDOWN_REASON_ABORT: A journal or transaction abort after a
 *   failure it could not undo (ext4's journal abort, a btrfs transaction
 *   abort).
 */
enum fs_msg_shutdown_reason {
	FS_MSG_SHUTDOWN_REASON_ERROR = 1,
	FS_MSG_SHUTDOWN_REASON_USER,
	FS_MSG_SHUTDOWN_REASON_IO_ERROR,
	FS_MSG_SHUTDOWN_REASON_CORRUPTION,
	FS_MSG_SHUTDOWN_REASON_DEVICE_REMOVED,
	FS_MSG_SHUTDOWN_REASON_ABORT,
};

/**
 * enum fs_msg_severity - How urgent a message is, for listeners that filter;
 *   higher is more urgent.
 * @FS_MSG_SEVERITY_INFO: Nothing failed.
 * @FS_MSG_SEVERITY_WARNING: An operation failed for lack of space; the
 *   filesystem is fine.
 * @FS_MSG_SEVERITY_ERROR: Data was lost or the filesystem found an error.
 * @FS_MSG_SEVERITY_CRITICAL: The filesystem stopped accepting writes.
 */
enum fs_msg_severity {
	FS_MSG_SEVERITY_INFO = 1,
	FS_MSG_SEVERITY_WARNING,
	FS_MSG_SEVERITY_ERROR,
	FS_MSG_SEVERITY_CRITICAL,
};

enum {
	FS_MSG_A_UNSPEC,
	FS_MSG_A_WARNING,
	FS_MSG_A_DEV_MAJOR,
	FS_MSG_A_DEV_MINOR,
	FS_MSG_A_CAUSED_ID,
	FS_MSG_A_FSTYPE,
	FS_MSG_A_DEVICE,
	FS_MSG_A_UUID,
	FS_MSG_A_PID,
	FS_MSG_A_COMM,
	FS_MSG_A_TIMESTAMP,
	FS_MSG_A_COUNT,
	FS_MSG_A_SUPPRESSED,
	FS_MSG_A_COUNTER,
	FS_MSG_A_SB_ID,
	FS_MSG_A_BOOTTIME,
	FS_MSG_A_SEVERITY,
	FS_MSG_A_LABEL,
	FS_MSG_A_ERRNO,
	FS_MSG_A_FUNCTION,
	FS_MSG_A_LINE,
	FS_MSG_A_INODE,
	FS_MSG_A_BLOCK,
	FS_MSG_A_REASON,
	FS_MSG_A_FS_FLAGS,
	FS_MSG_A_OFFSET,
	FS_MSG_A_LENGTH,

	__FS_MSG_A_MAX,
	FS_MSG_A_MAX = (__FS_MSG_A_MAX - 1)
};

enum {
	FS_MSG_A_COUNTER_UNSPEC,
	FS_MSG_A_COUNTER_WARNING,
	FS_MSG_A_COUNTER_COUNT,
	FS_MSG_A_COUNTER_LAST,
	FS_MSG_A_COUNTER_SUPPRESSED,

	__FS_MSG_A_COUNTER_MAX,
	FS_MSG_A_COUNTER_MAX = (__FS_MSG_A_COUNTER_MAX - 1)
};

enum {
	FS_MSG_A_FILTER_UNSPEC,
	FS_MSG_A_FILTER_DEV,
	FS_MSG_A_FILTER_SB_ID,
	FS_MSG_A_FILTER_FSTYPE,
	FS_MSG_A_FILTER_UUID,
	FS_MSG_A_FILTER_WARNING,
	FS_MSG_A_FILTER_SEVERITY,

	__FS_MSG_A_FILTER_MAX,
	FS_MSG_A_FILTER_MAX = (__FS_MSG_A_FILTER_MAX - 1)
};

enum {
	FS_MSG_A_FILTER_DEV_UNSPEC,
	FS_MSG_A_FILTER_DEV_MAJOR,
	FS_MSG_A_FILTER_DEV_MINOR,

	__FS_MSG_A_FILTER_DEV_MAX,
	FS_MSG_A_FILTER_DEV_MAX = (__FS_MSG_A_FILTER_DEV_MAX - 1)
};

enum {
	FS_MSG_CMD_WARNING = 1,
	FS_MSG_CMD_FS_GET,
	FS_MSG_CMD_SUMMARY,
	FS_MSG_CMD_NOTIFY_FILTER_SET,

	__FS_MSG_CMD_MAX,
	FS_MSG_CMD_MAX = (__FS_MSG_CMD_MAX - 1)
};

#define FS_MSG_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_FS_MSG_H */
