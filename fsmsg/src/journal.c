// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Structured journal entries for --journal, as lists of FIELD=value.
 */
#include "journal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

void fsm_fields_init(struct fsm_fields *f)
{
	memset(f, 0, sizeof(*f));
	fsm_buf_init(&f->buf);
}

void fsm_fields_free(struct fsm_fields *f)
{
	fsm_buf_free(&f->buf);
	fsm_fields_init(f);
}

void fsm_fields_reset(struct fsm_fields *f)
{
	fsm_buf_reset(&f->buf);
	f->n = 0;
	f->full = false;
}

/* Start a field: NAME= at the end of the buffer. */
static int begin(struct fsm_fields *f, const char *name)
{
	if (f->n == FSM_FIELDS_MAX) {
		f->full = true;
		return -1;
	}
	f->off[f->n] = f->buf.len;
	return fsm_buf_printf(&f->buf, "%s=", name);
}

/* End it: drop a trailing newline, record it, NUL-terminate it. */
static int end(struct fsm_fields *f)
{
	struct fsm_buf *b = &f->buf;

	if (b->oom)
		return -1;
	if (b->len > f->off[f->n] && b->data[b->len - 1] == '\n')
		b->data[--b->len] = '\0';
	f->len[f->n] = b->len - f->off[f->n];
	f->n++;
	return fsm_buf_append(b, "", 1);
}

int fsm_fields_add(struct fsm_fields *f, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (begin(f, name) < 0)
		return -1;
	va_start(ap, fmt);
	fsm_buf_vprintf(&f->buf, fmt, ap);
	va_end(ap);
	return end(f);
}

int fsm_fields_add_str(struct fsm_fields *f, const char *name, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s)
		return 0;
	if (begin(f, name) < 0)
		return -1;
	while (*s) {
		size_t n = fsm_utf8_seq(s);

		if (n == 0 || *s < 0x20 || *s == 0x7f) {
			fsm_buf_printf(&f->buf, "\\x%02x", *s);
			s++;
		} else {
			fsm_buf_append(&f->buf, s, n);
			s += n;
		}
	}
	return end(f);
}

const char *fsm_fields_get(const struct fsm_fields *f, size_t i)
{
	return i < f->n && !f->buf.oom ? f->buf.data + f->off[i] : NULL;
}

size_t fsm_fields_iovec(const struct fsm_fields *f, struct iovec *iov)
{
	if (f->buf.oom)
		return 0;
	for (size_t i = 0; i < f->n; i++) {
		iov[i].iov_base = f->buf.data + f->off[i];
		iov[i].iov_len = f->len[i];
	}
	return f->n;
}

const char *fsm_journal_message_id(uint32_t warning)
{
	static const char *const ids[FS_MSG_WARN_MAX + 1] = {
		[FS_MSG_WARN_ENOSPC] = FSM_MSGID_ENOSPC,
		[FS_MSG_WARN_META_ENOSPC] = FSM_MSGID_META_ENOSPC,
		[FS_MSG_WARN_INODE_ENOSPC] = FSM_MSGID_INODE_ENOSPC,
		[FS_MSG_WARN_FS_ERROR] = FSM_MSGID_FS_ERROR,
		[FS_MSG_WARN_SHUTDOWN] = FSM_MSGID_SHUTDOWN,
		[FS_MSG_WARN_DATA_LOST] = FSM_MSGID_DATA_LOST,
	};

	if (warning <= FS_MSG_WARN_MAX && ids[warning])
		return ids[warning];
	return FSM_MSGID_UNKNOWN;
}

int fsm_severity_priority(uint32_t severity)
{
	switch (severity) {
	case FS_MSG_SEVERITY_INFO:
		return LOG_INFO;
	case FS_MSG_SEVERITY_WARNING:
		return LOG_WARNING;
	case FS_MSG_SEVERITY_ERROR:
		return LOG_ERR;
	default:
		return severity >= FS_MSG_SEVERITY_CRITICAL ? LOG_CRIT
							    : LOG_WARNING;
	}
}

/* Fields every entry has, after MESSAGE (and MESSAGE_ID). */
static void identity(struct fsm_fields *f, int prio)
{
	fsm_fields_add(f, "PRIORITY", "%d", prio);
	fsm_fields_add(f, "SYSLOG_FACILITY", "%d", FSM_JOURNAL_FACILITY);
	fsm_fields_add(f, "SYSLOG_IDENTIFIER", "%s", "fsmsg");
}

static void warning_fields(struct fsm_fields *f, uint32_t warning)
{
	const char *name = fsm_warning_name(warning);

	if (name)
		fsm_fields_add(f, "FSMSG_WARNING", "%s", name);
	else
		fsm_fields_add(f, "FSMSG_WARNING", "unknown-%u", warning);
	fsm_fields_add(f, "FSMSG_WARNING_ID", "%u", warning);
}

