// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text and JSON renderings of FS_MSG events, missed-warning reports and the
 * filesystem list.
 *
 * fsmsg formats every event it receives, so the lines are written
 * directly into the buffer (literals with their lengths known when
 * compiled, integers, hex and the time by small writers) rather than
 * through printf: it is several times faster, and the output is the same
 * byte for byte as the printf formats noted next to each writer.
 */
#include "format.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSEC_PER_SEC 1000000000ULL
#define SEC_PER_DAY 86400U

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

/*
 * Where to write @n more bytes, room for the NUL included; NULL when out
 * of memory. The test inline is the common case: len < cap whenever the
 * buffer has storage, and len == cap == 0 when it has none, so the
 * subtraction cannot wrap.
 */
static inline char *room(struct fsm_buf *b, size_t n)
{
	if ((b->oom || n >= b->cap - b->len) && reserve(b, n) < 0)
		return NULL;
	return b->data + b->len;
}

/* The bytes written through room() up to @end join the contents. */
static inline void commit(struct fsm_buf *b, char *end)
{
	*end = '\0';
	b->len = (size_t)(end - b->data);
}

static inline void put(struct fsm_buf *b, const void *s, size_t n)
{
	char *p = room(b, n);

	if (p) {
		memcpy(p, s, n);
		commit(b, p + n);
	}
}

/* A string literal: its length is a constant, so the copy is inlined. */
#define put_lit(b, lit) put((b), "" lit, sizeof(lit) - 1)

int fsm_buf_append(struct fsm_buf *b, const void *p, size_t n)
{
	char *q = room(b, n);

	if (!q)
		return -1;
	if (n)
		memcpy(q, p, n);
	commit(b, q + n);
	return 0;
}

int fsm_buf_puts(struct fsm_buf *b, const char *s)
{
	return fsm_buf_append(b, s, strlen(s));
}

/*
 * Straight into the free space when the result fits (the usual case once
 * the buffer has grown); measured, grown and written again when not.
 */
int fsm_buf_vprintf(struct fsm_buf *b, const char *fmt, va_list ap)
{
	size_t avail = b->oom || !b->data ? 0 : b->cap - b->len;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(avail ? b->data + b->len : NULL, avail, fmt, ap);
	if (n >= 0 && (size_t)n >= avail) {
		if (reserve(b, (size_t)n) < 0)
			n = -1;
		else
			vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	if (n < 0) {
		/* A cut first attempt may have overwritten the NUL. */
		if (b->data)
			b->data[b->len] = '\0';
		b->oom = true;
		return -1;
	}
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

/* "00" to "99": integers are written two digits per division. */
static const char digit_pairs[] =
	"00010203040506070809" "10111213141516171819"
	"20212223242526272829" "30313233343536373839"
	"40414243444546474849" "50515253545556575859"
	"60616263646566676869" "70717273747576777879"
	"80818283848586878889" "90919293949596979899";

/* "00" to "ff": a byte in hex is one two-byte copy. */
#define HEX16(hi) hi "0" hi "1" hi "2" hi "3" hi "4" hi "5" hi "6" hi "7" \
		  hi "8" hi "9" hi "a" hi "b" hi "c" hi "d" hi "e" hi "f"
static const char hex_pairs[] =
	HEX16("0") HEX16("1") HEX16("2") HEX16("3")
	HEX16("4") HEX16("5") HEX16("6") HEX16("7")
	HEX16("8") HEX16("9") HEX16("a") HEX16("b")
	HEX16("c") HEX16("d") HEX16("e") HEX16("f");

/* %02u of @v < 100, at @p; returns the end. */
static inline char *two_digits(char *p, unsigned int v)
{
	memcpy(p, &digit_pairs[2 * v], 2);
	return p + 2;
}

/* %02x of @c, at @p; returns the end. */
static inline char *hex_byte(char *p, unsigned char c)
{
	memcpy(p, &hex_pairs[2 * c], 2);
	return p + 2;
}

/* Number of decimal digits of @v. */
static inline unsigned int dec_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL,
	};
	unsigned int t;

	if (v < 10)
		return 1;
	/* From the bit length (log10(2) ~ 1233 / 4096), one short at most;
	 * t <= 64 * 1233 >> 12 = 19. */
	t = (unsigned int)(64 - __builtin_clzll(v)) * 1233 >> 12;
	return t + (v >= pow10[t]);
}

