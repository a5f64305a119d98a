// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text and JSON renderings of FS_MSG events, missed-warning reports and the
 * filesystem list.
 */
#include "format.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ULL

void fsm_buf_init(struct fsm_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void fsm_buf_free(struct fsm_buf *b)
{
	free(b->data);
	fsm_buf_init(b);
}

void fsm_buf_reset(struct fsm_buf *b)
{
	b->len = 0;
	b->oom = false;
	if (b->data)
		b->data[0] = '\0';
}

/* Room for @n more bytes plus the terminating NUL. */
static int reserve(struct fsm_buf *b, size_t n)
{
	size_t need, cap;
	char *p;

	if (b->oom)
		return -1;
	if (n > SIZE_MAX / 2 - b->len)
		goto oom;
	need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p)
		goto oom;
	b->data = p;
	b->cap = cap;
	return 0;
oom:
	b->oom = true;
	return -1;
}

int fsm_buf_append(struct fsm_buf *b, const void *p, size_t n)
{
	if (reserve(b, n) < 0)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int fsm_buf_puts(struct fsm_buf *b, const char *s)
{
	return fsm_buf_append(b, s, strlen(s));
}

int fsm_buf_vprintf(struct fsm_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0 || reserve(b, (size_t)n) < 0) {
		va_end(again);
		b->oom = true;
		return -1;
	}
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
	va_end(again);
	b->len += (size_t)n;
	return 0;
}

int fsm_buf_printf(struct fsm_buf *b, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = fsm_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return ret;
}

const char *fsm_buf_str(const struct fsm_buf *b)
{
	return b->data ? b->data : "";
}

static int done(const struct fsm_buf *b)
{
	return b->oom ? -1 : 0;
}