static void fs_fields(struct fsm_fields *f, uint32_t major, uint32_t minor,
		      const char *device, const char *fstype, bool has_uuid,
		      const uint8_t *uuid)
{
	fsm_fields_add(f, "FSMSG_DEV", "%u:%u", major, minor);
	fsm_fields_add(f, "FSMSG_MAJOR", "%u", major);
	fsm_fields_add(f, "FSMSG_MINOR", "%u", minor);
	fsm_fields_add_str(f, "FSMSG_DEVICE", device);
	fsm_fields_add_str(f, "FSMSG_FSTYPE", fstype);
	if (has_uuid && begin(f, "FSMSG_UUID") == 0) {
		fsm_format_uuid(&f->buf, uuid);
		end(f);
	}
}

/* Reset, then start MESSAGE=; the caller formats it and calls end(). */
static int message_begin(struct fsm_fields *f)
{
	fsm_fields_reset(f);
	return begin(f, "MESSAGE");
}

static int finish(struct fsm_fields *f)
{
	return f->buf.oom || f->full ? -1 : 0;
}

/*
 * The name a MESSAGE gives a filesystem: its (first) mount point when
 * fsmsg knows it, else the device, else the number; then, in parentheses,
 * what of device, type and number the name is not:
 *   /srv (vdb, ext4, 254:16)   vdb (ext4, 254:16)   8:3 (ext4)
 */
static void fs_name(struct fsm_buf *b, uint32_t major, uint32_t minor,
		    const char *device, const char *fstype,
		    const struct fsm_mnts *mnt)
{
	bool dev = device && *device, type = fstype && *fstype;
	const char *head = mnt->n ? mnt->paths[0] : dev ? device : NULL;
	const char *sep = " (";

	if (head)
		fsm_text_string(b, head);
	else
		fsm_buf_printf(b, "%u:%u", major, minor);
	if (mnt->n && dev) {
		fsm_buf_puts(b, sep);
		fsm_text_string(b, device);
		sep = ", ";
	}
	if (type) {
		fsm_buf_puts(b, sep);
		fsm_text_string(b, fstype);
		sep = ", ";
	}
	if (head) {
		fsm_buf_puts(b, sep);
		fsm_buf_printf(b, "%u:%u", major, minor);
		sep = ", ";
	}
	if (*sep == ',')
		fsm_buf_puts(b, ")");
}

/* One field per mount point (the journal keeps repeated fields), by
 * mount id; none when none is known. */
static void mountpoint_fields(struct fsm_fields *f, const struct fsm_mnts *mnt)
{
	for (size_t i = 0; i < mnt->n && i < FSM_JOURNAL_MAX_MOUNTPOINTS; i++)
		fsm_fields_add_str(f, "FSMSG_MOUNTPOINT", mnt->paths[i]);
}

/*
 * MESSAGE, for a person: the filesystem (fs_name()), what happened, who.
 *   vdb (ext4, 254:16): no space left for data; alloc_test[4242] uid 0
 *   vdb (ext4, 254:16): 37 warnings of no space left for data held back
 *   by rate limiting
 *   /srv (vdb, ext4, 254:16): no space left for data; alloc_test[4242] uid 0
 * The time, UUID, counts, every mount point... are in the FSMSG_* fields.
 */
static void sentence(struct fsm_buf *b, const struct fsm_event *ev)
{
	const char *words = fsm_warning_words(ev->warning);
	bool comm = ev->comm && *ev->comm;

	fs_name(b, ev->major, ev->minor, ev->device, ev->fstype, &ev->mnt);
	fsm_buf_puts(b, ": ");
	if (ev->summary) {
		uint64_t n = ev->has_suppressed ? ev->suppressed : 0;

		fsm_buf_printf(b, "%llu %s of ", (unsigned long long)n,
			       n == 1 ? "warning" : "warnings");
	}
	if (words)
		fsm_buf_puts(b, words);
	else
		fsm_buf_printf(b, "unknown warning %u", ev->warning);
	if (ev->summary) {
		fsm_buf_puts(b, " held back by rate limiting");
		return;
	}
	if (!comm && !ev->has_pid && !ev->has_uid)
		return;
	fsm_buf_puts(b, ";");
	if (comm) {
		fsm_buf_puts(b, " ");
		fsm_text_string(b, ev->comm);
		if (ev->has_pid)
			fsm_buf_printf(b, "[%u]", ev->pid);
	} else if (ev->has_pid) {
		fsm_buf_printf(b, " pid %u", ev->pid);
	}
	if (ev->has_uid)
		fsm_buf_printf(b, " uid %llu", (unsigned long long)ev->uid);
}