/* %llu: digits written from the last, two per division, in place. */
static void put_u64(struct fsm_buf *b, uint64_t v)
{
	unsigned int n = dec_len(v);
	char *p = room(b, n), *q;

	if (!p)
		return;
	q = p + n;
	while (v >= 100) {
		q -= 2;
		two_digits(q, (unsigned int)(v % 100));
		v /= 100;
	}
	if (v >= 10)
		two_digits(q - 2, (unsigned int)v);
	else
		q[-1] = (char)('0' + v);
	commit(b, p + n);
}

/* The value, or null when absent (JSON). */
static void put_u64_or_null(struct fsm_buf *b, bool has, uint64_t v)
{
	if (has)
		put_u64(b, v);
	else
		put_lit(b, "null");
}

/* %u:%u */
static void put_dev(struct fsm_buf *b, uint32_t major, uint32_t minor)
{
	put_u64(b, major);
	put_lit(b, ":");
	put_u64(b, minor);
}

/*
 * Year, month and day of @days since 1970-01-01 in the proleptic
 * Gregorian calendar: Howard Hinnant's civil_from_days(), for days >= 0.
 * A few multiplications instead of gmtime_r() (the time zone lock and
 * machinery on every call), and no cache to keep between calls.
 */
static void civil_from_days(uint64_t days, unsigned int *y, unsigned int *m,
			    unsigned int *d)
{
	uint64_t z = days + 719468;	/* days since 0000-03-01 */
	uint64_t era = z / 146097;	/* 400-year cycles */
	unsigned int doe = (unsigned int)(z - era * 146097);	/* [0, 146096] */
	unsigned int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) /
			   365;				/* [0, 399] */
	unsigned int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);	/* [0, 365] */
	unsigned int mp = (5 * doy + 2) / 153;		/* March = 0 */

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (unsigned int)(era * 400 + yoe) + (*m <= 2);
}

/*
 * %04d-%02d-%02dT%02d:%02d:%02d.%09luZ of gmtime_r(). A u64 of ns ends in
 * 2554, so the year always has four digits, and the date is right past
 * 2038 with a 32-bit time_t too.
 */
#define TIME_LEN 30

int fsm_format_time(struct fsm_buf *b, uint64_t ns)
{
	uint64_t sec = ns / NSEC_PER_SEC;
	unsigned int frac = (unsigned int)(ns % NSEC_PER_SEC);
	unsigned int sod = (unsigned int)(sec % SEC_PER_DAY);
	unsigned int y, mo, d;
	char *p = room(b, TIME_LEN), *q;

	if (!p)
		return -1;
	civil_from_days(sec / SEC_PER_DAY, &y, &mo, &d);
	q = two_digits(p, y / 100);
	q = two_digits(q, y % 100);
	*q++ = '-';
	q = two_digits(q, mo);
	*q++ = '-';
	q = two_digits(q, d);
	*q++ = 'T';
	q = two_digits(q, sod / 3600);
	*q++ = ':';
	q = two_digits(q, sod / 60 % 60);
	*q++ = ':';
	q = two_digits(q, sod % 60);
	*q++ = '.';
	*q++ = (char)('0' + frac / 100000000);
	frac %= 100000000;
	q = two_digits(q, frac / 1000000);
	q = two_digits(q, frac / 10000 % 100);
	q = two_digits(q, frac / 100 % 100);
	q = two_digits(q, frac % 100);
	*q++ = 'Z';
	commit(b, q);
	return 0;
}

/* %04d-%02d-%02dT%02d:%02d:%02dZ: fsm_format_time() without the fraction. */
#define TIME_SEC_LEN 20

int fsm_format_time_sec(struct fsm_buf *b, uint64_t ns)
{
	if (fsm_format_time(b, ns) < 0)
		return -1;
	/* Drop ".nnnnnnnnnZ", put the Z back. */
	b->len -= TIME_LEN - TIME_SEC_LEN;
	b->data[b->len - 1] = 'Z';
	b->data[b->len] = '\0';
	return 0;
}

/* %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x */
#define UUID_STR_LEN 36