int fsm_format_time(struct fsm_buf *b, uint64_t ns)
{
	time_t sec = (time_t)(ns / NSEC_PER_SEC);
	unsigned long frac = (unsigned long)(ns % NSEC_PER_SEC);
	struct tm tm;

	/* Always UTC, so output does not depend on the machine's zone. */
	if (!gmtime_r(&sec, &tm))
		return fsm_buf_printf(b, "@%llu.%09lu", (unsigned long long)sec, frac);
	return fsm_buf_printf(b, "%04d-%02d-%02dT%02d:%02d:%02d.%09luZ",
			      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			      tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}

int fsm_format_uuid(struct fsm_buf *b, const uint8_t u[FSM_UUID_LEN])
{
	return fsm_buf_printf(b,
		"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
		u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

int fsm_format_warning_name(struct fsm_buf *b, uint32_t warning)
{
	const char *name = fsm_warning_name(warning);

	if (name)
		return fsm_buf_puts(b, name);
	/* A newer kernel's type: keep the number rather than drop it. */
	return fsm_buf_printf(b, "unknown-%u", warning);
}

size_t fsm_utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		if (c == 0xed)
			hi = 0x9f;	/* surrogates */
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		if (c == 0xf4)
			hi = 0x8f;	/* beyond U+10FFFF */
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 &&
		       (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

/*
 * JSON string: quotes and backslashes escaped, control characters and
 * bytes that are not UTF-8 (comm is whatever the task set) as \u00XX, so
 * the line always parses.
 */
int fsm_json_string(struct fsm_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s)
		return fsm_buf_puts(b, "null");
	fsm_buf_append(b, "\"", 1);
	while (*s) {
		size_t n = fsm_utf8_seq(s);

		if (*s == '"' || *s == '\\') {
			fsm_buf_append(b, "\\", 1);
			fsm_buf_append(b, s, 1);
		} else if (n == 0 || *s < 0x20 || *s == 0x7f) {
			fsm_buf_printf(b, "\\u%04x", *s);
		} else {
			fsm_buf_append(b, s, n);
			s += n;
			continue;
		}
		s++;
	}
	fsm_buf_append(b, "\"", 1);
	return done(b);
}

/* Text: one line whatever the string holds; backslash escapes it. */
int fsm_text_string(struct fsm_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s || !*s)
		return fsm_buf_puts(b, "-");
	for (; *s; s++) {
		if (*s < 0x20 || *s == 0x7f)
			fsm_buf_printf(b, "\\x%02x", *s);
		else if (*s == '\\')
			fsm_buf_puts(b, "\\\\");
		else
			fsm_buf_append(b, s, 1);
	}
	return done(b);
}

static uint64_t event_time(const struct fsm_event *ev, uint64_t recv_ns)
{
	return ev->has_timestamp ? ev->timestamp_ns : recv_ns;
}

/*
 * 2026-12-03T07:42:51.123456789Z 254:16 ext4 vdb uuid <uuid>: no space left
 * for data, uid 0, pid 123 (alloc_test), count 5 (2 suppressed)
 */
int fsm_format_event_text(struct fsm_buf *b, const struct fsm_event *ev,
			  uint64_t recv_ns)
{
	const char *words = fsm_warning_words(ev->warning);

	fsm_format_time(b, event_time(ev, recv_ns));
	fsm_buf_printf(b, " %u:%u ", ev->major, ev->minor);
	fsm_text_string(b, ev->fstype);
	fsm_buf_puts(b, " ");
	fsm_text_string(b, ev->device);
	fsm_buf_puts(b, " uuid ");
	if (ev->has_uuid)
		fsm_format_uuid(b, ev->uuid);
	else
		fsm_buf_puts(b, "-");
	fsm_buf_puts(b, ": ");
	if (words)
		fsm_buf_puts(b, words);
	else
		fsm_buf_printf(b, "unknown warning %u", ev->warning);
	if (ev->has_uid)
		fsm_buf_printf(b, ", uid %llu", (unsigned long long)ev->uid);
	else
		fsm_buf_puts(b, ", uid -");
	if (ev->has_pid)
		fsm_buf_printf(b, ", pid %u (", ev->pid);
	else
		fsm_buf_puts(b, ", pid - (");
	fsm_text_string(b, ev->comm);
	fsm_buf_printf(b, "), count %llu", (unsigned long long)ev->count);
	if (ev->has_suppressed && ev->suppressed)
		fsm_buf_printf(b, " (%llu suppressed)",
			       (unsigned long long)ev->suppressed);
	fsm_buf_puts(b, "\n");
	return done(b);
}

static void json_key(struct fsm_buf *b, const char *key, bool first)
{
	fsm_buf_printf(b, "%s\"%s\":", first ? "" : ",", key);
}

static void json_u64(struct fsm_buf *b, const char *key, bool has, uint64_t v)
{
	json_key(b, key, false);
	if (has)
		fsm_buf_printf(b, "%llu", (unsigned long long)v);
	else
		fsm_buf_puts(b, "null");
}

static void json_uuid(struct fsm_buf *b, bool has, const uint8_t *uuid)
{
	json_key(b, "uuid", false);
	if (has) {
		fsm_buf_puts(b, "\"");
		fsm_format_uuid(b, uuid);
		fsm_buf_puts(b, "\"");
	} else {
		fsm_buf_puts(b, "null");
	}
}

static void json_time(struct fsm_buf *b, uint64_t ns)
{
	json_key(b, "time", true);
	fsm_buf_puts(b, "\"");
	fsm_format_time(b, ns);
	fsm_buf_puts(b, "\"");
}

static void json_warning(struct fsm_buf *b, uint32_t warning)
{
	json_key(b, "warning", false);
	fsm_buf_puts(b, "\"");
	fsm_format_warning_name(b, warning);
	fsm_buf_puts(b, "\"");
}

static void json_dev(struct fsm_buf *b, uint32_t major, uint32_t minor,
		     bool first)
{
	json_key(b, "dev", first);
	fsm_buf_printf(b, "\"%u:%u\"", major, minor);
}

int fsm_format_event_json(struct fsm_buf *b, const struct fsm_event *ev,
			  uint64_t recv_ns)
{
	uint64_t t = event_time(ev, recv_ns);

	fsm_buf_puts(b, "{");
	json_time(b, t);
	json_u64(b, "timestamp_ns", true, t);
	json_warning(b, ev->warning);
	json_u64(b, "warning_id", true, ev->warning);
	json_dev(b, ev->major, ev->minor, false);
	json_u64(b, "major", true, ev->major);
	json_u64(b, "minor", true, ev->minor);
	json_key(b, "fstype", false);
	fsm_json_string(b, ev->fstype);
	json_key(b, "device", false);
	fsm_json_string(b, ev->device);
	json_uuid(b, ev->has_uuid, ev->uuid);
	json_u64(b, "uid", ev->has_uid, ev->uid);
	json_u64(b, "pid", ev->has_pid, ev->pid);
	json_key(b, "comm", false);
	fsm_json_string(b, ev->comm);
	json_u64(b, "count", true, ev->count);
	json_u64(b, "suppressed", ev->has_suppressed, ev->suppressed);
	fsm_buf_puts(b, "}\n");
	return done(b);
}

/* missed 12 meta-enospc warnings on ext4 vdb (254:16) */
int fsm_format_missed_words(struct fsm_buf *b, const struct fsm_missed *m)
{
	fsm_buf_printf(b, "missed %llu ", (unsigned long long)m->missed);
	fsm_format_warning_name(b, m->warning);
	fsm_buf_puts(b, " warnings on ");
	fsm_text_string(b, m->fstype);
	fsm_buf_puts(b, " ");
	fsm_text_string(b, m->device);
	fsm_buf_printf(b, " (%u:%u)", m->major, m->minor);
	return done(b);
}

/* fsmsg: missed 12 meta-enospc warnings on ext4 vdb (254:16) */
int fsm_format_missed_text(struct fsm_buf *b, const struct fsm_missed *m)
{
	fsm_buf_puts(b, "fsmsg: ");
	fsm_format_missed_words(b, m);
	fsm_buf_puts(b, "\n");
	return done(b);
}

int fsm_format_missed_json(struct fsm_buf *b, const struct fsm_missed *m,
			   uint64_t now_ns)
{
	fsm_buf_puts(b, "{");
	json_time(b, now_ns);
	fsm_buf_puts(b, ",\"event\":\"missed\"");
	json_dev(b, m->major, m->minor, false);
	json_key(b, "fstype", false);
	fsm_json_string(b, m->fstype);
	json_key(b, "device", false);
	fsm_json_string(b, m->device);
	json_uuid(b, m->has_uuid, m->uuid);
	json_warning(b, m->warning);
	json_u64(b, "missed", true, m->missed);
	fsm_buf_puts(b, "}\n");
	return done(b);
}

int fsm_format_fs_json(struct fsm_buf *b, const struct fsm_fs *fs,
		       const uint32_t *cols, size_t ncols)
{
	fsm_buf_puts(b, "{");
	json_dev(b, fs->major, fs->minor, true);
	json_u64(b, "major", true, fs->major);
	json_u64(b, "minor", true, fs->minor);
	json_key(b, "fstype", false);
	fsm_json_string(b, fs->fstype);
	json_key(b, "device", false);
	fsm_json_string(b, fs->device);
	json_uuid(b, fs->has_uuid, fs->uuid);
	json_key(b, "counters", false);
	fsm_buf_puts(b, "{");
	for (size_t i = 0; i < ncols; i++) {
		const struct fsm_counter *c = fsm_fs_counter(fs, cols[i]);

		fsm_buf_puts(b, i ? ",\"" : "\"");
		fsm_format_warning_name(b, cols[i]);
		fsm_buf_printf(b, "\":{\"count\":%llu,\"last_ns\":%llu,\"suppressed\":%llu}",
			       (unsigned long long)(c ? c->count : 0),
			       (unsigned long long)(c ? c->last_ns : 0),
			       (unsigned long long)(c ? c->suppressed : 0));
	}
	fsm_buf_puts(b, "}}\n");
	return done(b);
}

/* The table is built cell by cell so that column widths fit the data. */
enum { COL_DEVICE, COL_DEV, COL_FSTYPE, COL_UUID, NTEXTCOLS };

static int cell(struct fsm_buf *c, const struct fsm_fs *fs, size_t col,
		const uint32_t *cols)
{
	fsm_buf_reset(c);
	switch (col) {
	case COL_DEVICE:
		return fsm_text_string(c, fs->device);
	case COL_DEV:
		return fsm_buf_printf(c, "%u:%u", fs->major, fs->minor);
	case COL_FSTYPE:
		return fsm_text_string(c, fs->fstype);
	case COL_UUID:
		if (!fs->has_uuid)
			return fsm_buf_puts(c, "-");
		return fsm_format_uuid(c, fs->uuid);
	default: {
		const struct fsm_counter *ctr =
			fsm_fs_counter(fs, cols[col - NTEXTCOLS]);

		return fsm_buf_printf(c, "%llu",
				      (unsigned long long)(ctr ? ctr->count : 0));
	}
	}
}

static int header(struct fsm_buf *c, size_t col, const uint32_t *cols)
{
	static const char *const names[NTEXTCOLS] = {
		"DEVICE", "MAJ:MIN", "FSTYPE", "UUID",
	};

	fsm_buf_reset(c);
	if (col < NTEXTCOLS)
		return fsm_buf_puts(c, names[col]);
	if (fsm_format_warning_name(c, cols[col - NTEXTCOLS]) < 0)
		return -1;
	for (size_t i = 0; i < c->len; i++)
		c->data[i] = (char)toupper((unsigned char)c->data[i]);
	return 0;
}

static void put_cell(struct fsm_buf *b, const struct fsm_buf *c, size_t col,
		     size_t ncol, size_t width)
{
	size_t pad = width > c->len ? width - c->len : 0;
	bool numeric = col >= NTEXTCOLS;

	if (col)
		fsm_buf_puts(b, "  ");
	if (numeric)
		fsm_buf_printf(b, "%*s", (int)pad, "");
	fsm_buf_append(b, fsm_buf_str(c), c->len);
	if (!numeric && col + 1 < ncol)
		fsm_buf_printf(b, "%*s", (int)pad, "");
}

int fsm_format_fs_table(struct fsm_buf *b, const struct fsm_fs *fss,
			size_t n, const uint32_t *cols, size_t ncols)
{
	size_t ncol = NTEXTCOLS + ncols, *width;
	struct fsm_buf c;
	int ret = -1;

	width = calloc(ncol, sizeof(*width));
	if (!width) {
		b->oom = true;
		return -1;
	}
	fsm_buf_init(&c);
	for (size_t col = 0; col < ncol; col++) {
		if (header(&c, col, cols) < 0)
			goto out;
		width[col] = c.len;
		for (size_t r = 0; r < n; r++) {
			if (cell(&c, &fss[r], col, cols) < 0)
				goto out;
			if (c.len > width[col])
				width[col] = c.len;
		}
	}
	for (size_t col = 0; col < ncol; col++) {
		if (header(&c, col, cols) < 0)
			goto out;
		put_cell(b, &c, col, ncol, width[col]);
	}
	fsm_buf_puts(b, "\n");
	for (size_t r = 0; r < n; r++) {
		for (size_t col = 0; col < ncol; col++) {
			if (cell(&c, &fss[r], col, cols) < 0)
				goto out;
			put_cell(b, &c, col, ncol, width[col]);
		}
		fsm_buf_puts(b, "\n");
	}
	ret = done(b);
out:
	if (ret < 0)
		b->oom = true;
	fsm_buf_free(&c);
	free(width);
	return ret;
}