/* The details of an fs-error, a shutdown or a data-lost, those it has. */
static void details_fields(struct fsm_fields *f, const struct fsm_event *ev)
{
	if (ev->has_errno)
		fsm_fields_add(f, "FSMSG_ERRNO", "%u", ev->error);
	fsm_fields_add_str(f, "FSMSG_FUNCTION", ev->function);
	if (ev->has_line)
		fsm_fields_add(f, "FSMSG_LINE", "%u", ev->line);
	if (ev->has_inode)
		fsm_fields_add(f, "FSMSG_INODE", "%llu",
			       (unsigned long long)ev->inode);
	if (ev->has_block)
		fsm_fields_add(f, "FSMSG_BLOCK", "%llu",
			       (unsigned long long)ev->block);
	if (ev->has_reason) {
		const char *name = fsm_reason_name(ev->reason);

		if (name)
			fsm_fields_add(f, "FSMSG_REASON", "%s", name);
		else
			fsm_fields_add(f, "FSMSG_REASON", "%u", ev->reason);
	}
	if (ev->has_fs_flags)
		fsm_fields_add(f, "FSMSG_FS_FLAGS", "0x%x", ev->fs_flags);
	if (ev->has_offset)
		fsm_fields_add(f, "FSMSG_OFFSET", "%llu",
			       (unsigned long long)ev->offset);
	if (ev->has_length)
		fsm_fields_add(f, "FSMSG_LENGTH", "%llu",
			       (unsigned long long)ev->length);
}

int fsm_journal_event(struct fsm_fields *f, const struct fsm_event *ev,
		      uint64_t recv_ns, bool received)
{
	(void)recv_ns;	/* in FSMSG_TIMESTAMP_NS, not in the sentence */
	if (message_begin(f) < 0)
		return -1;
	sentence(&f->buf, ev);
	end(f);
	fsm_fields_add(f, "MESSAGE_ID", "%s", ev->summary ? FSM_MSGID_SUMMARY :
		       fsm_journal_message_id(ev->warning));
	identity(f, fsm_severity_priority(ev->severity));
	fsm_fields_add(f, "FSMSG_EVENT", "%s", ev->summary ? "summary" : "warning");
	warning_fields(f, ev->warning);
	if (begin(f, "FSMSG_SEVERITY") == 0) {
		fsm_format_severity_name(&f->buf, ev->severity);
		end(f);
	}
	fs_fields(f, ev->major, ev->minor, ev->device, ev->fstype, ev->has_uuid,
		  ev->uuid);
	fsm_fields_add_str(f, "FSMSG_LABEL", ev->label);
	mountpoint_fields(f, &ev->mnt);
	if (ev->has_sb_id)
		fsm_fields_add(f, "FSMSG_SB_ID", "%llu", (unsigned long long)ev->sb_id);
	if (ev->has_uid)
		fsm_fields_add(f, "FSMSG_UID", "%llu", (unsigned long long)ev->uid);
	if (ev->has_pid) {
		fsm_fields_add(f, "FSMSG_PID", "%u", ev->pid);
		/* journald adds the task's unit, executable, cmdline... */
		if (!ev->summary && ev->pid)
			fsm_fields_add(f, "OBJECT_PID", "%u", ev->pid);
	}
	fsm_fields_add_str(f, "FSMSG_COMM", ev->comm);
	fsm_fields_add(f, "FSMSG_COUNT", "%llu", (unsigned long long)ev->count);
	if (ev->has_suppressed)
		fsm_fields_add(f, "FSMSG_SUPPRESSED", "%llu",
			       (unsigned long long)ev->suppressed);
	details_fields(f, ev);
	fsm_fields_add(f, "FSMSG_TIMESTAMP_NS", "%llu",
		       (unsigned long long)(ev->has_timestamp ? ev->timestamp_ns
							      : recv_ns));
	if (received)
		fsm_fields_add(f, "FSMSG_RECEIVED_NS", "%llu",
			       (unsigned long long)recv_ns);
	return finish(f);
}

/*
 * The filesystem named as in an event's MESSAGE, then the loss:
 *   /srv (vdb, ext4, 254:16): missed 12 meta-enospc warnings
 */
int fsm_journal_missed(struct fsm_fields *f, const struct fsm_missed *ms)
{
	if (message_begin(f) < 0)
		return -1;
	fs_name(&f->buf, ms->major, ms->minor, ms->device, ms->fstype, &ms->mnt);
	fsm_buf_printf(&f->buf, ": missed %llu ", (unsigned long long)ms->missed);
	fsm_format_warning_name(&f->buf, ms->warning);
	fsm_buf_puts(&f->buf, " warnings");
	end(f);
	fsm_fields_add(f, "MESSAGE_ID", "%s", FSM_MSGID_MISSED);
	identity(f, LOG_ERR);
	warning_fields(f, ms->warning);
	fs_fields(f, ms->major, ms->minor, ms->device, ms->fstype, ms->has_uuid,
		  ms->uuid);
	mountpoint_fields(f, &ms->mnt);
	fsm_fields_add(f, "FSMSG_MISSED", "%llu", (unsigned long long)ms->missed);
	return finish(f);
}

int fsm_journal_text(struct fsm_fields *f, int prio, const char *message)
{
	if (message_begin(f) < 0)
		return -1;
	fsm_buf_puts(&f->buf, message);
	end(f);
	identity(f, prio);
	return finish(f);
}