int fsm_format_uuid(struct fsm_buf *b, const uint8_t u[FSM_UUID_LEN])
{
	/* Where each byte's two digits go, around the dashes. */
	static const unsigned char at[FSM_UUID_LEN] = {
		0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34,
	};
	char *p = room(b, UUID_STR_LEN);

	if (!p)
		return -1;
	for (int i = 0; i < FSM_UUID_LEN; i++)
		hex_byte(p + at[i], u[i]);
	p[8] = p[13] = p[18] = p[23] = '-';
	commit(b, p + UUID_STR_LEN);
	return 0;
}

int fsm_format_warning_name(struct fsm_buf *b, uint32_t warning)
{
	const char *name = fsm_warning_name(warning);

	if (name)
		return fsm_buf_puts(b, name);
	/* A newer kernel's type: keep the number rather than drop it. */
	put_lit(b, "unknown-");
	put_u64(b, warning);
	return done(b);
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

/* A backslash, then @c as \u00XX (JSON) or \xXX (text). */
static void put_escape(struct fsm_buf *b, bool json, unsigned char c)
{
	char *p = room(b, 6), *q;

	if (!p)
		return;
	q = p;
	*q++ = '\\';
	if (json) {
		memcpy(q, "u00", 3);
		q += 3;
	} else {
		*q++ = 'x';
	}
	commit(b, hex_byte(q, c));
}

/*
 * JSON string: quotes and backslashes escaped, control characters and
 * bytes that are not UTF-8 (comm is whatever the task set) as \u00XX, so
 * the line always parses. Runs of bytes that need nothing are copied in
 * one go.
 */
int fsm_json_string(struct fsm_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *run;

	if (!s) {
		put_lit(b, "null");
		return done(b);
	}
	put_lit(b, "\"");
	run = s;
	for (;;) {
		unsigned char c = *s;
		size_t n;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			s++;
			continue;
		}
		if (c >= 0x80 && (n = fsm_utf8_seq(s)) != 0) {
			s += n;
			continue;
		}
		put(b, run, (size_t)(s - run));
		if (!c)
			break;
		if (c == '"' || c == '\\') {
			const char esc[2] = { '\\', (char)c };

			put(b, esc, 2);
		} else {
			put_escape(b, true, c);
		}
		run = ++s;
	}
	put_lit(b, "\"");
	return done(b);
}

/* Text: one line whatever the string holds; backslash escapes it. */
int fsm_text_string(struct fsm_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *run;

	if (!s || !*s) {
		put_lit(b, "-");
		return done(b);
	}
	for (run = s;; s++) {
		unsigned char c = *s;

		if (c >= 0x20 && c != 0x7f && c != '\\')
			continue;
		put(b, run, (size_t)(s - run));
		if (!c)
			break;
		if (c == '\\')
			put_lit(b, "\\\\");
		else
			put_escape(b, false, c);
		run = s + 1;
	}
	return done(b);
}

static uint64_t event_time(const struct fsm_event *ev, uint64_t recv_ns)
{
	return ev->has_timestamp ? ev->timestamp_ns : recv_ns;
}

/*
 * --receive-time, text: " received %c%llu.%03lluus" of the receive time
 * less the kernel's TIMESTAMP, sign always written ('+' for 0); the
 * delivery latency in microseconds, to the nanosecond. " received -"
 * when the kernel sent no TIMESTAMP: there is nothing to subtract.
 */
static void put_received_delta(struct fsm_buf *b, const struct fsm_event *ev,
			       uint64_t recv_ns)
{
	uint64_t d;
	unsigned int frac;
	char *p;

	if (!ev->has_timestamp) {
		put_lit(b, " received -");
		return;
	}
	/* Unsigned both ways: no overflow whatever the two values. */
	if (recv_ns >= ev->timestamp_ns) {
		d = recv_ns - ev->timestamp_ns;
		put_lit(b, " received +");
	} else {
		d = ev->timestamp_ns - recv_ns;
		put_lit(b, " received -");
	}
	put_u64(b, d / 1000);
	frac = (unsigned int)(d % 1000);
	p = room(b, 6);
	if (!p)
		return;
	p[0] = '.';
	p[1] = (char)('0' + frac / 100);
	two_digits(p + 2, frac % 100);
	p[4] = 'u';
	p[5] = 's';
	commit(b, p + 6);
}

/*
 * A volume label in the text line: one token, whatever its bytes, so that
 * the line still splits on spaces and on ": ". As fsm_text_string(), and
 * space, ':' and '"' as \xXX too.
 */
static void put_label_token(struct fsm_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *run;

	for (run = s;; s++) {
		unsigned char c = *s;

		if (c > 0x20 && c != 0x7f && c != '\\' && c != ':' && c != '"')
			continue;
		put(b, run, (size_t)(s - run));
		if (!c)
			break;
		if (c == '\\')
			put_lit(b, "\\\\");
		else
			put_escape(b, false, c);
		run = s + 1;
	}
}

/*
 * The mount points in text: the first as one token (put_label_token():
 * space, ':' and '"' escaped, so it never splits), then " +N" for the N
 * others; "-" when none is known.
 */
static void put_mnts_text(struct fsm_buf *b, const struct fsm_mnts *mnt)
{
	if (!mnt->n) {
		put_lit(b, "-");
		return;
	}
	put_label_token(b, mnt->paths[0]);
	if (mnt->n > 1) {
		put_lit(b, " +");
		put_u64(b, mnt->n - 1);
	}
}

int fsm_format_mountpoints_text(struct fsm_buf *b, const struct fsm_mnts *mnt)
{
	put_mnts_text(b, mnt);
	return done(b);
}

/* ,"mountpoints":["/srv","/srv2"] in mount id order, null when none. */
static void json_mnts(struct fsm_buf *b, const struct fsm_mnts *mnt)
{
	put_lit(b, ",\"mountpoints\":");
	if (!mnt->n) {
		put_lit(b, "null");
		return;
	}
	put_lit(b, "[");
	for (size_t i = 0; i < mnt->n; i++) {
		if (i)
			put_lit(b, ",");
		fsm_json_string(b, mnt->paths[i]);
	}
	put_lit(b, "]");
}

int fsm_format_severity_name(struct fsm_buf *b, uint32_t severity)
{
	const char *name = fsm_severity_name(severity);

	if (name)
		return fsm_buf_puts(b, name);
	put_lit(b, "unknown-");
	put_u64(b, severity);
	return done(b);
}

/*
 * The filesystem and the message's severity and warning, the start of
 * every event line:
 * 254:16 ext4 vdb uuid <uuid> sb 7 label <label>: warning: no space left for data
 * with " sb N" and " label L" only when the message has them (a label
 * that is empty is none).
 */
static void put_event_head(struct fsm_buf *b, const struct fsm_event *ev)
{
	const char *words = fsm_warning_words(ev->warning);

	put_dev(b, ev->major, ev->minor);
	put_lit(b, " ");
	fsm_text_string(b, ev->fstype);
	put_lit(b, " ");
	fsm_text_string(b, ev->device);
	put_lit(b, " uuid ");
	if (ev->has_uuid)
		fsm_format_uuid(b, ev->uuid);
	else
		put_lit(b, "-");
	if (ev->has_sb_id) {
		put_lit(b, " sb ");
		put_u64(b, ev->sb_id);
	}
	if (ev->label && *ev->label) {
		put_lit(b, " label ");
		put_label_token(b, ev->label);
	}
	put_lit(b, " mnt ");
	put_mnts_text(b, &ev->mnt);
	put_lit(b, ": ");
	fsm_format_severity_name(b, ev->severity);
	put_lit(b, ": ");
	if (words) {
		fsm_buf_puts(b, words);
	} else {
		put_lit(b, "unknown warning ");
		put_u64(b, ev->warning);
	}
}

/* %#x, as 0x0 for 0 too. */
static void put_hex32(struct fsm_buf *b, uint32_t v)
{
	char *p = room(b, 10), *q;
	int shift = 28;

	if (!p)
		return;
	q = p;
	*q++ = '0';
	*q++ = 'x';
	while (shift > 0 && !(v >> shift))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		*q++ = "0123456789abcdef"[(v >> shift) & 0xf];
	commit(b, q);
}

/*
 * The details of an fs-error, a shutdown or a data-lost, those the message
 * has, after the count:
 *  reason error fs_flags 0x0 errno EIO (5) function ext4_lookup line 1234
 *  inode 12 block 0 offset 0 length 4096
 * an errno the C library has no name for as " errno 200", a newer reason
 * as its number; the function one token, as a label.
 */
static void put_details_text(struct fsm_buf *b, const struct fsm_event *ev)
{
	if (ev->has_reason) {
		const char *name = fsm_reason_name(ev->reason);

		put_lit(b, " reason ");
		if (name)
			fsm_buf_puts(b, name);
		else
			put_u64(b, ev->reason);
	}
	if (ev->has_fs_flags) {
		put_lit(b, " fs_flags ");
		put_hex32(b, ev->fs_flags);
	}
	if (ev->has_errno) {
		const char *name = fsm_errno_name(ev->error);

		put_lit(b, " errno ");
		if (name) {
			fsm_buf_puts(b, name);
			put_lit(b, " (");
			put_u64(b, ev->error);
			put_lit(b, ")");
		} else {
			put_u64(b, ev->error);
		}
	}
	if (ev->function && *ev->function) {
		put_lit(b, " function ");
		put_label_token(b, ev->function);
	}
	if (ev->has_line) {
		put_lit(b, " line ");
		put_u64(b, ev->line);
	}
	if (ev->has_inode) {
		put_lit(b, " inode ");
		put_u64(b, ev->inode);
	}
	if (ev->has_block) {
		put_lit(b, " block ");
		put_u64(b, ev->block);
	}
	if (ev->has_offset) {
		put_lit(b, " offset ");
		put_u64(b, ev->offset);
	}
	if (ev->has_length) {
		put_lit(b, " length ");
		put_u64(b, ev->length);
	}
}

/*
 * 2026-12-03T07:42:51.123456789Z 254:16 ext4 vdb uuid <uuid> sb 7: warning:
 * no space left for data, uid 0, pid 123 (alloc_test), count 5 (2 suppressed)
 * (no ", uid ... (comm)" part when the message has no task attribute),
 * then the details of an fs-error or a shutdown (put_details_text()),
 * and with @received: ... (2 suppressed) received +12.345us
 * A summary:
 * 2026-12-03T07:42:52.000000000Z 254:16 ext4 vdb uuid <uuid> sb 7: warning:
 * no space left for data, 37 warnings held back by rate limiting (count 120)
 */
int fsm_format_event_text(struct fsm_buf *b, const struct fsm_event *ev,
			  uint64_t recv_ns, bool received)
{
	fsm_format_time(b, event_time(ev, recv_ns));
	put_lit(b, " ");
	put_event_head(b, ev);
	if (ev->summary) {
		uint64_t n = ev->has_suppressed ? ev->suppressed : 0;

		put_lit(b, ", ");
		put_u64(b, n);
		if (n == 1)
			put_lit(b, " warning held back by rate limiting (count ");
		else
			put_lit(b, " warnings held back by rate limiting (count ");
		put_u64(b, ev->count);
		put_lit(b, ")");
		put_details_text(b, ev);
		if (received)
			put_received_delta(b, ev, recv_ns);
		put_lit(b, "\n");
		return done(b);
	}
	/* No task at all (data-lost: writeback is no task's doing): no part. */
	if (ev->has_uid || ev->has_pid || ev->comm) {
		put_lit(b, ", uid ");
		if (ev->has_uid)
			put_u64(b, ev->uid);
		else
			put_lit(b, "-");
		put_lit(b, ", pid ");
		if (ev->has_pid)
			put_u64(b, ev->pid);
		else
			put_lit(b, "-");
		put_lit(b, " (");
		fsm_text_string(b, ev->comm);
		put_lit(b, ")");
	}
	put_lit(b, ", count ");
	put_u64(b, ev->count);
	if (ev->has_suppressed && ev->suppressed) {
		put_lit(b, " (");
		put_u64(b, ev->suppressed);
		put_lit(b, " suppressed)");
	}
	put_details_text(b, ev);
	if (received)
		put_received_delta(b, ev, recv_ns);
	put_lit(b, "\n");
	return done(b);
}

/* ,"key": with @key a string literal. */
#define json_key(b, key) put_lit(b, ",\"" key "\":")

#define json_u64(b, key, has, v) do {		\
	json_key(b, key);			\
	put_u64_or_null(b, has, v);		\
} while (0)

static void json_uuid(struct fsm_buf *b, bool has, const uint8_t *uuid)
{
	json_key(b, "uuid");
	if (has) {
		put_lit(b, "\"");
		fsm_format_uuid(b, uuid);
		put_lit(b, "\"");
	} else {
		put_lit(b, "null");
	}
}

/*
 * ,"key":"1796283771123456789": a 64-bit count of nanoseconds as a string
 * of digits, null when absent. As a JSON number it would pass 2^53, the
 * last integer a double (jq, JavaScript) holds exactly.
 */
static void json_ns(struct fsm_buf *b, const char *key, size_t keylen,
		    bool has, uint64_t v)
{
	put(b, key, keylen);
	if (has) {
		put_lit(b, "\"");
		put_u64(b, v);
		put_lit(b, "\"");
	} else {
		put_lit(b, "null");
	}
}

#define json_ns_key(b, key, has, v) \
	json_ns(b, ",\"" key "\":", sizeof(",\"" key "\":") - 1, has, v)

/*
 * {"time":"2026-12-03T07:42:51Z" opens every event and missed line: whole
 * seconds, UTC, the one form jq's fromdateiso8601 takes (the nanoseconds
 * are in timestamp_ns).
 */
static void json_time(struct fsm_buf *b, uint64_t ns)
{
	put_lit(b, "{\"time\":\"");
	fsm_format_time_sec(b, ns);
	put_lit(b, "\"");
}

static void json_warning(struct fsm_buf *b, uint32_t warning)
{
	json_key(b, "warning");
	put_lit(b, "\"");
	fsm_format_warning_name(b, warning);
	put_lit(b, "\"");
}

/* "dev":"254:16" */
static void json_dev(struct fsm_buf *b, uint32_t major, uint32_t minor)
{
	put_lit(b, "\"dev\":\"");
	put_dev(b, major, minor);
	put_lit(b, "\"");
}

static void json_severity(struct fsm_buf *b, uint32_t severity)
{
	json_key(b, "severity");
	put_lit(b, "\"");
	fsm_format_severity_name(b, severity);
	put_lit(b, "\"");
	json_u64(b, "severity_id", true, severity);
}

/*
 * The details of an fs-error, a shutdown or a data-lost, null when absent:
 * errno and its name (null when the C library has none), function, line,
 * inode, block, the reason's name (its number when newer than fsmsg) and
 * number, fs_flags, the file range lost (offset, length).
 */
static void json_details(struct fsm_buf *b, const struct fsm_event *ev)
{
	const char *reason = ev->has_reason ? fsm_reason_name(ev->reason) : NULL;

	json_u64(b, "errno", ev->has_errno, ev->error);
	json_key(b, "errno_name");
	fsm_json_string(b, ev->has_errno ? fsm_errno_name(ev->error) : NULL);
	json_key(b, "function");
	fsm_json_string(b, ev->function);
	json_u64(b, "line", ev->has_line, ev->line);
	json_u64(b, "inode", ev->has_inode, ev->inode);
	json_u64(b, "block", ev->has_block, ev->block);
	if (reason) {
		json_key(b, "reason");
		fsm_json_string(b, reason);
	} else {
		json_u64(b, "reason", ev->has_reason, ev->reason);
	}
	json_u64(b, "reason_id", ev->has_reason, ev->reason);
	json_u64(b, "fs_flags", ev->has_fs_flags, ev->fs_flags);
	json_u64(b, "offset", ev->has_offset, ev->offset);
	json_u64(b, "length", ev->has_length, ev->length);
}

/*
 * A warning or a summary ("event":"warning" or "summary"); a summary has
 * the task keys too, as null, so that both have the same keys.
 */
int fsm_format_event_json(struct fsm_buf *b, const struct fsm_event *ev,
			  uint64_t recv_ns, bool received)
{
	uint64_t t = event_time(ev, recv_ns);

	json_time(b, t);
	if (ev->summary)
		put_lit(b, ",\"event\":\"summary\"");
	else
		put_lit(b, ",\"event\":\"warning\"");
	json_ns_key(b, "timestamp_ns", true, t);
	json_warning(b, ev->warning);
	json_u64(b, "warning_id", true, ev->warning);
	json_severity(b, ev->severity);
	put_lit(b, ",");
	json_dev(b, ev->major, ev->minor);
	json_u64(b, "major", true, ev->major);
	json_u64(b, "minor", true, ev->minor);
	json_key(b, "fstype");
	fsm_json_string(b, ev->fstype);
	json_key(b, "device");
	fsm_json_string(b, ev->device);
	json_uuid(b, ev->has_uuid, ev->uuid);
	json_key(b, "label");
	fsm_json_string(b, ev->label);
	json_mnts(b, &ev->mnt);
	json_u64(b, "sb_id", ev->has_sb_id, ev->sb_id);
	json_u64(b, "uid", ev->has_uid, ev->uid);
	json_u64(b, "pid", ev->has_pid, ev->pid);
	json_key(b, "comm");
	fsm_json_string(b, ev->comm);
	json_u64(b, "count", true, ev->count);
	json_u64(b, "suppressed", ev->has_suppressed, ev->suppressed);
	json_details(b, ev);
	/* --receive-time: last, so that every other key keeps its place. */
	if (received)
		json_ns_key(b, "received_ns", true, recv_ns);
	put_lit(b, "}\n");
	return done(b);
}

/*
 * missed 12 meta-enospc warnings on ext4 vdb (254:16) mnt /srv
 * the mount points as an event line has them (put_mnts_text()), last so
 * that the words before them read as a sentence.
 */
int fsm_format_missed_words(struct fsm_buf *b, const struct fsm_missed *m)
{
	put_lit(b, "missed ");
	put_u64(b, m->missed);
	put_lit(b, " ");
	fsm_format_warning_name(b, m->warning);
	put_lit(b, " warnings on ");
	fsm_text_string(b, m->fstype);
	put_lit(b, " ");
	fsm_text_string(b, m->device);
	put_lit(b, " (");
	put_dev(b, m->major, m->minor);
	put_lit(b, ") mnt ");
	put_mnts_text(b, &m->mnt);
	return done(b);
}

/* fsmsg: missed 12 meta-enospc warnings on ext4 vdb (254:16) mnt /srv */
int fsm_format_missed_text(struct fsm_buf *b, const struct fsm_missed *m)
{
	put_lit(b, "fsmsg: ");
	fsm_format_missed_words(b, m);
	put_lit(b, "\n");
	return done(b);
}

int fsm_format_missed_json(struct fsm_buf *b, const struct fsm_missed *m,
			   uint64_t now_ns)
{
	json_time(b, now_ns);
	put_lit(b, ",\"event\":\"missed\",");
	json_dev(b, m->major, m->minor);
	json_key(b, "fstype");
	fsm_json_string(b, m->fstype);
	json_key(b, "device");
	fsm_json_string(b, m->device);
	json_uuid(b, m->has_uuid, m->uuid);
	json_mnts(b, &m->mnt);
	json_warning(b, m->warning);
	json_u64(b, "missed", true, m->missed);
	put_lit(b, "}\n");
	return done(b);
}

int fsm_format_fs_json(struct fsm_buf *b, const struct fsm_fs *fs,
		       const uint32_t *cols, size_t ncols)
{
	put_lit(b, "{\"event\":\"filesystem\",");
	json_dev(b, fs->major, fs->minor);
	json_u64(b, "major", true, fs->major);
	json_u64(b, "minor", true, fs->minor);
	json_key(b, "fstype");
	fsm_json_string(b, fs->fstype);
	json_key(b, "device");
	fsm_json_string(b, fs->device);
	json_uuid(b, fs->has_uuid, fs->uuid);
	json_key(b, "label");
	fsm_json_string(b, fs->label);
	json_mnts(b, &fs->mnt);
	json_u64(b, "sb_id", fs->has_sb_id, fs->sb_id);
	json_key(b, "counters");
	put_lit(b, "{");
	for (size_t i = 0; i < ncols; i++) {
		const struct fsm_counter *c = fsm_fs_counter(fs, cols[i]);

		if (i)
			put_lit(b, ",");
		put_lit(b, "\"");
		fsm_format_warning_name(b, cols[i]);
		/* null: the kernel sent no such value (last_ns 0: never). */
		put_lit(b, "\":{\"count\":");
		put_u64_or_null(b, c, c ? c->count : 0);
		json_ns_key(b, "last_ns", c && c->has_last && c->last_ns,
			    c ? c->last_ns : 0);
		put_lit(b, ",\"suppressed\":");
		put_u64_or_null(b, c && c->has_suppressed,
				c ? c->suppressed : 0);
		put_lit(b, "}");
	}
	put_lit(b, "}}\n");
	return done(b);
}

/* The table is built cell by cell so that column widths fit the data. */
enum { COL_DEVICE, COL_DEV, COL_FSTYPE, COL_UUID, COL_SB_ID, COL_LABEL,
       NTEXTCOLS };

/* The mount points are the last column, after the counters: "/srv +1"
 * has a space, which must not shift the counters' columns. */
static int cell(struct fsm_buf *c, const struct fsm_fs *fs, size_t col,
		const uint32_t *cols, size_t ncols)
{
	fsm_buf_reset(c);
	if (col == NTEXTCOLS + ncols)
		return fsm_format_mountpoints_text(c, &fs->mnt);
	switch (col) {
	case COL_DEVICE:
		return fsm_text_string(c, fs->device);
	case COL_DEV:
		put_dev(c, fs->major, fs->minor);
		return done(c);
	case COL_FSTYPE:
		return fsm_text_string(c, fs->fstype);
	case COL_UUID:
		if (!fs->has_uuid)
			return fsm_buf_puts(c, "-");
		return fsm_format_uuid(c, fs->uuid);
	case COL_SB_ID:
		if (!fs->has_sb_id)
			return fsm_buf_puts(c, "-");
		put_u64(c, fs->sb_id);
		return done(c);
	case COL_LABEL:
		if (!fs->label || !*fs->label)
			return fsm_buf_puts(c, "-");
		put_label_token(c, fs->label);
		return done(c);
	default: {
		const struct fsm_counter *ctr =
			fsm_fs_counter(fs, cols[col - NTEXTCOLS]);

		put_u64(c, ctr ? ctr->count : 0);
		return done(c);
	}
	}
}

static int header(struct fsm_buf *c, size_t col, const uint32_t *cols,
		  size_t ncols)
{
	static const char *const names[NTEXTCOLS] = {
		"DEVICE", "MAJ:MIN", "FSTYPE", "UUID", "SB_ID", "LABEL",
	};

	fsm_buf_reset(c);
	if (col < NTEXTCOLS)
		return fsm_buf_puts(c, names[col]);
	if (col == NTEXTCOLS + ncols)
		return fsm_buf_puts(c, "MOUNTPOINT");
	if (fsm_format_warning_name(c, cols[col - NTEXTCOLS]) < 0)
		return -1;
	for (size_t i = 0; i < c->len; i++)
		c->data[i] = (char)toupper((unsigned char)c->data[i]);
	return 0;
}

/* @n spaces. */
static void put_pad(struct fsm_buf *b, size_t n)
{
	char *p = room(b, n);

	if (p) {
		memset(p, ' ', n);
		commit(b, p + n);
	}
}

static void put_cell(struct fsm_buf *b, const struct fsm_buf *c, size_t col,
		     size_t ncol, size_t width)
{
	size_t pad = width > c->len ? width - c->len : 0;
	bool numeric = col >= NTEXTCOLS && col + 1 < ncol;

	if (col)
		put_lit(b, "  ");
	if (numeric)
		put_pad(b, pad);
	put(b, fsm_buf_str(c), c->len);
	if (!numeric && col + 1 < ncol)
		put_pad(b, pad);
}

int fsm_format_fs_table(struct fsm_buf *b, const struct fsm_fs *fss,
			size_t n, const uint32_t *cols, size_t ncols)
{
	size_t ncol = NTEXTCOLS + ncols + 1, *width;
	struct fsm_buf c;
	int ret = -1;

	width = calloc(ncol, sizeof(*width));
	if (!width) {
		b->oom = true;
		return -1;
	}
	fsm_buf_init(&c);
	for (size_t col = 0; col < ncol; col++) {
		if (header(&c, col, cols, ncols) < 0)
			goto out;
		width[col] = c.len;
		for (size_t r = 0; r < n; r++) {
			if (cell(&c, &fss[r], col, cols, ncols) < 0)
				goto out;
			if (c.len > width[col])
				width[col] = c.len;
		}
	}
	for (size_t col = 0; col < ncol; col++) {
		if (header(&c, col, cols, ncols) < 0)
			goto out;
		put_cell(b, &c, col, ncol, width[col]);
	}
	put_lit(b, "\n");
	for (size_t r = 0; r < n; r++) {
		for (size_t col = 0; col < ncol; col++) {
			if (cell(&c, &fss[r], col, cols, ncols) < 0)
				goto out;
			put_cell(b, &c, col, ncol, width[col]);
		}
		put_lit(b, "\n");
	}
	ret = done(b);
out:
	if (ret < 0)
		b->oom = true;
	fsm_buf_free(&c);
	free(width);
	return ret;
}
