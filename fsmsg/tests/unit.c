// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host-side unit tests: crafted netlink messages through the parser, the
 * formatters, the accounting, the filters and the monitor; output compared
 * byte for byte. TAP on stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#include "accounting.h"
#include "event.h"
#include "filter.h"
#include "format.h"
#include "journal.h"
#include "metrics.h"
#include "monitor.h"
#include "mounts.h"
#include "nlbuild.h"
#include "promcheck.h"

#define TS 1796283771123456789ULL
#define TS_STR "2026-12-03T07:42:51.123456789Z"
#define JTS_STR "2026-12-03T07:42:51Z"	/* JSON "time": to the second */
#define RECV 1700000000000000001ULL
#define RECV_STR "2023-11-14T22:13:20.000000001Z"
#define JRECV_STR "2023-11-14T22:13:20Z"
#define UUID_STR "0c5f3a9e-1234-4bcd-8ef0-0123456789ab"
/* The fs-error and shutdown keys of a JSON event without them. */
#define NO_DETAILS ",\"errno\":null,\"errno_name\":null,\"function\":null," \
	"\"line\":null,\"inode\":null,\"block\":null,\"reason\":null," \
	"\"reason_id\":null,\"fs_flags\":null,\"offset\":null,\"length\":null"

static int tests, failed;

static bool ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!cond)
		failed++;
	printf("%sok %d - ", cond ? "" : "not ", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

static void diag_str(const char *label, const char *s)
{
	printf("#   %s: '", label);
	for (; s && *s; s++) {
		if (*s == '\n')
			printf("\\n");
		else
			putchar(*s);
	}
	printf("'\n");
}

static bool is_str(const char *got, const char *want, const char *name)
{
	bool same = got && want && !strcmp(got, want);

	if (!ok(same, "%s", name)) {
		diag_str("got", got ? got : "(null)");
		diag_str("want", want ? want : "(null)");
	}
	return same;
}

static bool is_u64(uint64_t got, uint64_t want, const char *name)
{
	if (!ok(got == want, "%s", name))
		printf("#   got %llu, want %llu\n", (unsigned long long)got,
		       (unsigned long long)want);
	return got == want;
}

static bool has_str(const char *hay, const char *needle, const char *name)
{
	bool found = hay && strstr(hay, needle);

	if (!ok(found, "%s", name)) {
		diag_str("in", hay ? hay : "(null)");
		diag_str("missing", needle);
	}
	return found;
}

/* ---- parser ---------------------------------------------------------- */

static int parse(const struct raw *r, struct fsm_event *ev,
		 struct fsm_error *err)
{
	return fsm_event_parse(r->buf, r->len, TEST_FAMILY, ev, err);
}

static void test_full_event(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_buf b;

	raw_full_event(&r, FS_MSG_WARN_ENOSPC, 5, 2, "alloc_test");
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK, "full event parses");
	ok(ev.warning == 1 && ev.major == 254 && ev.minor == 16 && ev.count == 5,
	   "required attributes read");
	ok(ev.has_uid && ev.uid == 1000 && ev.has_pid && ev.pid == 123 &&
	   ev.has_timestamp && ev.timestamp_ns == TS && ev.has_suppressed &&
	   ev.suppressed == 2, "numeric optional attributes read");
	ok(ev.fstype && !strcmp(ev.fstype, "ext4") && ev.device &&
	   !strcmp(ev.device, "vdb") && ev.comm && !strcmp(ev.comm, "alloc_test"),
	   "string attributes read");
	ok(ev.has_uuid && !memcmp(ev.uuid, test_uuid, 16), "uuid read");

	fsm_buf_init(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for data,"
	       " uid 1000, pid 123 (alloc_test), count 5 (2 suppressed)\n",
	       "full event: text line");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       "{\"time\":\"" JTS_STR "\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771123456789\","
	       "\"warning\":\"enospc\",\"warning_id\":1,\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"254:16\","
	       "\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\","
	       "\"uuid\":\"" UUID_STR "\",\"label\":null,\"mountpoints\":null,\"sb_id\":7,\"uid\":1000,\"pid\":123,"
	       "\"comm\":\"alloc_test\",\"count\":5,\"suppressed\":2" NO_DETAILS "}\n",
	       "full event: JSON line");
	fsm_buf_free(&b);
	raw_free(&r);
}

/* The same full event, built with libnl as a kernel-like sender would. */
static void test_libnl_built(void)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct fsm_event ev;
	struct fsm_error err;
	struct nlmsghdr *nlh;
	struct fsm_buf b;

	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, TEST_FAMILY, 0, 0,
		    FS_MSG_CMD_WARNING, FS_MSG_FAMILY_VERSION);
	nla_put_u32(msg, FS_MSG_A_WARNING, FS_MSG_WARN_META_ENOSPC);
	nla_put_u32(msg, FS_MSG_A_DEV_MAJOR, 0);
	nla_put_u32(msg, FS_MSG_A_DEV_MINOR, 45);
	nla_put_u32(msg, FS_MSG_A_CAUSED_ID, 0);
	nla_put_string(msg, FS_MSG_A_FSTYPE, "btrfs");
	nla_put_string(msg, FS_MSG_A_DEVICE, "vdc");
	nla_put_u32(msg, FS_MSG_A_PID, 4242);
	nla_put_string(msg, FS_MSG_A_COMM, "kworker/u8:1");
	nla_put_u64(msg, FS_MSG_A_TIMESTAMP, TS);
	/* 8 bytes for a small value: nla_put_uint() would not, but a
	 * uint of 8 bytes is valid whatever its value. */
	nla_put_u64(msg, FS_MSG_A_COUNT, 1);
	nla_put_u32(msg, FS_MSG_A_SUPPRESSED, 0);
	nla_put_u64(msg, FS_MSG_A_SB_ID, (1ULL << 33) + 5);
	nlh = nlmsg_hdr(msg);

	ok(fsm_event_parse(nlh, nlh->nlmsg_len, TEST_FAMILY, &ev, &err) ==
	   FSM_PARSE_OK, "libnl-built event parses");
	fsm_buf_init(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       TS_STR " 0:45 btrfs vdc uuid - sb 8589934597 mnt -: warning: no space left for metadata, uid 0,"
	       " pid 4242 (kworker/u8:1), count 1\n",
	       "libnl-built event: text, no uuid, no suppressed suffix for 0");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       "{\"time\":\"" JTS_STR "\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771123456789\","
	       "\"warning\":\"meta-enospc\",\"warning_id\":2,\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"0:45\","
	       "\"major\":0,\"minor\":45,\"fstype\":\"btrfs\",\"device\":\"vdc\","
	       "\"uuid\":null,\"label\":null,\"mountpoints\":null,\"sb_id\":8589934597,\"uid\":0,\"pid\":4242,\"comm\":\"kworker/u8:1\","
	       "\"count\":1,\"suppressed\":0" NO_DETAILS "}\n",
	       "libnl-built event: JSON");
	fsm_buf_free(&b);
	nlmsg_free(msg);
}

static void build_minimal(struct raw *r, uint32_t warning)
{
	raw_begin(r, FS_MSG_CMD_WARNING);
	raw_u32(r, FS_MSG_A_WARNING, warning);
	raw_u32(r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(r, FS_MSG_A_DEV_MINOR, 3);
	raw_uint(r, FS_MSG_A_COUNT, 7);
	raw_end(r);
}

static void test_minimal_event(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_buf b;

	build_minimal(&r, FS_MSG_WARN_INODE_ENOSPC);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK, "minimal event parses");
	ok(!ev.has_uid && !ev.has_pid && !ev.has_timestamp && !ev.has_suppressed &&
	   !ev.has_uuid && !ev.fstype && !ev.device && !ev.comm,
	   "absent optional attributes are marked absent");
	fsm_buf_init(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       RECV_STR " 8:3 - - uuid - mnt -: warning: no free inodes, count 7\n",
	       "minimal event: text uses '-' and the receive time");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       "{\"time\":\"" JRECV_STR "\",\"event\":\"warning\",\"timestamp_ns\":\"1700000000000000001\","
	       "\"warning\":\"inode-enospc\",\"warning_id\":3,\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"8:3\","
	       "\"major\":8,\"minor\":3,\"fstype\":null,\"device\":null,"
	       "\"uuid\":null,\"label\":null,\"mountpoints\":null,\"sb_id\":null,\"uid\":null,\"pid\":null,\"comm\":null,"
	       "\"count\":7,\"suppressed\":null" NO_DETAILS "}\n",
	       "minimal event: JSON nulls and the receive time");
	fsm_buf_free(&b);
	raw_free(&r);
}

static void test_unknown_warning(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_buf b;

	build_minimal(&r, 7);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.warning == 7,
	   "unknown warning type 7 is kept, not dropped");
	fsm_buf_init(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b), ": unknown warning 7, count 7",
		"unknown warning: words carry the number");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b), "\"warning\":\"unknown-7\",\"warning_id\":7,\"severity\":\"warning\",\"severity_id\":2,",
		"unknown warning: JSON name unknown-7 and id");
	fsm_buf_free(&b);
	raw_free(&r);

	build_minimal(&r, FS_MSG_WARN_NONE);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID &&
	   strstr(err.msg, "WARNING (1) is 0"), "WARNING 0 is invalid");
	raw_free(&r);
}

static void test_missing_required(void)
{
	static const struct {
		int skip;
		const char *name;
	} cases[] = {
		{ FS_MSG_A_WARNING, "WARNING (1)" },
		{ FS_MSG_A_DEV_MAJOR, "DEV_MAJOR (2)" },
		{ FS_MSG_A_DEV_MINOR, "DEV_MINOR (3)" },
		{ FS_MSG_A_COUNT, "COUNT (11)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct raw r = { 0 };
		struct fsm_event ev;
		struct fsm_error err;
		char want[96];

		raw_begin(&r, FS_MSG_CMD_WARNING);
		if (cases[i].skip != FS_MSG_A_WARNING)
			raw_u32(&r, FS_MSG_A_WARNING, 1);
		if (cases[i].skip != FS_MSG_A_DEV_MAJOR)
			raw_u32(&r, FS_MSG_A_DEV_MAJOR, 254);
		if (cases[i].skip != FS_MSG_A_DEV_MINOR)
			raw_u32(&r, FS_MSG_A_DEV_MINOR, 16);
		raw_str(&r, FS_MSG_A_COMM, "x");
		if (cases[i].skip != FS_MSG_A_COUNT)
			raw_uint(&r, FS_MSG_A_COUNT, 1);
		raw_end(&r);
		snprintf(want, sizeof(want), "missing required attribute %s",
			 cases[i].name);
		ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID, "missing %s: invalid",
		   cases[i].name);
		is_str(err.msg, want, "missing attribute named in the reason");
		raw_free(&r);
	}

	/* Nothing at all: every one named. */
	{
		struct raw r = { 0 };
		struct fsm_event ev;
		struct fsm_error err;

		raw_begin(&r, FS_MSG_CMD_WARNING);
		raw_end(&r);
		ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID,
		   "no attributes: invalid");
		is_str(err.msg,
		       "missing required attributes WARNING (1), DEV_MAJOR (2), DEV_MINOR (3), COUNT (11)",
		       "no attributes: all four named");
		raw_free(&r);
	}
}

static void test_unknown_attrs(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	uint64_t big = 42;
	char blob[300];

	memset(blob, 'z', sizeof(blob));	/* not NUL-terminated, any length */
	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_attr(&r, FS_MSG_A_MAX + 1, blob, sizeof(blob));
	raw_u32(&r, FS_MSG_A_WARNING, 1);
	raw_attr(&r, 99, &big, 3);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 254);
	raw_attr(&r, 0x3fff, NULL, 0);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 16);
	raw_attr(&r, FS_MSG_A_UNSPEC, blob, 5);
	raw_uint(&r, FS_MSG_A_COUNT, 3);
	raw_attr(&r, 200 | NLA_F_NESTED, blob, 8);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.count == 3 &&
	   ev.major == 254 && ev.minor == 16,
	   "unknown attribute numbers (17, 99, 200, 0x3fff, 0) are ignored");
	raw_free(&r);

	/* A COUNTER nest in an event (not used there) does not matter. */
	build_minimal(&r, 1);
	raw_nest_begin(&r, FS_MSG_A_COUNTER);
	raw_u32(&r, FS_MSG_A_COUNTER_WARNING, 1);
	raw_nest_end(&r);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK, "known but unused attribute ignored");
	raw_free(&r);
}

static void test_truncated(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	uint32_t v = 1;
	size_t full;

	/* Attribute length beyond the message. */
	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_u32(&r, FS_MSG_A_WARNING, 1);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 254);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 16);
	raw_uint(&r, FS_MSG_A_COUNT, 1);
	raw_attr_lie(&r, FS_MSG_A_COMM, "abc", 4, 64);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID, "nla_len beyond the message: invalid");
	is_str(err.msg, "attribute COMM (9) is truncated: length 68, 8 bytes left",
	       "truncated attribute: reason");
	raw_free(&r);

	/* A message cut short: nlmsg_len larger than what was received. */
	raw_full_event(&r, 1, 1, 0, "x");
	full = r.len;
	ok(fsm_event_parse(r.buf, full - 8, TEST_FAMILY, &ev, &err) ==
	   FSM_PARSE_INVALID && strstr(err.msg, "truncated message"),
	   "nlmsg_len beyond the received bytes: invalid");
	ok(fsm_event_parse(r.buf, 10, TEST_FAMILY, &ev, &err) == FSM_PARSE_INVALID,
	   "10 bytes: invalid");
	ok(fsm_event_parse(NULL, 0, TEST_FAMILY, &ev, &err) == FSM_PARSE_INVALID,
	   "NULL buffer: invalid");
	raw_free(&r);

	/* Two stray bytes after the last attribute. */
	build_minimal(&r, 1);
	raw_put(&r, &v, 2);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID, "trailing 2 bytes: invalid");
	is_str(err.msg, "truncated attribute header (2 trailing bytes)",
	       "trailing bytes: reason");
	raw_free(&r);

	/* nla_len smaller than a header. */
	build_minimal(&r, 1);
	raw_attr_lie(&r, FS_MSG_A_PID, &v, 4, 0);
	r.buf[r.len - 8] = 2;	/* nla_len = 2 */
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID &&
	   strstr(err.msg, "invalid length 2"), "nla_len < 4: invalid");
	raw_free(&r);

	/* No genetlink header. */
	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_end(&r);
	raw_set_len(&r, NLMSG_HDRLEN + 2);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID &&
	   strstr(err.msg, "no generic netlink header"), "short genl header: invalid");
	raw_free(&r);

	/* The last attribute without its padding is fine. */
	build_minimal(&r, 1);
	raw_str(&r, FS_MSG_A_COMM, "ab");	/* 3 bytes + 1 pad */
	raw_end(&r);
	raw_set_len(&r, (uint32_t)(r.len - r.msg - 1));
	ok(fsm_event_parse(r.buf, r.len - 1, TEST_FAMILY, &ev, &err) == FSM_PARSE_OK &&
	   ev.comm && !strcmp(ev.comm, "ab"), "unpadded last attribute accepted");
	raw_free(&r);
}

static void test_oversized(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	uint64_t eight = 1;
	char *huge;
	struct fsm_buf b;

	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_attr(&r, FS_MSG_A_WARNING, &eight, 8);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 254);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 16);
	raw_uint(&r, FS_MSG_A_COUNT, 1);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID, "u32 attribute with 8 bytes: invalid");
	is_str(err.msg, "attribute WARNING (1) is too long: 8 bytes, at most 4",
	       "oversized u32: reason");
	raw_free(&r);

	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_u32(&r, FS_MSG_A_WARNING, 1);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 254);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 16);
	raw_attr(&r, FS_MSG_A_COUNT, &eight, 6);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID, "uint attribute with 6 bytes: invalid");
	is_str(err.msg, "attribute COUNT (11) has invalid length 6: an unsigned integer is 4 or 8 bytes",
	       "6-byte uint: reason");
	raw_free(&r);

	huge = malloc(5001);
	memset(huge, 'A', 5000);
	huge[5000] = '\0';
	build_minimal(&r, 1);
	raw_str(&r, FS_MSG_A_COMM, huge);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID, "5000-byte COMM: invalid");
	is_str(err.msg, "attribute COMM (9) is too long: 5001 bytes, at most 256",
	       "huge COMM: reason");
	raw_free(&r);

	/* The longest COMM the policy admits is printed whole. */
	huge[FSM_COMM_MAX - 1] = '\0';
	build_minimal(&r, 1);
	raw_str(&r, FS_MSG_A_COMM, huge);
	raw_end(&r);
	fsm_buf_init(&b);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK &&
	   fsm_format_event_json(&b, &ev, RECV, false) == 0 &&
	   strstr(fsm_buf_str(&b), huge) && b.len == strlen(fsm_buf_str(&b)),
	   "255-character COMM accepted and printed whole");
	fsm_buf_free(&b);
	free(huge);
	raw_free(&r);

	build_minimal(&r, 1);
	raw_attr(&r, FS_MSG_A_COMM, "abc", 3);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID &&
	   strstr(err.msg, "COMM (9) is not a NUL-terminated string"),
	   "COMM without NUL: invalid");
	raw_free(&r);

	build_minimal(&r, 1);
	raw_attr(&r, FS_MSG_A_FSTYPE, "", 0);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID &&
	   strstr(err.msg, "FSTYPE (5) is too short: 0 bytes"),
	   "empty FSTYPE payload: invalid");
	raw_free(&r);

	build_minimal(&r, 1);
	raw_attr(&r, FS_MSG_A_UUID, test_uuid, 15);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID &&
	   strstr(err.msg, "UUID (7) is too short: 15 bytes, needs 16"),
	   "15-byte UUID: invalid");
	raw_free(&r);

	{
		uint8_t u17[17] = { 0 };

		build_minimal(&r, 1);
		raw_attr(&r, FS_MSG_A_UUID, u17, 17);
		raw_end(&r);
		ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID &&
		   strstr(err.msg, "UUID (7) is too long: 17 bytes, at most 16"),
		   "17-byte UUID: invalid");
		raw_free(&r);
	}

}

/*
 * NLA_UINT (the kernel's nla_put_uint()): 4 bytes when the value fits in
 * 32 bits, else 8; any other length is malformed. Every such attribute of
 * a warning, of a dump reply and of the COUNTER nest.
 */
static void test_uint(void)
{
	static const struct {
		int type;
		const char *name;
	} ev_attrs[] = {
		{ FS_MSG_A_CAUSED_ID, "CAUSED_ID (4)" },
		{ FS_MSG_A_TIMESTAMP, "TIMESTAMP (10)" },
		{ FS_MSG_A_COUNT, "COUNT (11)" },
		{ FS_MSG_A_SUPPRESSED, "SUPPRESSED (12)" },
		{ FS_MSG_A_SB_ID, "SB_ID (14)" },
		{ FS_MSG_A_BOOTTIME, "BOOTTIME (15)" },
	};
	static const struct {
		int type;
		const char *name;
	} ctr_attrs[] = {
		{ FS_MSG_A_COUNTER_COUNT, "COUNTER_COUNT (2)" },
		{ FS_MSG_A_COUNTER_LAST, "COUNTER_LAST (3)" },
		{ FS_MSG_A_COUNTER_SUPPRESSED, "COUNTER_SUPPRESSED (4)" },
	};
	static const unsigned int bad_lens[] = { 0, 2, 6, 12, 16 };
	const uint64_t big = 0x123456789abcdef0ULL, two32 = 1ULL << 32;
	const unsigned char zeros[16] = { 0 };
	struct fsm_event ev;
	struct fsm_fs fs;
	struct fsm_error err;
	struct raw r = { 0 };

	for (size_t i = 0; i < sizeof(ev_attrs) / sizeof(ev_attrs[0]); i++) {
		int t = ev_attrs[i].type;
		const uint64_t vals[] = { 0, 5, UINT32_MAX, two32, big };

		for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
			uint64_t got = 0;
			bool has = false;

			raw_begin(&r, FS_MSG_CMD_WARNING);
			raw_u32(&r, FS_MSG_A_WARNING, 1);
			raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
			raw_u32(&r, FS_MSG_A_DEV_MINOR, 3);
			if (t != FS_MSG_A_COUNT)
				raw_uint(&r, FS_MSG_A_COUNT, 1);
			raw_uint(&r, (uint16_t)t, vals[k]);
			raw_end(&r);
			if (parse(&r, &ev, &err) == FSM_PARSE_OK) {
				switch (t) {
				case FS_MSG_A_CAUSED_ID:
					has = ev.has_uid, got = ev.uid;
					break;
				case FS_MSG_A_TIMESTAMP:
					has = ev.has_timestamp, got = ev.timestamp_ns;
					break;
				case FS_MSG_A_COUNT:
					has = true, got = ev.count;
					break;
				case FS_MSG_A_SUPPRESSED:
					has = ev.has_suppressed, got = ev.suppressed;
					break;
				case FS_MSG_A_SB_ID:
					has = ev.has_sb_id, got = ev.sb_id;
					break;
				case FS_MSG_A_BOOTTIME:
					has = ev.has_boottime, got = ev.boottime_ns;
					break;
				}
			}
			if (!ok(has && got == vals[k], "uint %s = %llu in %d bytes: read",
				ev_attrs[i].name, (unsigned long long)vals[k],
				vals[k] > UINT32_MAX ? 8 : 4))
				printf("#   got %llu, error '%s'\n",
				       (unsigned long long)got, err.msg);
			raw_free(&r);
		}

		/* 8 bytes for a value that would fit in 4: still valid. */
		raw_begin(&r, FS_MSG_CMD_WARNING);
		raw_u32(&r, FS_MSG_A_WARNING, 1);
		raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
		raw_u32(&r, FS_MSG_A_DEV_MINOR, 3);
		if (t != FS_MSG_A_COUNT)
			raw_uint(&r, FS_MSG_A_COUNT, 1);
		raw_u64(&r, (uint16_t)t, 9);
		raw_end(&r);
		ok(parse(&r, &ev, &err) == FSM_PARSE_OK, "uint %s = 9 in 8 bytes: valid",
		   ev_attrs[i].name);
		raw_free(&r);

		for (size_t k = 0; k < sizeof(bad_lens) / sizeof(bad_lens[0]); k++) {
			char want[160];

			raw_begin(&r, FS_MSG_CMD_WARNING);
			raw_u32(&r, FS_MSG_A_WARNING, 1);
			raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
			raw_u32(&r, FS_MSG_A_DEV_MINOR, 3);
			raw_uint(&r, FS_MSG_A_COUNT, 1);
			raw_attr(&r, (uint16_t)t, zeros, bad_lens[k]);
			raw_end(&r);
			snprintf(want, sizeof(want),
				 "attribute %s has invalid length %u: an unsigned integer is 4 or 8 bytes",
				 ev_attrs[i].name, bad_lens[k]);
			ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID &&
			   !strcmp(err.msg, want), "uint %s of %u bytes: invalid, said so",
			   ev_attrs[i].name, bad_lens[k]);
			raw_free(&r);
		}
	}

	/* The dump reply: SB_ID at the top, the counters in the nest. */
	for (int wide = 0; wide < 2; wide++) {
		uint64_t v = wide ? big : 77;

		raw_begin(&r, FS_MSG_CMD_FS_GET);
		raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
		raw_u32(&r, FS_MSG_A_DEV_MINOR, 1);
		raw_uint(&r, FS_MSG_A_SB_ID, v);
		raw_nest_begin(&r, FS_MSG_A_COUNTER | NLA_F_NESTED);
		raw_u32(&r, FS_MSG_A_COUNTER_WARNING, 1);
		raw_uint(&r, FS_MSG_A_COUNTER_COUNT, v + 1);
		/* A newer kernel's counter attribute: ignored. */
		raw_attr(&r, FS_MSG_A_COUNTER_MAX + 1, zeros, 3);
		raw_uint(&r, FS_MSG_A_COUNTER_LAST, v + 2);
		raw_uint(&r, FS_MSG_A_COUNTER_SUPPRESSED, v + 3);
		raw_nest_end(&r);
		raw_end(&r);
		ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_OK &&
		   fs.has_sb_id && fs.sb_id == v && fs.ncounters == 1 &&
		   fs.counters[0].count == v + 1 && fs.counters[0].last_ns == v + 2 &&
		   fs.counters[0].suppressed == v + 3,
		   "dump reply: SB_ID and counters in %d bytes read, an unknown counter attribute ignored",
		   wide ? 8 : 4);
		raw_free(&r);
	}
	raw_fs_row(&r, 8, 1, "ext4", "vdb", NULL, (const uint64_t[3]){ 0 },
		   (const uint64_t[3]){ 0 });
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_OK &&
	   fs.has_sb_id && fs.sb_id == 1, "dump reply: SB_ID read");
	raw_free(&r);
	raw_fs_row_full(&r, 8, 1, "ext4", "vdb", NULL, (const uint64_t[3]){ 0 },
			(const uint64_t[3]){ 0 }, NULL, NULL);
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_OK &&
	   !fs.has_sb_id, "dump reply without SB_ID: absent");
	raw_free(&r);
	raw_begin(&r, FS_MSG_CMD_FS_GET);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 1);
	raw_attr(&r, FS_MSG_A_SB_ID, zeros, 6);
	raw_end(&r);
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_INVALID &&
	   !strcmp(err.msg, "attribute SB_ID (14) has invalid length 6: an unsigned integer is 4 or 8 bytes"),
	   "dump reply: SB_ID of 6 bytes invalid");
	raw_free(&r);

	for (size_t i = 0; i < sizeof(ctr_attrs) / sizeof(ctr_attrs[0]); i++) {
		for (size_t k = 0; k < sizeof(bad_lens) / sizeof(bad_lens[0]); k++) {
			char want[200];

			raw_begin(&r, FS_MSG_CMD_FS_GET);
			raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
			raw_u32(&r, FS_MSG_A_DEV_MINOR, 1);
			raw_nest_begin(&r, FS_MSG_A_COUNTER | NLA_F_NESTED);
			raw_u32(&r, FS_MSG_A_COUNTER_WARNING, 1);
			if (ctr_attrs[i].type != FS_MSG_A_COUNTER_COUNT)
				raw_uint(&r, FS_MSG_A_COUNTER_COUNT, 1);
			raw_attr(&r, (uint16_t)ctr_attrs[i].type, zeros, bad_lens[k]);
			raw_nest_end(&r);
			raw_end(&r);
			snprintf(want, sizeof(want),
				 "attribute COUNTER (13): attribute %s has invalid length %u: an unsigned integer is 4 or 8 bytes",
				 ctr_attrs[i].name, bad_lens[k]);
			ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) ==
			   FSM_PARSE_INVALID && !strcmp(err.msg, want),
			   "uint %s of %u bytes: invalid, said so", ctr_attrs[i].name,
			   bad_lens[k]);
			raw_free(&r);
		}
	}

	/* The kernel's layout: 4-byte values where they fit, no PAD. */
	raw_full_event(&r, 1, 5, 0, "x");
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.has_sb_id &&
	   ev.sb_id == TEST_SB_ID && ev.has_boottime &&
	   ev.boottime_ns == TEST_BOOTTIME && ev.timestamp_ns == TS,
	   "full event: SB_ID (4 bytes), BOOTTIME and TIMESTAMP (8 bytes) read");
	raw_free(&r);
}

static void test_not_an_event(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;

	raw_begin(&r, FS_MSG_CMD_FS_GET);
	raw_u32(&r, FS_MSG_A_WARNING, 1);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 254);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 16);
	raw_uint(&r, FS_MSG_A_COUNT, 1);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_IGNORED &&
	   !strcmp(err.msg, "command 2, expected 1"),
	   "FS_GET command on the event path: ignored");
	raw_free(&r);

	raw_begin(&r, 99);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_IGNORED, "unknown command 99: ignored");
	raw_free(&r);

	raw_begin_type(&r, TEST_FAMILY + 1, FS_MSG_CMD_WARNING, 0);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_IGNORED, "another family: ignored");
	ok(fsm_event_parse(r.buf, r.len, 0, &ev, &err) == FSM_PARSE_INVALID,
	   "family 0 accepts any type (then the attributes decide)");
	raw_free(&r);

	raw_begin_type(&r, NLMSG_DONE, 0, NLM_F_MULTI);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_IGNORED, "NLMSG_DONE: ignored");
	raw_free(&r);
}

static void test_escaping(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_buf b;
	/* quote, backslash, newline, tab, ^A, DEL, é, an invalid byte,
	 * a 4-byte sequence, a surrogate (invalid in UTF-8) */
	const char comm[] = "a\"b\\c\nd\te\x01" "f\x7f" "g\xc3\xa9h\xff"
			    "i\xf0\x9f\x98\x80j\xed\xa0\x80";

	raw_full_event(&r, 1, 1, 0, comm);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK, "event with odd comm parses");
	fsm_buf_init(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b),
		"\"comm\":\"a\\\"b\\\\c\\u000ad\\u0009e\\u0001f\\u007fg\xc3\xa9h"
		"\\u00ffi\xf0\x9f\x98\x80j\\u00ed\\u00a0\\u0080\",",
		"JSON escapes quotes, backslashes, controls, invalid UTF-8");
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b),
		"pid 123 (a\"b\\\\c\\x0ad\\x09e\\x01f\\x7fg\xc3\xa9h\xff"
		"i\xf0\x9f\x98\x80j\xed\xa0\x80), count 1\n",
		"text escapes controls and backslashes, one line");
	ok(strchr(fsm_buf_str(&b), '\n') == fsm_buf_str(&b) + b.len - 1,
	   "text: the only newline ends the line");
	fsm_buf_free(&b);
	raw_free(&r);

	fsm_buf_init(&b);
	fsm_json_string(&b, "\xc0\xaf\xe0\x80\xaf\xf4\x90\x80\x80\xc3");
	is_str(fsm_buf_str(&b), "\"\\u00c0\\u00af\\u00e0\\u0080\\u00af\\u00f4"
	       "\\u0090\\u0080\\u0080\\u00c3\"",
	       "JSON: overlong, out-of-range and cut sequences escaped per byte");
	fsm_buf_reset(&b);
	fsm_json_string(&b, NULL);
	fsm_text_string(&b, NULL);
	fsm_text_string(&b, "");
	is_str(fsm_buf_str(&b), "null--", "absent strings: null and -");
	fsm_buf_free(&b);
}

static void test_time_vs_gmtime(void);

static void test_time(void)
{
	struct fsm_buf b;

	fsm_buf_init(&b);
	fsm_format_time(&b, 0);
	is_str(fsm_buf_str(&b), "1970-01-01T00:00:00.000000000Z", "time: epoch");
	fsm_buf_reset(&b);
	fsm_format_time(&b, 2147483648ULL * 1000000000ULL + 5);
	is_str(fsm_buf_str(&b), "2038-01-19T03:14:08.000000005Z", "time: past 2038");
	fsm_buf_reset(&b);
	fsm_format_time(&b, UINT64_MAX);
	is_str(fsm_buf_str(&b), "2554-07-21T23:34:33.709551615Z", "time: u64 max");
	fsm_buf_reset(&b);
	fsm_buf_puts(&b, "x");
	fsm_format_time_sec(&b, 2147483648ULL * 1000000000ULL + 999999999);
	fsm_buf_puts(&b, "y");
	is_str(fsm_buf_str(&b), "x2038-01-19T03:14:08Zy",
	       "time to the second (JSON): no fraction, not rounded, appends");
	fsm_buf_reset(&b);
	fsm_format_time_sec(&b, UINT64_MAX);
	is_str(fsm_buf_str(&b), "2554-07-21T23:34:33Z", "time to the second: u64 max");
	fsm_buf_free(&b);
	test_time_vs_gmtime();
}

/*
 * The formatter computes the calendar itself: compare it with gmtime_r()
 * on every day a u64 of ns reaches, at a different second of each, and
 * on the last second of each day.
 */
static void test_time_vs_gmtime(void)
{
	const uint64_t last_day = UINT64_MAX / 1000000000ULL / 86400;
	struct fsm_buf b;
	bool good = true;

	fsm_buf_init(&b);
	for (uint64_t day = 0; day <= last_day && good; day++) {
		for (int k = 0; k < 2 && good; k++) {
			uint64_t sec = day * 86400 + (k ? 86399 : day * 7919 % 86400);
			uint64_t frac = day * 104729 % 1000000000ULL;
			time_t t = (time_t)sec;
			char want[64];
			struct tm tm;

			if (sec > UINT64_MAX / 1000000000ULL ||
			    (sec == UINT64_MAX / 1000000000ULL &&
			     frac > UINT64_MAX % 1000000000ULL))
				continue;
			if (!gmtime_r(&t, &tm)) {
				good = false;
				break;
			}
			snprintf(want, sizeof(want),
				 "%04d-%02d-%02dT%02d:%02d:%02d.%09luZ",
				 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
				 tm.tm_hour, tm.tm_min, tm.tm_sec,
				 (unsigned long)frac);
			fsm_buf_reset(&b);
			fsm_format_time(&b, sec * 1000000000ULL + frac);
			if (strcmp(fsm_buf_str(&b), want)) {
				diag_str("got", fsm_buf_str(&b));
				diag_str("want", want);
				good = false;
			}
		}
	}
	ok(good && !b.oom, "time: as gmtime_r() on every day from 1970 to 2554");
	fsm_buf_free(&b);
}

/* Integers, UUIDs and escapes, against printf and per-byte references. */
static void test_writers(void)
{
	struct fsm_buf b, want;
	bool good = true;
	char s[256];
	uint8_t u[FSM_UUID_LEN];

	/* %llu at every power of ten and one below, through "missed N". */
	fsm_buf_init(&b);
	fsm_buf_init(&want);
	for (uint64_t p = 1;; p *= 10) {
		const uint64_t vals[] = { p - 1, p, p + 1, UINT64_MAX };
		struct fsm_missed m = { .major = (uint32_t)p,
					.minor = UINT32_MAX, .warning = 1 };

		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			m.missed = vals[i];
			fsm_buf_reset(&b);
			fsm_buf_reset(&want);
			fsm_format_missed_words(&b, &m);
			fsm_buf_printf(&want, "missed %llu enospc warnings on - - (%u:%u) mnt -",
				       (unsigned long long)m.missed, m.major, m.minor);
			if (strcmp(fsm_buf_str(&b), fsm_buf_str(&want))) {
				diag_str("got", fsm_buf_str(&b));
				diag_str("want", fsm_buf_str(&want));
				good = false;
			}
		}
		if (p > UINT64_MAX / 10)
			break;
	}
	ok(good, "integers: as %%llu and %%u at every power of ten");

	/* Every byte value in a UUID. */
	good = true;
	for (int i = 0; i < 256; i += FSM_UUID_LEN) {
		for (int j = 0; j < FSM_UUID_LEN; j++)
			u[j] = (uint8_t)(i + j * 17);
		fsm_buf_reset(&b);
		fsm_buf_reset(&want);
		fsm_format_uuid(&b, u);
		fsm_buf_printf(&want,
			"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
			u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
		good = good && !strcmp(fsm_buf_str(&b), fsm_buf_str(&want));
	}
	ok(good, "uuid: as 16 %%02x, every byte value");

	/* Every byte value 1..255 in one string, against byte-by-byte
	 * references. */
	for (int i = 1; i < 256; i++)
		s[i - 1] = (char)i;
	s[255] = '\0';
	fsm_buf_reset(&b);
	fsm_buf_reset(&want);
	fsm_text_string(&b, s);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			fsm_buf_printf(&want, "\\x%02x", *c);
		else if (*c == '\\')
			fsm_buf_puts(&want, "\\\\");
		else
			fsm_buf_append(&want, c, 1);
	}
	is_str(fsm_buf_str(&b), fsm_buf_str(&want), "text: every byte value escaped as before");
	fsm_buf_reset(&b);
	fsm_buf_reset(&want);
	/* With valid sequences among the bytes too. */
	fsm_json_string(&b, "\xc3\xa9\x01\xe2\x82\xac\xf0\x9f\x98\x80\"");
	fsm_json_string(&want, s);
	is_str(fsm_buf_str(&b), "\"\xc3\xa9\\u0001\xe2\x82\xac\xf0\x9f\x98\x80\\\"\"",
	       "JSON: valid UTF-8 kept between escapes");
	fsm_buf_reset(&b);
	fsm_buf_puts(&b, "\"");
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fsm_buf_printf(&b, "\\%c", *c);
		else if (*c < 0x20 || *c >= 0x7f)	/* in this order, no byte >= 0x80 starts a valid sequence */
			fsm_buf_printf(&b, "\\u%04x", *c);
		else
			fsm_buf_append(&b, c, 1);
	}
	fsm_buf_puts(&b, "\"");
	is_str(fsm_buf_str(&want), fsm_buf_str(&b), "JSON: every byte value escaped as before");

	/* Once out of memory, every writer leaves the contents alone. */
	fsm_buf_reset(&b);
	fsm_buf_puts(&b, "kept");
	b.oom = true;
	memset(u, 0xab, sizeof(u));
	ok(fsm_format_time(&b, 1) < 0 && fsm_format_uuid(&b, u) < 0 &&
	   fsm_json_string(&b, "x\n") < 0 && fsm_text_string(&b, "x\n") < 0 &&
	   fsm_format_warning_name(&b, 99) < 0 && fsm_buf_printf(&b, "%d", 1) < 0 &&
	   b.len == 4 && !strcmp(fsm_buf_str(&b), "kept"),
	   "out of memory: writers fail and leave the contents");
	fsm_buf_free(&b);
	fsm_buf_free(&want);
}

static void test_buf(void)
{
	struct fsm_buf b;
	size_t i;
	bool good = true;

	fsm_buf_init(&b);
	is_str(fsm_buf_str(&b), "", "empty buffer reads as empty string");
	for (i = 0; i < 10000; i++)
		fsm_buf_printf(&b, "%05zu", i);
	ok(b.len == 50000 && !b.oom, "buffer grows to 50000 bytes");
	for (i = 0; i < 10000 && good; i++) {
		char want[6];

		snprintf(want, sizeof(want), "%05zu", i);
		good = !memcmp(b.data + i * 5, want, 5);
	}
	ok(good && b.data[b.len] == '\0', "grown buffer holds everything, NUL-terminated");
	fsm_buf_free(&b);
}

/* ---- accounting ------------------------------------------------------ */

static void test_accounting(void)
{
	struct fsm_acct *a = fsm_acct_new(16);
	struct fsm_key k = { 254, 16, 1 }, k2 = { 254, 16, 2 }, k3 = { 0, 45, 1 };
	uint64_t missed, last;

	fsm_acct_seed(a, &k, 10, TS);
	fsm_acct_seed(a, &k2, 0, 0);
	ok(fsm_acct_get(a, &k, &last) && last == 10, "seed sets the last count");

	fsm_acct_event(a, &k, 11, 0, TS + 1, &missed);
	is_u64(missed, 0, "count seed+1: nothing missed");
	fsm_acct_event(a, &k, 15, 3, TS + 2, &missed);
	is_u64(missed, 0, "count +4 with 3 suppressed: nothing missed");
	fsm_acct_event(a, &k, 20, 1, TS + 3, &missed);
	is_u64(missed, 3, "count +5 with 1 suppressed: 3 missed");
	fsm_acct_event(a, &k, 20, 0, TS + 3, &missed);
	is_u64(missed, 0, "same count again: already counted");
	fsm_acct_event(a, &k, 18, 0, TS + 2, &missed);
	is_u64(missed, 0, "older count (queued before the dump): already counted");
	ok(fsm_acct_get(a, &k, &last) && last == 20, "already counted leaves the state");

	/* Suppressed counts from before the seed are part of the seed. */
	fsm_acct_event(a, &k2, 1, 0, TS, &missed);
	is_u64(missed, 0, "first warning after a zero seed");
	fsm_acct_event(a, &k2, 10, 20, TS + 1, &missed);
	is_u64(missed, 0, "suppressed larger than the jump: no negative gap");

	/* A filesystem that appeared after the seed starts from zero. */
	fsm_acct_event(a, &k3, 1, 0, TS, &missed);
	is_u64(missed, 0, "new filesystem, count 1: nothing missed");
	fsm_acct_event(a, &k3, 2, 0, TS + 1, &missed);
	is_u64(missed, 0, "new filesystem, count 2: nothing missed");
	fsm_acct_free(a);

	a = fsm_acct_new(16);
	fsm_acct_event(a, &k3, 6, 2, TS, &missed);
	is_u64(missed, 3, "new filesystem, first seen at count 6 with 2 suppressed: 3 missed");

	/* Overrun resync. */
	fsm_acct_sync(a, &k3, 10, TS + 5, &missed);
	is_u64(missed, 4, "resync: kernel 10, known 6: 4 missed");
	fsm_acct_sync(a, &k3, 10, TS + 5, &missed);
	is_u64(missed, 0, "resync again with the same count: nothing");
	fsm_acct_event(a, &k3, 11, 0, TS + 6, &missed);
	fsm_acct_sync(a, &k3, 10, TS + 5, &missed);
	is_u64(missed, 0, "resync below a count read after the dump: nothing");
	ok(fsm_acct_get(a, &k3, &last) && last == 11, "...and the newer count stays");
	fsm_acct_sync(a, &k, 7, TS, &missed);
	is_u64(missed, 7, "resync of a key never seen: all of its count missed");
	fsm_acct_event(a, &k, 5, 0, TS, &missed);
	is_u64(missed, 0, "message at or below the resync: already counted");

	/* Remount: counts restart, told apart by a clearly newer time. */
	fsm_acct_event(a, &k3, 1, 0, TS + 10ULL * 1000000000ULL, &missed);
	is_u64(missed, 0, "remount: count 1 with a newer timestamp restarts");
	ok(fsm_acct_get(a, &k3, &last) && last == 1, "remount: last count is 1");
	fsm_acct_event(a, &k3, 4, 0, TS + 11ULL * 1000000000ULL, &missed);
	is_u64(missed, 2, "remount: gaps detected again afterwards");
	fsm_acct_event(a, &k3, 2, 0, 0, &missed);
	is_u64(missed, 0, "lower count without timestamp: already counted");
	fsm_acct_event(a, &k3, 3, 0, TS + 11ULL * 1000000000ULL + 1000, &missed);
	is_u64(missed, 0, "lower count within the clock margin: already counted");
	fsm_acct_sync(a, &k3, 2, TS + 20ULL * 1000000000ULL, &missed);
	is_u64(missed, 2, "resync: lower count with a newer warning is a remount");

	/* Kernel numbers are data: no wrap-around. */
	fsm_acct_event(a, &k2, UINT64_MAX, UINT64_MAX, TS, &missed);
	is_u64(missed, 0, "huge suppressed: saturates, no wrap");
	fsm_acct_seed(a, &k2, 0, 0);
	fsm_acct_event(a, &k2, UINT64_MAX, 0, TS, &missed);
	is_u64(missed, UINT64_MAX - 1, "huge count: exact difference");
	fsm_acct_free(a);

	/* Bounded. */
	a = fsm_acct_new(2);
	fsm_acct_seed(a, &k, 1, 0);
	fsm_acct_seed(a, &k2, 1, 0);
	ok(fsm_acct_event(a, &k3, 5, 0, TS, &missed) < 0 && missed == 0,
	   "full table: a third key is not tracked");
	is_u64(fsm_acct_untracked(a), 1, "full table: counted as untracked");
	ok(fsm_acct_size(a) == 2, "full table: size stays at the bound");
	fsm_acct_free(a);

	a = fsm_acct_new(FSM_ACCT_DEFAULT_MAX_KEYS);
	for (uint32_t i = 0; i < 3000; i++) {
		struct fsm_key kk = { 8, i, 1 + i % 3 };

		fsm_acct_seed(a, &kk, i, 0);
	}
	{
		bool all = true;

		for (uint32_t i = 0; i < 3000 && all; i++) {
			struct fsm_key kk = { 8, i, 1 + i % 3 };

			all = fsm_acct_get(a, &kk, &last) && last == i;
		}
		ok(all && fsm_acct_size(a) == 3000, "3000 keys survive table growth");
	}
	/* Keys of the metrics only (no accounting state): in the same table,
	 * not accounted, gone at a prune once they have no series. */
	{
		bool all = true, none = true;
		struct fsm_key kk = { 9, 0, 1 };

		for (uint32_t i = 0; i < 1000; i++) {
			kk.minor = i;
			all = all && fsm_acct_series(a, &kk, true) &&
			      !*fsm_acct_series(a, &kk, false);
			none = none && !fsm_acct_get(a, &kk, &last);
		}
		ok(all && none && fsm_acct_size(a) == 4000,
		   "metrics-only keys: in the table, without a count");
		kk.minor = 7;
		ok(fsm_acct_event(a, &kk, 5, 1, TS, &missed) == 0 && missed == 3 &&
		   fsm_acct_get(a, &kk, &last) && last == 5,
		   "an event on a metrics-only key: accounted as a new key");
		ok(fsm_acct_prune(a) == 0 && fsm_acct_size(a) == 3001,
		   "prune: the keys with neither state nor series go");
		all = true;
		for (uint32_t i = 0; i < 3000 && all; i++) {
			struct fsm_key k8 = { 8, i, 1 + i % 3 };

			all = fsm_acct_get(a, &k8, &last) && last == i;
		}
		kk.minor = 8;
		ok(all && fsm_acct_get(a, &(struct fsm_key){ 9, 7, 1 }, &last) &&
		   last == 5 && !fsm_acct_series(a, &kk, false),
		   "prune: every count survives the rebuild");
		ok(fsm_acct_prune(a) == 0 && fsm_acct_size(a) == 3001,
		   "prune again: nothing to remove");
	}
	fsm_acct_free(a);

	/* A key made by the metrics counts toward the bound. */
	a = fsm_acct_new(1);
	ok(fsm_acct_series(a, &k, true) && !fsm_acct_series(a, &k2, true) &&
	   fsm_acct_untracked(a) == 0,
	   "full table: no key for a series, not counted as untracked");
	ok(fsm_acct_seed(a, &k, 4, TS) == 0 && fsm_acct_get(a, &k, &last) &&
	   last == 4 && fsm_acct_size(a) == 1,
	   "seed on the metrics' key: the same entry");
	fsm_acct_free(a);
}

/* ---- dump replies and --list ------------------------------------------ */

static const uint64_t counts_a[3] = { 0, 3, 0 };
static const uint64_t lasts_a[3] = { 0, TS, 0 };
static const uint64_t counts_b[3] = { 12, 0, 1 };
static const uint64_t lasts_b[3] = { TS + 1, 0, TS + 2 };

static void test_dump_parse(void)
{
	struct raw r = { 0 };
	struct fsm_fs fs, copy;
	struct fsm_error err;
	const struct fsm_counter *c;

	raw_fs_row(&r, 254, 16, "ext4", "vdb", test_uuid, counts_a, lasts_a);
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_OK,
	   "dump reply parses");
	ok(fs.major == 254 && fs.minor == 16 && !strcmp(fs.fstype, "ext4") &&
	   !strcmp(fs.device, "vdb") && fs.has_uuid &&
	   !memcmp(fs.uuid, test_uuid, 16), "dump reply: identity");
	c = fsm_fs_counter(&fs, FS_MSG_WARN_META_ENOSPC);
	ok(fs.ncounters == 3 && c && c->count == 3 && c->last_ns == TS,
	   "dump reply: three counter nests, meta-enospc 3 at TS");
	ok(fsm_fs_clone(&copy, &fs) == 0, "clone");
	raw_free(&r);	/* the copy must not point into the message */
	ok(!strcmp(copy.fstype, "ext4") && !strcmp(copy.device, "vdb") &&
	   copy.ncounters == 3, "clone survives the message");
	fsm_fs_release(&copy);

	/* The event parser ignores dump replies and vice versa. */
	raw_fs_row(&r, 254, 16, "ext4", "vdb", NULL, counts_a, lasts_a);
	{
		struct fsm_event ev;

		ok(fsm_event_parse(r.buf, r.len, TEST_FAMILY, &ev, &err) ==
		   FSM_PARSE_IGNORED, "dump reply on the event path: ignored");
	}
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_OK &&
	   !fs.has_uuid, "dump reply without UUID");
	raw_free(&r);

	raw_full_event(&r, 1, 1, 0, "x");
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_IGNORED,
	   "event on the dump path: ignored");
	raw_free(&r);

	raw_begin(&r, FS_MSG_CMD_FS_GET);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 16);
	raw_end(&r);
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_INVALID &&
	   !strcmp(err.msg, "missing required attribute DEV_MAJOR (2)"),
	   "dump reply without DEV_MAJOR: invalid");
	raw_free(&r);

	raw_begin(&r, FS_MSG_CMD_FS_GET);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 1);
	raw_nest_begin(&r, FS_MSG_A_COUNTER);
	raw_u32(&r, FS_MSG_A_COUNTER_WARNING, 1);
	raw_nest_end(&r);
	raw_end(&r);
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_INVALID,
	   "counter without COUNT: invalid");
	is_str(err.msg,
	       "attribute COUNTER (13): missing required attribute COUNTER_COUNT (2)",
	       "counter without COUNT: reason");
	raw_free(&r);

	/* Counter nest whose inner attribute overruns the nest. */
	raw_begin(&r, FS_MSG_CMD_FS_GET);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 1);
	raw_nest_begin(&r, FS_MSG_A_COUNTER);
	raw_u32(&r, FS_MSG_A_COUNTER_WARNING, 1);
	raw_attr_lie(&r, FS_MSG_A_COUNTER_COUNT, "12345678", 4, 8);
	raw_nest_end(&r);
	raw_end(&r);
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_INVALID &&
	   strstr(err.msg, "COUNTER_COUNT (2) is truncated"),
	   "counter nest with a truncated inner attribute: invalid");
	raw_free(&r);

	/* Repeated type replaces; unknown type kept; last optional. */
	raw_begin(&r, FS_MSG_CMD_FS_GET);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 1);
	for (int i = 0; i < 3; i++) {
		raw_nest_begin(&r, FS_MSG_A_COUNTER);
		raw_u32(&r, FS_MSG_A_COUNTER_WARNING, i == 2 ? 9 : 1);
		raw_uint(&r, FS_MSG_A_COUNTER_COUNT, 100 + (uint64_t)i);
		raw_u32(&r, 77, 0);	/* unknown inside the nest */
		raw_nest_end(&r);
	}
	raw_end(&r);
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_OK &&
	   fs.ncounters == 2 && fsm_fs_counter(&fs, 1)->count == 101 &&
	   fsm_fs_counter(&fs, 9)->count == 102 && fsm_fs_counter(&fs, 9)->last_ns == 0,
	   "repeated counter replaces, unknown type 9 kept, LAST optional");
	ok(!fs.fstype && !fs.device, "dump reply without names");
	raw_free(&r);

	raw_begin(&r, FS_MSG_CMD_FS_GET);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 1);
	for (uint32_t i = 0; i <= FSM_MAX_COUNTERS; i++) {
		raw_nest_begin(&r, FS_MSG_A_COUNTER);
		raw_u32(&r, FS_MSG_A_COUNTER_WARNING, i + 1);
		raw_uint(&r, FS_MSG_A_COUNTER_COUNT, 1);
		raw_nest_end(&r);
	}
	raw_end(&r);
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_INVALID &&
	   strstr(err.msg, "more than 32 warning types"),
	   "33 distinct counter types: invalid, no overflow");
	raw_free(&r);
}

static void make_rows(struct fsm_fs_list *l)
{
	struct raw r = { 0 };
	struct fsm_error err;

	raw_fs_row(&r, 254, 16, "ext4", "vdb", test_uuid, counts_a, lasts_a);
	fsm_fs_list_add(l, r.buf, r.len, TEST_FAMILY, &err);
	raw_free(&r);
	raw_fs_row(&r, 0, 45, "btrfs", "vdc", NULL, counts_b, lasts_b);
	fsm_fs_list_add(l, r.buf, r.len, TEST_FAMILY, &err);
	raw_free(&r);
	raw_fs_row(&r, 254, 32, "xfs", "vdd", test_uuid, counts_b, lasts_a);
	fsm_fs_list_add(l, r.buf, r.len, TEST_FAMILY, &err);
	raw_free(&r);
}

/* A monitor writing into memory, with syslog captured. */
struct capture {
	struct fsm_monitor m;
	struct fsm_filter f;
	char *out, *err;
	size_t outlen, errlen;
	struct fsm_buf log;
};

static void capture_log(void *arg, int prio, const char *line)
{
	struct capture *c = arg;

	fsm_buf_printf(&c->log, "%d|%s\n", prio, line);
}

static void cap_init(struct capture *c, bool json)
{
	memset(c, 0, sizeof(*c));
	fsm_filter_init(&c->f);
	fsm_buf_init(&c->log);
	c->m.json = json;
	c->m.out = open_memstream(&c->out, &c->outlen);
	c->m.err = open_memstream(&c->err, &c->errlen);
	c->m.log = capture_log;
	c->m.log_arg = c;
	c->m.filter = &c->f;
	c->m.family = TEST_FAMILY;
	fsm_monitor_init(&c->m);
}

/* Close the streams so out/err hold everything written. */
static void cap_finish(struct capture *c)
{
	fclose(c->m.out);
	fclose(c->m.err);
	c->m.out = c->m.err = NULL;
}

static void cap_free(struct capture *c)
{
	if (c->m.out)
		cap_finish(c);
	free(c->out);
	free(c->err);
	fsm_buf_free(&c->log);
	fsm_monitor_fini(&c->m);
	fsm_filter_free(&c->f);
}

static void test_list(void)
{
	struct fsm_fs_list l = { 0 };
	struct capture c;
	struct raw r = { 0 };
	struct fsm_error err;

	make_rows(&l);
	ok(l.n == 3, "three dump rows kept");

	cap_init(&c, false);
	fsm_monitor_list(&c.m, &l);
	cap_finish(&c);
	is_str(c.out,
	       "DEVICE  MAJ:MIN  FSTYPE  UUID                                  SB_ID  LABEL  ENOSPC  META-ENOSPC  INODE-ENOSPC  FS-ERROR  SHUTDOWN  DATA-LOST  MOUNTPOINT\n"
	       "vdc     0:45     btrfs   -                                     45     -          12            0             1         0         0          0  -\n"
	       "vdb     254:16   ext4    " UUID_STR "  16     -           0            3             0         0         0          0  -\n"
	       "vdd     254:32   xfs     " UUID_STR "  32     -          12            0             1         0         0          0  -\n",
	       "--list table, sorted by device number");
	cap_free(&c);

	cap_init(&c, true);
	fsm_monitor_list(&c.m, &l);
	cap_finish(&c);
	is_str(c.out,
	       "{\"event\":\"filesystem\",\"dev\":\"0:45\",\"major\":0,\"minor\":45,\"fstype\":\"btrfs\",\"device\":\"vdc\",\"uuid\":null,\"label\":null,\"mountpoints\":null,"
	       "\"sb_id\":45,\"counters\":{\"enospc\":{\"count\":12,\"last_ns\":\"1796283771123456790\",\"suppressed\":null},"
	       "\"meta-enospc\":{\"count\":0,\"last_ns\":null,\"suppressed\":null},"
	       "\"inode-enospc\":{\"count\":1,\"last_ns\":\"1796283771123456791\",\"suppressed\":null},"
	       "\"fs-error\":{\"count\":null,\"last_ns\":null,\"suppressed\":null},\"shutdown\":{\"count\":null,\"last_ns\":null,\"suppressed\":null},\"data-lost\":{\"count\":null,\"last_ns\":null,\"suppressed\":null}}}\n"
	       "{\"event\":\"filesystem\",\"dev\":\"254:16\",\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\","
	       "\"uuid\":\"" UUID_STR "\",\"label\":null,\"mountpoints\":null,\"sb_id\":16,\"counters\":{\"enospc\":{\"count\":0,\"last_ns\":null,\"suppressed\":null},"
	       "\"meta-enospc\":{\"count\":3,\"last_ns\":\"1796283771123456789\",\"suppressed\":null},"
	       "\"inode-enospc\":{\"count\":0,\"last_ns\":null,\"suppressed\":null},"
	       "\"fs-error\":{\"count\":null,\"last_ns\":null,\"suppressed\":null},\"shutdown\":{\"count\":null,\"last_ns\":null,\"suppressed\":null},\"data-lost\":{\"count\":null,\"last_ns\":null,\"suppressed\":null}}}\n"
	       "{\"event\":\"filesystem\",\"dev\":\"254:32\",\"major\":254,\"minor\":32,\"fstype\":\"xfs\",\"device\":\"vdd\","
	       "\"uuid\":\"" UUID_STR "\",\"label\":null,\"mountpoints\":null,\"sb_id\":32,\"counters\":{\"enospc\":{\"count\":12,\"last_ns\":null,\"suppressed\":null},"
	       "\"meta-enospc\":{\"count\":0,\"last_ns\":\"1796283771123456789\",\"suppressed\":null},"
	       "\"inode-enospc\":{\"count\":1,\"last_ns\":null,\"suppressed\":null},"
	       "\"fs-error\":{\"count\":null,\"last_ns\":null,\"suppressed\":null},\"shutdown\":{\"count\":null,\"last_ns\":null,\"suppressed\":null},\"data-lost\":{\"count\":null,\"last_ns\":null,\"suppressed\":null}}}\n",
	       "--list JSON lines");
	cap_free(&c);

	/* Filters: by type, then by warning (columns). */
	cap_init(&c, false);
	fsm_filter_add_fstype(&c.f, "ext4");
	fsm_filter_add_warning(&c.f, FS_MSG_WARN_META_ENOSPC);
	fsm_monitor_list(&c.m, &l);
	cap_finish(&c);
	is_str(c.out,
	       "DEVICE  MAJ:MIN  FSTYPE  UUID                                  SB_ID  LABEL  META-ENOSPC  MOUNTPOINT\n"
	       "vdb     254:16   ext4    " UUID_STR "  16     -                3  -\n",
	       "--list -T ext4 -w meta-enospc: one row, one counter column");
	cap_free(&c);

	cap_init(&c, true);
	fsm_filter_add_dev(&c.f, 0, 45);
	fsm_filter_add_warning(&c.f, FS_MSG_WARN_ENOSPC);
	fsm_monitor_list(&c.m, &l);
	cap_finish(&c);
	is_str(c.out,
	       "{\"event\":\"filesystem\",\"dev\":\"0:45\",\"major\":0,\"minor\":45,\"fstype\":\"btrfs\",\"device\":\"vdc\",\"uuid\":null,\"label\":null,\"mountpoints\":null,"
	       "\"sb_id\":45,\"counters\":{\"enospc\":{\"count\":12,\"last_ns\":\"1796283771123456790\",\"suppressed\":null}}}\n",
	       "--list --json -d 0:45 -w enospc");
	cap_free(&c);

	/* A newer kernel's warning type gets a column of its own. */
	raw_begin(&r, FS_MSG_CMD_FS_GET);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 7);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 0);
	raw_str(&r, FS_MSG_A_FSTYPE, "ext2");
	raw_str(&r, FS_MSG_A_DEVICE, "loop0");
	raw_nest_begin(&r, FS_MSG_A_COUNTER);
	raw_u32(&r, FS_MSG_A_COUNTER_WARNING, 7);
	raw_uint(&r, FS_MSG_A_COUNTER_COUNT, 123456);
	raw_nest_end(&r);
	raw_end(&r);
	fsm_fs_list_free(&l);
	fsm_fs_list_add(&l, r.buf, r.len, TEST_FAMILY, &err);
	raw_free(&r);
	cap_init(&c, false);
	fsm_monitor_list(&c.m, &l);
	cap_finish(&c);
	is_str(c.out,
	       "DEVICE  MAJ:MIN  FSTYPE  UUID  SB_ID  LABEL  ENOSPC  META-ENOSPC  INODE-ENOSPC  FS-ERROR  SHUTDOWN  DATA-LOST  UNKNOWN-7  MOUNTPOINT\n"
	       "loop0   7:0      ext2    -     -      -           0            0             0         0         0          0     123456  -\n",
	       "--list: unknown warning type 7 as an extra column");
	cap_free(&c);
	fsm_fs_list_free(&l);

	cap_init(&c, false);
	fsm_monitor_list(&c.m, &l);
	cap_finish(&c);
	is_str(c.out,
	       "DEVICE  MAJ:MIN  FSTYPE  UUID  SB_ID  LABEL  ENOSPC  META-ENOSPC  INODE-ENOSPC  FS-ERROR  SHUTDOWN  DATA-LOST  MOUNTPOINT\n",
	       "--list with no filesystems: header only");
	cap_free(&c);

	cap_init(&c, true);
	fsm_monitor_list(&c.m, &l);
	cap_finish(&c);
	is_str(c.out, "", "--list --json with no filesystems: nothing");
	cap_free(&c);
}

/* ---- filters ---------------------------------------------------------- */

static void test_filters(void)
{
	struct fsm_filter f;
	struct fsm_event ev = {
		.warning = 2, .major = 254, .minor = 16, .count = 1,
		.fstype = "ext4", .has_uuid = true,
	};
	uint8_t other[16] = { 1 };
	uint8_t u[16];
	uint32_t w;
	struct fsm_devnum d;

	memcpy(ev.uuid, test_uuid, 16);
	fsm_filter_init(&f);
	ok(fsm_filter_event(&f, &ev), "empty filter admits everything");
	fsm_filter_add_dev(&f, 8, 0);
	ok(!fsm_filter_event(&f, &ev), "device filter 8:0 rejects 254:16");
	fsm_filter_add_dev(&f, 254, 16);
	fsm_filter_add_dev(&f, 254, 16);
	ok(fsm_filter_event(&f, &ev) && f.ndevs == 2,
	   "repeated device filters OR together, duplicates dropped");
	fsm_filter_add_fstype(&f, "xfs");
	ok(!fsm_filter_event(&f, &ev), "device AND fstype xfs rejects ext4");
	fsm_filter_add_fstype(&f, "ext4");
	ok(fsm_filter_event(&f, &ev), "fstype xfs OR ext4 admits ext4");
	fsm_filter_add_uuid(&f, other);
	ok(!fsm_filter_event(&f, &ev), "other uuid rejects");
	fsm_filter_add_uuid(&f, test_uuid);
	ok(fsm_filter_event(&f, &ev), "matching uuid admits");
	fsm_filter_add_warning(&f, 1);
	ok(!fsm_filter_event(&f, &ev), "warning enospc rejects meta-enospc");
	fsm_filter_add_warning(&f, 2);
	ok(fsm_filter_event(&f, &ev), "warning enospc OR meta-enospc admits");
	ev.has_uuid = false;
	ok(!fsm_filter_event(&f, &ev), "uuid filter rejects an event without UUID");
	ev.has_uuid = true;
	ev.fstype = NULL;
	ok(!fsm_filter_event(&f, &ev), "fstype filter rejects an event without FSTYPE");
	fsm_filter_free(&f);

	ok(fsm_parse_warning("enospc", &w) == 0 && w == 1, "parse warning enospc");
	ok(fsm_parse_warning("META-ENOSPC", &w) == 0 && w == 2, "parse warning META-ENOSPC");
	ok(fsm_parse_warning("inode-enospc", &w) == 0 && w == 3, "parse warning inode-enospc");
	ok(fsm_parse_warning("9", &w) == 0 && w == 9, "parse warning 9");
	ok(fsm_parse_warning("unknown-12", &w) == 0 && w == 12, "parse warning unknown-12");
	ok(fsm_parse_warning("0", &w) < 0 && fsm_parse_warning("", &w) < 0 &&
	   fsm_parse_warning("enospcx", &w) < 0 && fsm_parse_warning("-1", &w) < 0 &&
	   fsm_parse_warning("4294967296", &w) < 0 && fsm_parse_warning("1 ", &w) < 0,
	   "bad warnings rejected");

	ok(fsm_parse_uuid(UUID_STR, u) == 0 && !memcmp(u, test_uuid, 16),
	   "parse canonical uuid");
	ok(fsm_parse_uuid("0C5F3A9E12344BCD8EF00123456789AB", u) == 0 &&
	   !memcmp(u, test_uuid, 16), "parse undashed upper-case uuid");
	ok(fsm_parse_uuid("0c5f3a9e-1234-4bcd-8ef0-0123456789a", u) < 0 &&
	   fsm_parse_uuid("0c5f3a9e-1234-4bcd-8ef0x0123456789ab", u) < 0 &&
	   fsm_parse_uuid("0c5f3a9e-1234-4bcd-8ef0-0123456789ag", u) < 0 &&
	   fsm_parse_uuid("0c5f3a9e1-234-4bcd-8ef0-0123456789ab", u) < 0 &&
	   fsm_parse_uuid("", u) < 0, "bad uuids rejected");

	ok(fsm_parse_devnum("254:16", &d) == 0 && d.major == 254 && d.minor == 16,
	   "parse 254:16");
	ok(fsm_parse_devnum("0:4294967295", &d) == 0 && d.minor == UINT32_MAX,
	   "parse 0:4294967295");
	ok(fsm_parse_devnum("8:", &d) < 0 && fsm_parse_devnum(":1", &d) < 0 &&
	   fsm_parse_devnum("8:1x", &d) < 0 && fsm_parse_devnum("4294967296:0", &d) < 0 &&
	   fsm_parse_devnum("/dev/sda", &d) < 0 && fsm_parse_devnum("8:-1", &d) < 0,
	   "bad MAJ:MIN rejected");
}

static void test_mountinfo(void)
{
	char l1[] = "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n";
	char l2[] = "101 29 0:45 /@home /home\\040dir rw shared:7 master:2 - btrfs /dev/vdc rw\n";
	char l3[] = "22 1 0:21 / /proc rw - proc proc rw";
	char bad1[] = "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 ext3 /dev/root rw\n";
	char bad2[] = "x 35 98:0 / / rw - ext4 /dev/a rw\n";
	char bad3[] = "36 35 98-0 / / rw - ext4 /dev/a rw\n";
	char bad4[] = "36 35 98:0 / /\n";
	struct fsm_mount m;

	ok(fsm_mountinfo_parse_line(l1, &m) == 0 && m.id == 36 && m.major == 98 &&
	   m.minor == 0 && !strcmp(m.mountpoint, "/mnt2") && !strcmp(m.fstype, "ext3") &&
	   !strcmp(m.source, "/dev/root"), "mountinfo: the proc(5) example");
	ok(fsm_mountinfo_parse_line(l2, &m) == 0 && m.id == 101 && m.major == 0 &&
	   m.minor == 45 && !strcmp(m.mountpoint, "/home dir") &&
	   !strcmp(m.source, "/dev/vdc"), "mountinfo: two optional fields, \\040 unescaped");
	ok(fsm_mountinfo_parse_line(l3, &m) == 0 && m.id == 22 && !strcmp(m.source, "proc"),
	   "mountinfo: no optional fields, no newline");
	ok(fsm_mountinfo_parse_line(bad1, &m) < 0, "mountinfo: no separator rejected");
	ok(fsm_mountinfo_parse_line(bad2, &m) < 0, "mountinfo: bad id rejected");
	ok(fsm_mountinfo_parse_line(bad3, &m) < 0, "mountinfo: bad maj:min rejected");
	ok(fsm_mountinfo_parse_line(bad4, &m) < 0, "mountinfo: short line rejected");
}

static void test_resolve(void)
{
	char path[] = "/tmp/fsmsg-unit-XXXXXX";
	struct fsm_filter f;
	struct fsm_error err;
	FILE *fp;
	int fd;

	fd = mkstemp(path);
	fp = fdopen(fd, "w");
	fputs("20 1 254:1 / / rw - ext4 /dev/vda rw\n"
	      "30 20 0:45 /@ /mnt/a rw - btrfs /dev/vdc rw\n"
	      "31 20 0:45 /@sub /mnt/b rw - btrfs /dev/vdc rw\n"
	      "32 20 0:46 / /mnt/c rw - btrfs /dev/vdd rw\n"
	      "33 20 0:47 / /mnt/d\\040x rw - btrfs /dev/disk\\040x rw\n",
	      fp);
	fclose(fp);

	fsm_filter_init(&f);
	ok(fsm_filter_add_blockdev(&f, "/dev/vdc", (254ULL << 8) | 32, path) == 0 &&
	   f.ndevs == 2 && f.devs[0].major == 254 && f.devs[0].minor == 32 &&
	   f.devs[1].major == 0 && f.devs[1].minor == 45,
	   "block device: its own number plus the btrfs anonymous 0:45, once");
	fsm_filter_free(&f);
	ok(fsm_filter_add_blockdev(&f, "/dev/disk x", 0x0801, path) == 0 &&
	   f.ndevs == 2 && f.devs[1].minor == 47,
	   "block device: escaped mount source matched");
	fsm_filter_free(&f);
	ok(fsm_filter_add_blockdev(&f, "/dev/vdc", 0x0801, "/nonexistent") == 0 &&
	   f.ndevs == 1, "block device without mountinfo: its own number");
	fsm_filter_free(&f);
	unlink(path);

	ok(fsm_resolve_device(&f, "254:16", "/nonexistent", &err) == 0 && f.ndevs == 1 &&
	   f.devs[0].major == 254 && f.devs[0].minor == 16, "resolve MAJ:MIN literally");
	fsm_filter_free(&f);
	ok(fsm_resolve_device(&f, "/nonexistent/x", "/proc/self/mountinfo", &err) < 0,
	   "resolve a missing path: error");
	is_str(err.msg, "cannot resolve device '/nonexistent/x': No such file or directory",
	       "missing path: reason");

	/* Any path on a filesystem: the mount's major:minor from mountinfo. */
	{
		struct stat st;
		char want[64];
		char *line = NULL;
		size_t cap = 0;
		struct statx stx;
		bool found = false;

		fp = fopen("/proc/self/mountinfo", "r");
		statx(AT_FDCWD, "/proc/self", 0, STATX_MNT_ID, &stx);
		while (fp && getline(&line, &cap, fp) > 0) {
			struct fsm_mount m;

			if (fsm_mountinfo_parse_line(line, &m) == 0 &&
			    m.id == stx.stx_mnt_id) {
				snprintf(want, sizeof(want), "%u:%u", m.major, m.minor);
				found = true;
			}
		}
		free(line);
		if (fp)
			fclose(fp);
		ok(found && fsm_resolve_device(&f, "/proc/self", "/proc/self/mountinfo",
					       &err) == 0 && f.ndevs == 1 &&
		   stat("/proc/self", &st) == 0,
		   "resolve a path through its mount id");
		if (f.ndevs == 1) {
			char got[64];

			snprintf(got, sizeof(got), "%u:%u", f.devs[0].major, f.devs[0].minor);
			is_str(got, found ? want : "?", "path resolves to its mount's major:minor");
		} else {
			ok(false, "path resolves to its mount's major:minor");
		}
		fsm_filter_free(&f);
	}

	/*
	 * A chroot or a container: mountinfo lacks the mount the path is on
	 * (issue 16: "mount 26 is not in /proc/self/mountinfo"), or there is
	 * no mountinfo at all. Then the path's st_dev, the superblock's
	 * device for all but btrfs.
	 */
	{
		char mi[] = "/tmp/fsmsg-unit-XXXXXX", want[64], got[64] = "?";
		struct stat st;
		struct statfs sfs;
		bool btrfs;

		fd = mkstemp(mi);
		fp = fdopen(fd, "w");
		fputs("20 1 254:1 / / rw - ext4 /dev/vda rw\n", fp);	/* not /proc */
		fclose(fp);
		stat("/proc/self", &st);
		snprintf(want, sizeof(want), "%u:%u", major(st.st_dev), minor(st.st_dev));
		ok(fsm_resolve_device(&f, "/proc/self", mi, &err) == 0 && f.ndevs == 1,
		   "path whose mount is not in mountinfo: resolved");
		if (f.ndevs == 1)
			snprintf(got, sizeof(got), "%u:%u", f.devs[0].major, f.devs[0].minor);
		is_str(got, want, "mount not in mountinfo: the path's st_dev");
		fsm_filter_free(&f);
		ok(fsm_resolve_device(&f, "/proc/self", "/nonexistent", &err) == 0 &&
		   f.ndevs == 1 && f.devs[0].major == major(st.st_dev) &&
		   f.devs[0].minor == minor(st.st_dev),
		   "path without mountinfo: the path's st_dev");
		fsm_filter_free(&f);

		/* The file itself, wherever /tmp is: btrfs says why not. */
		stat(mi, &st);
		btrfs = statfs(mi, &sfs) == 0 && sfs.f_type == BTRFS_SUPER_MAGIC;
		ok(btrfs ? fsm_resolve_device(&f, mi, mi, &err) < 0 &&
			   strstr(err.msg, "on btrfs the device number of a path")
			 : fsm_resolve_device(&f, mi, mi, &err) == 0 && f.ndevs == 1 &&
			   f.devs[0].major == major(st.st_dev) &&
			   f.devs[0].minor == minor(st.st_dev),
		   "a file in /tmp (%s), its mount not in mountinfo: %s",
		   btrfs ? "btrfs" : "not btrfs", btrfs ? "error" : "its st_dev");
		fsm_filter_free(&f);
		unlink(mi);
	}
	ok(fsm_resolve_stdev(&f, "/srv", makedev(254, 3), EXT4_SUPER_MAGIC,
			     "mount 26 is not in /proc/self/mountinfo", &err) == 0 &&
	   f.ndevs == 1 && f.devs[0].major == 254 && f.devs[0].minor == 3,
	   "fallback on ext4: st_dev");
	fsm_filter_free(&f);
	ok(fsm_resolve_stdev(&f, "/srv", makedev(0, 52), XFS_SUPER_MAGIC,
			     "mount 26 is not in /proc/self/mountinfo", &err) == 0 &&
	   f.ndevs == 1 && f.devs[0].minor == 52, "fallback on XFS: st_dev");
	fsm_filter_free(&f);
	ok(fsm_resolve_stdev(&f, "/srv", makedev(0, 52), BTRFS_SUPER_MAGIC,
			     "mount 26 is not in /proc/self/mountinfo", &err) < 0 &&
	   f.ndevs == 0, "fallback on btrfs: an error, no filter");
	is_str(err.msg, "cannot resolve device '/srv': mount 26 is not in /proc/self/mountinfo, and on btrfs the device number of a path (0:52) is its subvolume's, not the filesystem's: give the filesystem's MAJ:MIN, as fsmsg --list shows it",
	       "fallback on btrfs: says why");
	fsm_filter_free(&f);
}

/* ---- monitor: the whole pipeline ------------------------------------- */

static void feed(struct capture *c, const struct raw *r)
{
	fsm_monitor_message(&c->m, r->buf, r->len, RECV);
}

static void feed_event(struct capture *c, uint32_t warning, uint64_t count,
		       uint64_t suppressed)
{
	struct raw r = { 0 };

	raw_full_event(&r, warning, count, suppressed, "alloc_test");
	feed(c, &r);
	raw_free(&r);
}

static void test_monitor_text(void)
{
	struct fsm_fs_list l = { 0 };
	struct capture c;
	struct raw r = { 0 };

	make_rows(&l);
	cap_init(&c, false);
	fsm_monitor_seed(&c.m, &l);
	feed_event(&c, 2, 3, 0);	/* queued before the seed: counted */
	feed_event(&c, 2, 4, 0);
	feed_event(&c, 2, 9, 1);	/* 3 missed */
	raw_begin(&r, FS_MSG_CMD_WARNING);	/* invalid: skipped */
	raw_u32(&r, FS_MSG_A_WARNING, 1);
	raw_end(&r);
	feed(&c, &r);
	raw_free(&r);
	feed_event(&c, 1, 1, 0);
	cap_finish(&c);

	is_str(c.out,
	       TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for metadata, uid 1000, pid 123 (alloc_test), count 3\n"
	       TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for metadata, uid 1000, pid 123 (alloc_test), count 4\n"
	       TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for metadata, uid 1000, pid 123 (alloc_test), count 9 (1 suppressed)\n"
	       TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for data, uid 1000, pid 123 (alloc_test), count 1\n",
	       "monitor text: every event on stdout, the invalid one skipped");
	is_str(c.err,
	       "fsmsg: missed 3 meta-enospc warnings on ext4 vdb (254:16) mnt -\n"
	       "fsmsg: skipped an invalid FS_MSG message: missing required attributes DEV_MAJOR (2), DEV_MINOR (3), COUNT (11)\n",
	       "monitor text: gap and invalid message reported on stderr");
	is_str(fsm_buf_str(&c.log),
	       "4|" TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for metadata, uid 1000, pid 123 (alloc_test), count 3\n"
	       "4|" TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for metadata, uid 1000, pid 123 (alloc_test), count 4\n"
	       "3|missed 3 meta-enospc warnings on ext4 vdb (254:16) mnt -\n"
	       "4|" TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for metadata, uid 1000, pid 123 (alloc_test), count 9 (1 suppressed)\n"
	       "4|skipped an invalid FS_MSG message: missing required attributes DEV_MAJOR (2), DEV_MINOR (3), COUNT (11)\n"
	       "4|" TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for data, uid 1000, pid 123 (alloc_test), count 1\n",
	       "monitor syslog: LOG_ERR for missed, LOG_WARNING for severity warning");
	ok(c.m.events == 4 && c.m.invalid == 1 && c.m.missed == 3,
	   "monitor counters: 4 events, 1 invalid, 3 missed");
	cap_free(&c);
	fsm_fs_list_free(&l);
}

static void test_monitor_json_overrun(void)
{
	struct fsm_fs_list l = { 0 }, later = { 0 };
	struct capture c;
	struct raw r = { 0 };
	struct fsm_error err;
	static const uint64_t counts_later[3] = { 0, 20, 2 };

	make_rows(&l);
	cap_init(&c, true);
	fsm_monitor_seed(&c.m, &l);
	feed_event(&c, 2, 5, 0);	/* 4 missed: seed was 3 */
	fsm_monitor_overrun(&c.m);
	raw_fs_row(&r, 254, 16, "ext4", "vdb", test_uuid, counts_later, lasts_a);
	fsm_fs_list_add(&later, r.buf, r.len, TEST_FAMILY, &err);
	raw_free(&r);
	fsm_monitor_resync(&c.m, &later, RECV);
	feed_event(&c, 2, 21, 0);
	cap_finish(&c);

	is_str(c.out,
	       "{\"time\":\"" JRECV_STR "\",\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\","
	       "\"uuid\":\"" UUID_STR "\",\"mountpoints\":null,\"warning\":\"meta-enospc\",\"missed\":1}\n"
	       "{\"time\":\"" JTS_STR "\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771123456789\",\"warning\":\"meta-enospc\",\"warning_id\":2,\"severity\":\"warning\",\"severity_id\":2,"
	       "\"dev\":\"254:16\",\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"" UUID_STR "\",\"label\":null,\"mountpoints\":null,"
	       "\"sb_id\":7,\"uid\":1000,\"pid\":123,\"comm\":\"alloc_test\",\"count\":5,\"suppressed\":0" NO_DETAILS "}\n"
	       "{\"time\":\"" JRECV_STR "\",\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\","
	       "\"uuid\":\"" UUID_STR "\",\"mountpoints\":null,\"warning\":\"meta-enospc\",\"missed\":15}\n"
	       "{\"time\":\"" JRECV_STR "\",\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\","
	       "\"uuid\":\"" UUID_STR "\",\"mountpoints\":null,\"warning\":\"inode-enospc\",\"missed\":2}\n"
	       "{\"time\":\"" JTS_STR "\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771123456789\",\"warning\":\"meta-enospc\",\"warning_id\":2,\"severity\":\"warning\",\"severity_id\":2,"
	       "\"dev\":\"254:16\",\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"" UUID_STR "\",\"label\":null,\"mountpoints\":null,"
	       "\"sb_id\":7,\"uid\":1000,\"pid\":123,\"comm\":\"alloc_test\",\"count\":21,\"suppressed\":0" NO_DETAILS "}\n",
	       "monitor JSON: missed lines (gap, then resync per type) and events");
	is_str(c.err,
	       "fsmsg: missed 1 meta-enospc warnings on ext4 vdb (254:16) mnt -\n"
	       "fsmsg: overrun: events were dropped because the socket receive buffer was full; counting the missed warnings from the kernel's counters\n"
	       "fsmsg: missed 15 meta-enospc warnings on ext4 vdb (254:16) mnt -\n"
	       "fsmsg: missed 2 inode-enospc warnings on ext4 vdb (254:16) mnt -\n",
	       "monitor JSON: overrun and missed lines also on stderr");
	has_str(fsm_buf_str(&c.log), "3|overrun: events were dropped",
		"overrun logged at LOG_ERR");
	has_str(fsm_buf_str(&c.log),
		"3|{\"time\":\"" JRECV_STR "\",\"event\":\"missed\",\"dev\":\"254:16\"",
		"JSON mode: missed reports go to syslog as JSON, LOG_ERR");
	has_str(fsm_buf_str(&c.log),
		"4|{\"time\":\"" JTS_STR "\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771123456789\",\"warning\":\"meta-enospc\"",
		"JSON mode: events go to syslog as JSON, at their severity's priority");
	cap_free(&c);
	fsm_fs_list_free(&l);
	fsm_fs_list_free(&later);
}

static void test_monitor_filter_count(void)
{
	struct fsm_fs_list l = { 0 };
	struct capture c;
	struct raw r = { 0 };

	make_rows(&l);
	cap_init(&c, false);
	fsm_filter_add_dev(&c.f, 0, 45);
	c.m.max_events = 2;
	fsm_monitor_seed(&c.m, &l);
	feed_event(&c, 2, 10, 0);	/* 254:16: filtered out, its gap too */
	build_minimal(&r, 1);		/* 8:3: filtered out */
	feed(&c, &r);
	raw_free(&r);
	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_u32(&r, FS_MSG_A_WARNING, 1);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 0);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 45);
	raw_uint(&r, FS_MSG_A_COUNT, 13);
	raw_end(&r);
	feed(&c, &r);
	raw_free(&r);
	ok(!c.m.done, "one matching event of two: not done");
	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_u32(&r, FS_MSG_A_WARNING, 1);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 0);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 45);
	raw_uint(&r, FS_MSG_A_COUNT, 15);
	raw_end(&r);
	feed(&c, &r);
	raw_free(&r);
	ok(c.m.done && c.m.events == 2, "--count 2 reached after the second match");
	cap_finish(&c);
	is_str(c.out,
	       RECV_STR " 0:45 - - uuid - mnt -: warning: no space left for data, count 13\n"
	       RECV_STR " 0:45 - - uuid - mnt -: warning: no space left for data, count 15\n",
	       "device filter: only 0:45 events");
	is_str(c.err, "fsmsg: missed 1 enospc warnings on - - (0:45) mnt -\n",
	       "device filter: only 0:45's gap (seed 12, then 13, then 15) reported");
	cap_free(&c);
	fsm_fs_list_free(&l);
}


/* ---- dump replies: SUPPRESSED ------------------------------------------ */

/* Messages not from the kernel (port id not 0): dropped, counted, said. */
static void test_rejected(void)
{
	const uint64_t t0 = 1796283771000000000ULL, min = FSM_REJECTED_REPORT_NS;
	struct fsm_metrics met;
	struct capture c;
	struct raw r = { 0 };
	struct fsm_buf b;

	cap_init(&c, false);
	fsm_metrics_init(&met, RECV, 16);
	c.m.metrics = &met;
	ok(fsm_monitor_from_kernel(&c.m, 0, t0) && c.m.rejected == 0 &&
	   !met.changed, "port id 0: the kernel's, accepted, nothing counted");
	ok(!fsm_monitor_from_kernel(&c.m, 4242, t0) && c.m.rejected == 1 &&
	   met.rejected == 1 && met.changed, "port id 4242: rejected, counted");
	ok(!fsm_monitor_from_kernel(&c.m, 4242, t0 + 1) &&
	   !fsm_monitor_from_kernel(&c.m, 77, t0 + min - 1),
	   "two more within the minute: rejected");
	fsm_monitor_rejected_flush(&c.m);
	fsm_monitor_rejected_flush(&c.m);	/* nothing left: silent */
	ok(!fsm_monitor_from_kernel(&c.m, 9, t0 + min + 1000) &&
	   c.m.rejected == 4 && met.rejected == 4,
	   "the fourth, a minute after the first report: said at once");
	ok(!fsm_monitor_from_kernel(&c.m, 9, t0 + 2 * min + 1000) &&
	   !fsm_monitor_from_kernel(&c.m, 9, t0 + 2 * min + 2000),
	   "a minute after the last report: a tally at once, the next held");
	fsm_monitor_rejected_flush(&c.m);
	cap_finish(&c);
	is_str(c.err,
	       "fsmsg: ignored 1 message not sent by the kernel (port id 4242): only the kernel's, from port id 0, are FS_MSG warnings\n"
	       "fsmsg: ignored 2 more messages not sent by the kernel (the last from port id 77), 3 in all\n"
	       "fsmsg: ignored 1 more message not sent by the kernel (the last from port id 9), 4 in all\n"
	       "fsmsg: ignored 1 more message not sent by the kernel (the last from port id 9), 5 in all\n"
	       "fsmsg: ignored 1 more message not sent by the kernel (the last from port id 9), 6 in all\n",
	       "rejected: said at once, then at most once a minute and at exit, with the port id");
	has_str(fsm_buf_str(&c.log), "4|ignored 1 message not sent by the kernel (port id 4242)",
		"rejected: syslog at LOG_WARNING");
	ok(c.m.events == 0 && c.m.invalid == 0 && !c.out[0],
	   "rejected: no event, nothing on stdout");
	fsm_buf_init(&b);
	fsm_metrics_render(&met, &b);
	has_str(fsm_buf_str(&b), "# TYPE fsmsg_rejected_messages_total counter\n"
		"fsmsg_rejected_messages_total 6\n", "metrics: fsmsg_rejected_messages_total");
	fsm_buf_free(&b);
	fsm_metrics_free(&met);
	cap_free(&c);

	/* What main.c does: a forged warning never reaches the accounting,
	 * whatever its nlmsg_pid (0 here, as a forger would set it). */
	cap_init(&c, false);
	raw_full_event(&r, 1, 1, 0, "ok");
	if (fsm_monitor_from_kernel(&c.m, 0, t0))
		fsm_monitor_message(&c.m, r.buf, r.len, t0);
	raw_free(&r);
	raw_full_event(&r, 1, 100, 0, "forged");
	if (fsm_monitor_from_kernel(&c.m, 31337, t0))
		fsm_monitor_message(&c.m, r.buf, r.len, t0);
	raw_free(&r);
	raw_full_event(&r, 1, 2, 0, "ok");
	if (fsm_monitor_from_kernel(&c.m, 0, t0))
		fsm_monitor_message(&c.m, r.buf, r.len, t0);
	raw_free(&r);
	cap_finish(&c);
	if (!ok(c.m.events == 2 && c.m.missed == 0 && !strstr(c.out, "forged") &&
		!strstr(c.err, "missed"),
		"a forged count 100 between 1 and 2: not shown, no missed warnings")) {
		diag_str("out", c.out);
		diag_str("err", c.err);
	}
	cap_free(&c);
}

static void test_dump_suppressed(void)
{
	static const uint64_t supp[3] = { 0, 7, 1 };
	struct raw r = { 0 };
	struct fsm_fs fs;
	struct fsm_error err;

	raw_fs_row_supp(&r, 254, 16, "ext4", "vdb", test_uuid, counts_a, lasts_a,
			supp);
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_OK &&
	   fsm_fs_counter(&fs, 1)->suppressed == 0 &&
	   fsm_fs_counter(&fs, 2)->suppressed == 7 &&
	   fsm_fs_counter(&fs, 3)->suppressed == 1,
	   "dump reply: COUNTER_SUPPRESSED read per counter");
	raw_free(&r);

	raw_begin(&r, FS_MSG_CMD_FS_GET);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 1);
	raw_nest_begin(&r, FS_MSG_A_COUNTER);
	raw_u32(&r, FS_MSG_A_COUNTER_WARNING, 1);
	raw_uint(&r, FS_MSG_A_COUNTER_COUNT, 3);
	raw_attr(&r, FS_MSG_A_COUNTER_SUPPRESSED, "\1\0\0\0\0\0", 6);
	raw_nest_end(&r);
	raw_end(&r);
	ok(fsm_fs_parse(r.buf, r.len, TEST_FAMILY, &fs, &err) == FSM_PARSE_INVALID,
	   "COUNTER_SUPPRESSED of 6 bytes: invalid");
	is_str(err.msg,
	       "attribute COUNTER (13): attribute COUNTER_SUPPRESSED (4) has invalid length 6: an unsigned integer is 4 or 8 bytes",
	       "COUNTER_SUPPRESSED of 6 bytes: reason");
	raw_free(&r);
}

/* ---- the exposition format checker itself ------------------------------ */

static void test_promcheck(void)
{
	static const char good[] =
		"# HELP a_total A.\n# TYPE a_total counter\n"
		"a_total{x=\"1\",y=\"q\\\"\\\\\\n\xc3\xa9\"} 1\na_total 2\n"
		"# HELP b B \\\\ \\n.\n# TYPE b gauge\nb -1.5e3\n";
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "# HELP a_total A.\n# TYPE a_total counter\na_total 1", "no newline at the end" },
		{ "# TYPE a_total counter\na_total 1\n", "no HELP" },
		{ "# HELP a_total A.\na_total 1\n", "no TYPE" },
		{ "# HELP a A.\n# TYPE a counter\na 1\n", "counter without _total" },
		{ "# HELP a_total A.\n# TYPE a_total counter\na_total -1\n", "negative counter" },
		{ "# HELP a A.\n# TYPE a gauge\na 1 1700000000000\n", "timestamp" },
		{ "# HELP a A.\n# TYPE a gauge\na{x=\"\\t\"} 1\n", "bad escape" },
		{ "# HELP a A.\n# TYPE a gauge\na{x=\"\xff\"} 1\n", "invalid UTF-8" },
		{ "# HELP a A.\n# TYPE a gauge\na{x=\"1\"} 1\na{x=\"1\"} 2\n", "series twice" },
		{ "# HELP a A.\n# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n", "label twice" },
		{ "# HELP a A.\n# TYPE a gauge\n# HELP b B.\n# TYPE b gauge\nb 1\na 1\n", "family not contiguous" },
		{ "# HELP a A.\n# TYPE a gauge\na 1\n\n", "empty line" },
		{ "# HELP a A.\n# TYPE a gauge\na{x=\"1} 1\n", "unterminated value" },
		{ "# HELP a A.\n# TYPE a histogram\na 1\n", "other type" },
		{ "# HELP a A.\n# TYPE a gauge\na 1x\n", "bad value" },
		{ "# HELP a A.\n# TYPE a gauge\n# just a comment\na 1\n", "stray comment" },
	};
	struct promcheck pc;

	ok(promcheck(&pc, good) == 0 && pc.samples == 3 && pc.families == 2,
	   "promcheck: a valid file passes");
	if (pc.err[0])
		printf("#   %s\n", pc.err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(promcheck(&pc, bad[i].text) < 0, "promcheck rejects: %s (%s)",
		   bad[i].why, pc.err);
}

/* ---- metrics ---------------------------------------------------------- */

static struct fsm_labels lab(uint32_t major, uint32_t minor, uint32_t warning,
			     const char *fstype, const char *device, bool uuid)
{
	struct fsm_labels l = {
		.major = major, .minor = minor, .warning = warning,
		.fstype = fstype, .device = device, .has_uuid = uuid,
	};

	memcpy(l.uuid, test_uuid, sizeof(l.uuid));
	return l;
}

/* Four series, observed out of order: two filesystems, one unknown type. */
static void observe_four(struct fsm_metrics *m)
{
	struct fsm_labels l;

	l = lab(254, 16, 2, "ext4", "vdb", true);
	fsm_metrics_observe(m, &l, 3, TS);
	l = lab(254, 16, 1, "ext4", "vdb", true);
	fsm_metrics_observe(m, &l, 0, 0);
	l = lab(0, 45, 1, "btrfs", "vdc", false);
	fsm_metrics_observe(m, &l, 12, TS + 1);
	l = lab(254, 16, 9, "ext4", "vdb", true);
	fsm_metrics_observe(m, &l, 1, 1000000000ULL);
}

static bool check_exposition(const char *text, const char *name)
{
	struct promcheck pc;

	if (!ok(promcheck(&pc, text) == 0, "%s: strict exposition format", name)) {
		printf("#   %s\n", pc.err);
		return false;
	}
	return true;
}

#define HELP_WARNINGS \
	"# HELP fsmsg_warnings_total Warnings (out of space, errors, shutdowns) the kernel counted on the filesystem since it was mounted, whether fsmsg received them as messages or not.\n" \
	"# TYPE fsmsg_warnings_total counter\n"
#define HELP_LAST \
	"# HELP fsmsg_last_warning_timestamp_seconds Time of the latest such warning in seconds since the epoch; no series until there was one.\n" \
	"# TYPE fsmsg_last_warning_timestamp_seconds gauge\n"
#define HELP_TAIL(missed, overruns) HELP_TAIL_R(missed, overruns, 0)
#define HELP_TAIL_R(missed, overruns, rejected) \
	"# HELP fsmsg_missed_warnings_total Warnings fsmsg knows it did not receive as messages (socket overruns, gaps in the counts).\n" \
	"# TYPE fsmsg_missed_warnings_total counter\n" \
	"fsmsg_missed_warnings_total " #missed "\n" \
	"# HELP fsmsg_overruns_total Times the kernel dropped messages because fsmsg's socket receive buffer was full.\n" \
	"# TYPE fsmsg_overruns_total counter\n" \
	"fsmsg_overruns_total " #overruns "\n" \
	"# HELP fsmsg_rejected_messages_total Messages on the FS_MSG sockets that the kernel did not send (netlink port id not 0), ignored.\n" \
	"# TYPE fsmsg_rejected_messages_total counter\n" \
	"fsmsg_rejected_messages_total " #rejected "\n" \
	"# HELP fsmsg_start_time_seconds Start time of the fsmsg process in seconds since the epoch.\n" \
	"# TYPE fsmsg_start_time_seconds gauge\n" \
	"fsmsg_start_time_seconds 1700000000.000000001\n"
#define L_VDB "dev=\"254:16\",device=\"vdb\",fstype=\"ext4\",uuid=\"" UUID_STR "\""
#define L_VDC "dev=\"0:45\",device=\"vdc\",fstype=\"btrfs\",uuid=\"\""

static void test_metrics_render(void)
{
	struct fsm_metrics m;
	struct fsm_buf b;

	fsm_metrics_init(&m, RECV, 16);
	fsm_buf_init(&b);
	fsm_metrics_render(&m, &b);
	is_str(fsm_buf_str(&b), HELP_WARNINGS HELP_LAST HELP_TAIL(0, 0),
	       "metrics: empty table, every family still has HELP and TYPE");
	check_exposition(fsm_buf_str(&b), "metrics: empty table");

	/* Inserted out of order; rendered by device number and type. */
	observe_four(&m);
	m.missed = 4;
	m.overruns = 1;
	fsm_buf_reset(&b);
	fsm_metrics_render(&m, &b);
	is_str(fsm_buf_str(&b),
	       HELP_WARNINGS
	       "fsmsg_warnings_total{" L_VDC ",warning=\"enospc\"} 12\n"
	       "fsmsg_warnings_total{" L_VDB ",warning=\"enospc\"} 0\n"
	       "fsmsg_warnings_total{" L_VDB ",warning=\"meta-enospc\"} 3\n"
	       "fsmsg_warnings_total{" L_VDB ",warning=\"unknown-9\"} 1\n"
	       HELP_LAST
	       "fsmsg_last_warning_timestamp_seconds{" L_VDC ",warning=\"enospc\"} 1796283771.123456790\n"
	       "fsmsg_last_warning_timestamp_seconds{" L_VDB ",warning=\"meta-enospc\"} 1796283771.123456789\n"
	       "fsmsg_last_warning_timestamp_seconds{" L_VDB ",warning=\"unknown-9\"} 1.000000000\n"
	       HELP_TAIL(4, 1),
	       "metrics: the whole file, byte for byte (no timestamp for a count of 0)");
	check_exposition(fsm_buf_str(&b), "metrics: small case");
	fsm_buf_free(&b);
	fsm_metrics_free(&m);
}

static void test_metrics_observe(void)
{
	struct fsm_metrics m;
	struct fsm_labels l = lab(254, 16, 1, "ext4", "vdb", true), other;
	const struct fsm_series *s;
	uint64_t sec = 1000000000ULL;

	fsm_metrics_init(&m, RECV, 3);
	ok(fsm_metrics_observe(&m, &l, 10, TS) == 0 && m.changed && m.n == 1,
	   "observe: a new series");
	m.changed = false;
	fsm_metrics_observe(&m, &l, 8, TS - 5);
	s = fsm_metrics_find(&m, &l);
	ok(s && s->count == 10 && s->last_ns == TS && !m.changed,
	   "observe: an older, lower count (queued message) changes nothing");
	fsm_metrics_observe(&m, &l, 9, TS + 50000000ULL);
	s = fsm_metrics_find(&m, &l);
	ok(s && s->count == 10 && s->last_ns == TS + 50000000ULL,
	   "observe: a lower count within the clock margin keeps the count");
	fsm_metrics_observe(&m, &l, 15, TS + sec);
	s = fsm_metrics_find(&m, &l);
	ok(s && s->count == 15 && s->last_ns == TS + sec && m.changed,
	   "observe: a higher count raises the counter and the time");
	fsm_metrics_observe(&m, &l, 2, TS + 100 * sec);
	s = fsm_metrics_find(&m, &l);
	ok(s && s->count == 2 && s->last_ns == TS + 100 * sec,
	   "observe: a lower count with a clearly newer time is a remount (reset)");
	fsm_metrics_observe(&m, &l, 1, 0);
	s = fsm_metrics_find(&m, &l);
	ok(s && s->count == 2, "observe: a lower count without time: no reset");

	/* Another filesystem on the same device number: its own series. */
	other = lab(254, 16, 1, "xfs", "vdb", false);
	fsm_metrics_observe(&m, &other, 1, TS + 200 * sec);
	ok(m.n == 2 && fsm_metrics_find(&m, &l)->count == 2 &&
	   fsm_metrics_find(&m, &other)->count == 1,
	   "observe: other labels on the same device: a series of its own, the old one kept");

	/* NULL and "" render the same: one series. */
	other = lab(254, 16, 1, NULL, NULL, false);
	fsm_metrics_observe(&m, &other, 4, 0);
	other = lab(254, 16, 1, "", "", false);
	fsm_metrics_observe(&m, &other, 5, 0);
	ok(m.n == 3 && fsm_metrics_find(&m, &other)->count == 5,
	   "observe: absent and empty strings are the same label value");

	other = lab(8, 1, 1, "ext4", "sda1", false);
	ok(fsm_metrics_observe(&m, &other, 1, 0) < 0 && m.untracked == 1 && m.n == 3,
	   "observe: beyond the bound: not tracked, counted");
	fsm_metrics_free(&m);
}

static void test_metrics_escaping(void)
{
	struct fsm_metrics m;
	struct fsm_labels l;
	struct fsm_buf b;

	fsm_buf_init(&b);
	fsm_prom_label_value(&b, "a\\b\"c\nd\te\x01" "f\x7fg\xc3\xa9h\xffi");
	is_str(fsm_buf_str(&b), "a\\\\b\\\"c\\nd\\\\x09e\\\\x01f\\\\x7fg\xc3\xa9h\\\\xffi",
	       "label value: \\ \" newline escaped, controls and invalid bytes as \\xNN");
	fsm_buf_reset(&b);

	fsm_metrics_init(&m, RECV, 16);
	l = lab(7, 0, 1, "we\"ird", "dev\\ice\nname\xfe", false);
	fsm_metrics_observe(&m, &l, 1, TS);
	fsm_metrics_render(&m, &b);
	has_str(fsm_buf_str(&b),
		"fsmsg_warnings_total{dev=\"7:0\",device=\"dev\\\\ice\\nname\\\\xfe\",fstype=\"we\\\"ird\",uuid=\"\",warning=\"enospc\"} 1\n",
		"metrics: odd names escaped in the labels");
	check_exposition(fsm_buf_str(&b), "metrics: odd names");
	fsm_buf_free(&b);
	fsm_metrics_free(&m);
}

/* The monitor feeds the metrics: seed, events, gaps, overrun, refresh. */
static void test_metrics_monitor(void)
{
	static const uint64_t counts_later[3] = { 0, 20, 2 };
	struct fsm_fs_list l = { 0 }, later = { 0 };
	struct fsm_metrics met;
	struct fsm_labels key;
	struct fsm_error err;
	struct capture c;
	struct raw r = { 0 };
	struct fsm_buf b;

	make_rows(&l);
	cap_init(&c, false);
	fsm_metrics_init(&met, RECV, 64);
	c.m.metrics = &met;
	fsm_filter_add_fstype(&c.f, "ext4");
	fsm_filter_add_fstype(&c.f, "btrfs");
	fsm_monitor_seed(&c.m, &l);
	ok(met.n == 6, "seed: every type of every filtered filesystem, xfs left out");
	key = lab(254, 16, 1, "ext4", "vdb", true);
	ok(fsm_metrics_find(&met, &key) && fsm_metrics_find(&met, &key)->count == 0,
	   "seed: a type without warnings is there with 0");

	feed_event(&c, 2, 5, 0);	/* seed 3: 1 missed */
	key.warning = 2;
	is_u64(fsm_metrics_find(&met, &key)->count, 5, "event: the counter follows COUNT");
	feed_event(&c, 2, 4, 0);	/* queued: no change */
	is_u64(fsm_metrics_find(&met, &key)->count, 5, "older event: the counter stays");
	fsm_monitor_overrun(&c.m);
	raw_fs_row(&r, 254, 16, "ext4", "vdb", test_uuid, counts_later, lasts_a);
	fsm_fs_list_add(&later, r.buf, r.len, TEST_FAMILY, &err);
	raw_free(&r);
	fsm_monitor_resync(&c.m, &later, RECV);
	is_u64(fsm_metrics_find(&met, &key)->count, 20, "resync: the counter is the kernel's");
	key.warning = 3;
	is_u64(fsm_metrics_find(&met, &key)->count, 2, "resync: other types too");
	ok(met.missed == 1 + 15 + 2 && met.overruns == 1,
	   "missed and overruns counted as reported");

	/* A refresh after rate-limited warnings: counter up, nothing missed. */
	fsm_fs_list_free(&later);
	{
		static const uint64_t counts_held[3] = { 0, 26, 2 };

		raw_fs_row(&r, 254, 16, "ext4", "vdb", test_uuid, counts_held, lasts_a);
		fsm_fs_list_add(&later, r.buf, r.len, TEST_FAMILY, &err);
		raw_free(&r);
	}
	fsm_monitor_refresh(&c.m, &later);
	key.warning = 2;
	ok(fsm_metrics_find(&met, &key)->count == 26 && met.missed == 18 &&
	   c.m.missed == 18, "refresh: counter up, the accounting left alone");
	feed_event(&c, 2, 27, 6);	/* 21..26 held back */
	ok(fsm_metrics_find(&met, &key)->count == 27 && met.missed == 18,
	   "event after the refresh: its suppressed ones were not missed");

	/* Filtered out: no series. */
	build_minimal(&r, 1);	/* 8:3, no fstype */
	feed(&c, &r);
	raw_free(&r);
	key = lab(8, 3, 1, NULL, NULL, false);
	ok(!fsm_metrics_find(&met, &key), "filtered-out event: no series");

	fsm_buf_init(&b);
	fsm_metrics_render(&met, &b);
	check_exposition(fsm_buf_str(&b), "monitor metrics");
	has_str(fsm_buf_str(&b), "fsmsg_missed_warnings_total 18\n",
		"rendered: missed total");
	has_str(fsm_buf_str(&b),
		"fsmsg_warnings_total{" L_VDB ",warning=\"meta-enospc\"} 27\n",
		"rendered: the metadata counter");
	fsm_buf_free(&b);
	cap_free(&c);
	fsm_metrics_free(&met);
	fsm_fs_list_free(&l);
	fsm_fs_list_free(&later);
}

static struct fsm_fs mounted_fs(uint32_t major, uint32_t minor,
				const char *fstype, const char *device, bool uuid)
{
	struct fsm_fs fs = {
		.major = major, .minor = minor, .has_uuid = uuid,
		.fstype = fstype, .device = device,
	};

	memcpy(fs.uuid, test_uuid, sizeof(fs.uuid));
	return fs;
}

/* Unmounted filesystems: their series go once written with final values. */
static void test_metrics_gone(void)
{
	struct fsm_metrics m;
	struct fsm_labels l;
	struct fsm_fs rows[3];
	struct fsm_buf b;

	fsm_metrics_init(&m, RECV, 16);
	fsm_buf_init(&b);
	ok(fsm_metrics_mounted(&m, NULL, 0) == 0, "gone: no series, nothing to do");
	fsm_metrics_written(&m);
	observe_four(&m);

	/* 0:45 unmounted; 254:16 listed (without a counter of type 9), and
	 * rows of other filesystems, one on 0:45's number's neighbour. */
	rows[0] = mounted_fs(8, 1, "xfs", "sda1", false);
	rows[1] = mounted_fs(254, 16, "ext4", "vdb", true);
	rows[2] = mounted_fs(0, 46, "btrfs", "vdc", false);
	m.changed = false;
	ok(fsm_metrics_mounted(&m, rows, 3) == 0 && m.n == 4 && m.changed,
	   "gone: marked, nothing dropped yet, the file to be written again");
	fsm_metrics_render(&m, &b);
	has_str(fsm_buf_str(&b),
		"fsmsg_warnings_total{" L_VDC ",warning=\"enospc\"} 12\n",
		"gone: the next file written still has the final value");
	m.changed = false;
	fsm_metrics_written(&m);
	ok(m.changed, "gone: dropped after the write, the file to be written again");
	m.changed = false;
	fsm_metrics_mounted(&m, rows, 3);
	fsm_metrics_written(&m);
	ok(!m.changed, "gone: marked already, nothing new: no change");
	fsm_buf_reset(&b);
	fsm_metrics_render(&m, &b);
	is_str(fsm_buf_str(&b),
	       HELP_WARNINGS
	       "fsmsg_warnings_total{" L_VDB ",warning=\"enospc\"} 0\n"
	       "fsmsg_warnings_total{" L_VDB ",warning=\"meta-enospc\"} 3\n"
	       "fsmsg_warnings_total{" L_VDB ",warning=\"unknown-9\"} 1\n"
	       HELP_LAST
	       "fsmsg_last_warning_timestamp_seconds{" L_VDB ",warning=\"meta-enospc\"} 1796283771.123456789\n"
	       "fsmsg_last_warning_timestamp_seconds{" L_VDB ",warning=\"unknown-9\"} 1.000000000\n"
	       HELP_TAIL(0, 0),
	       "gone: after that write, its series are dropped; a listed filesystem keeps all its series");
	check_exposition(fsm_buf_str(&b), "gone: after the drop");
	ok(m.n == 3 && fsm_acct_size(m.acct) == 3,
	   "gone: the series count and the table follow");

	/* Mounted again before the write: it stays. */
	l = lab(0, 45, 1, "btrfs", "vdc", false);
	fsm_metrics_observe(&m, &l, 2, TS + 100000000000ULL);
	fsm_metrics_mounted(&m, rows, 2);
	fsm_metrics_observe(&m, &l, 3, TS + 100000000001ULL);
	fsm_metrics_written(&m);
	ok(m.n == 4 && fsm_metrics_find(&m, &l) && fsm_metrics_find(&m, &l)->count == 3,
	   "gone: observed again before the write, kept");

	/* Another filesystem on the same device number: the old one's go. */
	rows[1] = mounted_fs(254, 16, "xfs", "vdb", false);
	rows[2] = mounted_fs(0, 45, "btrfs", "vdc", false);
	fsm_metrics_mounted(&m, rows, 3);
	fsm_metrics_written(&m);
	ok(m.n == 1 && fsm_metrics_find(&m, &l) && fsm_acct_size(m.acct) == 1,
	   "gone: same device number, other labels: its series are dropped");
	/* A renamed device is another series too. */
	rows[2] = mounted_fs(0, 45, "btrfs", "vdc2", false);
	fsm_metrics_mounted(&m, rows, 3);
	fsm_metrics_written(&m);
	ok(m.n == 0 && fsm_acct_size(m.acct) == 0, "gone: every series dropped");
	fsm_buf_reset(&b);
	fsm_metrics_render(&m, &b);
	is_str(fsm_buf_str(&b), HELP_WARNINGS HELP_LAST HELP_TAIL(0, 0),
	       "gone: none left, every family still there");

	/* Attach and detach 1000 times: the file does not grow. */
	{
		bool small = true;

		for (uint32_t i = 0; i < 1000 && small; i++) {
			struct fsm_fs fs = mounted_fs(7, i, "ext4", "loop", true);

			for (uint32_t w = 1; w <= 6; w++) {
				l = lab(7, i, w, "ext4", "loop", true);
				fsm_metrics_observe(&m, &l, w, TS + w);
			}
			fsm_metrics_mounted(&m, &fs, 1);
			fsm_metrics_written(&m);
			small = m.n == 6 && fsm_acct_size(m.acct) == 6;
		}
		ok(small && m.untracked == 0,
		   "gone: 1000 loop devices attached and detached in turn, 6 series at a time, under a bound of 16");
	}
	fsm_buf_free(&b);
	fsm_metrics_free(&m);
}

/* The monitor and its metrics share one table of (filesystem, type). */
static void test_metrics_one_table(void)
{
	struct fsm_fs_list l = { 0 }, later = { 0 };
	struct fsm_metrics met;
	struct fsm_labels key;
	struct fsm_error err;
	struct capture c;
	struct raw r = { 0 };
	uint64_t last = 0;

	make_rows(&l);
	cap_init(&c, false);
	fsm_metrics_init(&met, RECV, 64);
	c.m.metrics = &met;
	fsm_filter_add_fstype(&c.f, "ext4");
	fsm_filter_add_fstype(&c.f, "btrfs");
	fsm_monitor_seed(&c.m, &l);
	ok(met.acct == c.m.acct && met.n == 6 && fsm_acct_size(c.m.acct) == 9,
	   "one table: 9 keys accounted, 6 of them with a series");

	/* 0:45 unmounted; 8:1 mounted since the seed, seen in the refresh. */
	raw_fs_row(&r, 254, 16, "ext4", "vdb", test_uuid, counts_a, lasts_a);
	fsm_fs_list_add(&later, r.buf, r.len, TEST_FAMILY, &err);
	raw_free(&r);
	raw_fs_row(&r, 8, 1, "ext4", "sda1", NULL, counts_b, lasts_b);
	fsm_fs_list_add(&later, r.buf, r.len, TEST_FAMILY, &err);
	raw_free(&r);
	fsm_monitor_refresh(&c.m, &later);
	ok(met.n == 9 && fsm_acct_size(c.m.acct) == 12 &&
	   !fsm_acct_get(c.m.acct, &(struct fsm_key){ 8, 1, 1 }, &last),
	   "refresh: a new filesystem's series, keys without accounting");
	fsm_metrics_written(&met);
	key = lab(0, 45, 1, "btrfs", "vdc", false);
	ok(met.n == 6 && !fsm_metrics_find(&met, &key) &&
	   fsm_acct_get(c.m.acct, &(struct fsm_key){ 0, 45, 1 }, &last) &&
	   last == 12 && fsm_acct_size(c.m.acct) == 12,
	   "written: the unmounted filesystem's series dropped, its accounting kept");
	/* A message of it still queued: its count follows the last known
	 * one, so nothing was missed (with the key forgotten, 12 would be). */
	{
		uint64_t missed = 1;

		ok(fsm_acct_event(c.m.acct, &(struct fsm_key){ 0, 45, 1 }, 13, 0,
				  TS + 3, &missed) == 0 && missed == 0,
		   "queued message after the drop: nothing missed");
	}

	/* The refresh without 8:1: its keys go with its series. */
	fsm_fs_list_free(&later);
	raw_fs_row(&r, 254, 16, "ext4", "vdb", test_uuid, counts_a, lasts_a);
	fsm_fs_list_add(&later, r.buf, r.len, TEST_FAMILY, &err);
	raw_free(&r);
	fsm_monitor_refresh(&c.m, &later);
	fsm_metrics_written(&met);
	ok(met.n == 3 && fsm_acct_size(c.m.acct) == 9,
	   "written: a filesystem known to the metrics only leaves no key");
	cap_free(&c);
	fsm_metrics_free(&met);
	fsm_fs_list_free(&l);
	fsm_fs_list_free(&later);
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!fp)
		return NULL;
	if (getdelim(&buf, &len, '\0', fp) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(fp);
	return buf;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n;
}

static void test_textfile(void)
{
	char dir[] = "/tmp/fsmsg-unit-tf-XXXXXX";
	char path[256], missing[256], other[256];
	const char *stage = NULL;
	struct fsm_error err;
	struct stat st;
	char *got;
	int fd;

	if (!mkdtemp(dir)) {
		ok(false, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/fsmsg.prom", dir);
	snprintf(missing, sizeof(missing), "%s/nope/fsmsg.prom", dir);

	ok(fsm_textfile_check(path, &err) == 0, "check: a file in an existing folder");
	ok(fsm_textfile_check(missing, &err) < 0, "check: a missing folder fails");
	has_str(err.msg, "the folder ", "check: missing folder: says so");
	has_str(err.msg, "/nope does not exist", "check: missing folder: names it");
	ok(fsm_textfile_check(dir, &err) < 0 && strstr(err.msg, "is a folder"),
	   "check: a folder as the file fails");
	snprintf(other, sizeof(other), "%s/", dir);
	ok(fsm_textfile_check(other, &err) < 0 && strstr(err.msg, "names a folder"),
	   "check: a path ending in / fails");

	ok(fsm_write_atomic(path, "one\n", 4, &stage) == 0, "write: new file");
	got = slurp(path);
	is_str(got, "one\n", "write: contents");
	free(got);
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644,
	   "write: mode 0644 whatever the umask");
	ok(fsm_write_atomic(path, "two\n", 4, &stage) == 0, "write: replace");
	got = slurp(path);
	is_str(got, "two\n", "write: replaced contents");
	free(got);
	ok(count_entries(dir) == 1, "write: no temporary file left");
	errno = 0;
	ok(fsm_write_atomic(missing, "x", 1, &stage) < 0 && errno == ENOENT &&
	   !strcmp(stage, "cannot create a temporary file"),
	   "write into a missing folder: ENOENT at the temporary file");
	ok(count_entries(dir) == 1, "failed write: nothing left behind");

	/* Leftovers of a crashed run are removed, nothing else. */
	snprintf(other, sizeof(other), "%s/fsmsg.prom.tmp.AbC123", dir);
	fd = open(other, O_CREAT | O_WRONLY, 0600);
	if (fd >= 0)
		close(fd);
	snprintf(other, sizeof(other), "%s/fsmsg.prom.tmp.keep-me", dir);
	fd = open(other, O_CREAT | O_WRONLY, 0600);
	if (fd >= 0)
		close(fd);
	ok(fsm_textfile_cleanup(path) == 1 && count_entries(dir) == 2,
	   "cleanup: the crashed run's temporary file only");
	unlink(other);
	unlink(path);
	rmdir(dir);
}

/* ---- journal ---------------------------------------------------------- */

static char *fields_str(const struct fsm_fields *f)
{
	struct fsm_buf b;
	struct iovec iov[FSM_FIELDS_MAX];
	size_t n = fsm_fields_iovec(f, iov);

	fsm_buf_init(&b);
	for (size_t i = 0; i < n; i++) {
		/* The iovec and the string agree. */
		if (strlen(fsm_fields_get(f, i)) != iov[i].iov_len)
			fsm_buf_puts(&b, "(length mismatch)");
		fsm_buf_append(&b, iov[i].iov_base, iov[i].iov_len);
		fsm_buf_puts(&b, "\n");
	}
	fsm_buf_append(&b, "", 0);
	return b.data;
}

#define J_ID "SYSLOG_FACILITY=3\nSYSLOG_IDENTIFIER=fsmsg\n"

static void test_journal(void)
{
	static const char *const ids[] = {
		FSM_MSGID_ENOSPC, FSM_MSGID_META_ENOSPC, FSM_MSGID_INODE_ENOSPC,
		FSM_MSGID_FS_ERROR, FSM_MSGID_SHUTDOWN, FSM_MSGID_DATA_LOST,
		FSM_MSGID_UNKNOWN, FSM_MSGID_MISSED, FSM_MSGID_SUMMARY,
	};
	struct fsm_fields f;
	struct fsm_event ev;
	struct fsm_error err;
	struct raw r = { 0 };
	char *got;
	bool good = true;

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		good &= strlen(ids[i]) == 32 && strspn(ids[i], "0123456789abcdef") == 32;
		for (size_t j = 0; j < i; j++)
			good &= strcmp(ids[i], ids[j]) != 0;
	}
	ok(good, "MESSAGE_IDs: nine distinct 128-bit ids in lower-case hex");
	ok(!strcmp(fsm_journal_message_id(1), FSM_MSGID_ENOSPC) &&
	   !strcmp(fsm_journal_message_id(2), FSM_MSGID_META_ENOSPC) &&
	   !strcmp(fsm_journal_message_id(3), FSM_MSGID_INODE_ENOSPC) &&
	   !strcmp(fsm_journal_message_id(4), FSM_MSGID_FS_ERROR) &&
	   !strcmp(fsm_journal_message_id(5), FSM_MSGID_SHUTDOWN) &&
	   !strcmp(fsm_journal_message_id(6), FSM_MSGID_DATA_LOST) &&
	   !strcmp(fsm_journal_message_id(7), FSM_MSGID_UNKNOWN) &&
	   !strcmp(fsm_journal_message_id(42), FSM_MSGID_UNKNOWN),
	   "MESSAGE_ID per warning type, one for newer types");

	fsm_fields_init(&f);
	raw_full_event(&r, FS_MSG_WARN_META_ENOSPC, 5, 2, "alloc_test");
	parse(&r, &ev, &err);
	ok(fsm_journal_event(&f, &ev, RECV, false) == 0, "journal event: built");
	got = fields_str(&f);
	is_str(got,
	       "MESSAGE=vdb (ext4, 254:16): no space left for metadata; alloc_test[123] uid 1000\n"
	       "MESSAGE_ID=" FSM_MSGID_META_ENOSPC "\n"
	       "PRIORITY=4\n" J_ID
	       "FSMSG_EVENT=warning\n"
	       "FSMSG_WARNING=meta-enospc\nFSMSG_WARNING_ID=2\nFSMSG_SEVERITY=warning\n"
	       "FSMSG_DEV=254:16\nFSMSG_MAJOR=254\nFSMSG_MINOR=16\n"
	       "FSMSG_DEVICE=vdb\nFSMSG_FSTYPE=ext4\nFSMSG_UUID=" UUID_STR "\n"
	       "FSMSG_SB_ID=7\nFSMSG_UID=1000\nFSMSG_PID=123\nOBJECT_PID=123\nFSMSG_COMM=alloc_test\n"
	       "FSMSG_COUNT=5\nFSMSG_SUPPRESSED=2\nFSMSG_TIMESTAMP_NS=1796283771123456789\n",
	       "journal event: every field, in order");
	free(got);
	raw_free(&r);

	build_minimal(&r, 7);
	parse(&r, &ev, &err);
	fsm_journal_event(&f, &ev, RECV, false);
	got = fields_str(&f);
	is_str(got,
	       "MESSAGE=8:3: unknown warning 7\n"
	       "MESSAGE_ID=" FSM_MSGID_UNKNOWN "\n"
	       "PRIORITY=4\n" J_ID
	       "FSMSG_EVENT=warning\n"
	       "FSMSG_WARNING=unknown-7\nFSMSG_WARNING_ID=7\nFSMSG_SEVERITY=warning\n"
	       "FSMSG_DEV=8:3\nFSMSG_MAJOR=8\nFSMSG_MINOR=3\n"
	       "FSMSG_COUNT=7\nFSMSG_TIMESTAMP_NS=1700000000000000001\n",
	       "journal event: absent attributes left out, receive time, unknown type");
	free(got);
	/* A type but no device name: the number names it. */
	ev.fstype = "ext4";
	fsm_journal_event(&f, &ev, RECV, false);
	got = fields_str(&f);
	has_str(got, "MESSAGE=8:3 (ext4): unknown warning 7\n",
		"journal event: the number first when there is no device name");
	free(got);
	raw_free(&r);

	/* Names are printable text in the journal. */
	raw_full_event(&r, 1, 1, 0, "a\"b\\c\nd\x01" "e\xc3\xa9\xff");
	parse(&r, &ev, &err);
	fsm_journal_event(&f, &ev, RECV, false);
	got = fields_str(&f);
	has_str(got, "\nFSMSG_COMM=a\"b\\c\\x0ad\\x01e\xc3\xa9\\xff\n",
		"journal: controls and invalid bytes as \\xNN, the rest verbatim");
	has_str(got, "no space left for data; a\"b\\\\c\\x0ad\\x01e\xc3\xa9\xff[123] uid 1000\nMESSAGE_ID=",
		"journal: MESSAGE is a sentence, one line, the command escaped");
	free(got);
	raw_free(&r);

	{
		struct fsm_missed ms = {
			.major = 254, .minor = 16, .warning = 2, .missed = 12,
			.fstype = "ext4", .device = "vdb", .has_uuid = true,
		};

		memcpy(ms.uuid, test_uuid, 16);
		ok(fsm_journal_missed(&f, &ms) == 0, "journal missed: built");
		got = fields_str(&f);
		is_str(got,
		       "MESSAGE=vdb (ext4, 254:16): missed 12 meta-enospc warnings\n"
		       "MESSAGE_ID=" FSM_MSGID_MISSED "\n"
		       "PRIORITY=3\n" J_ID
		       "FSMSG_WARNING=meta-enospc\nFSMSG_WARNING_ID=2\n"
		       "FSMSG_DEV=254:16\nFSMSG_MAJOR=254\nFSMSG_MINOR=16\n"
		       "FSMSG_DEVICE=vdb\nFSMSG_FSTYPE=ext4\nFSMSG_UUID=" UUID_STR "\n"
		       "FSMSG_MISSED=12\n",
		       "journal missed: every field, in order");
		free(got);
	}
	fsm_journal_text(&f, LOG_INFO, "listening: FS_MSG/events");
	got = fields_str(&f);
	is_str(got, "MESSAGE=listening: FS_MSG/events\nPRIORITY=6\n" J_ID,
	       "journal diagnostic: MESSAGE, PRIORITY, identity, no MESSAGE_ID");
	free(got);

	/* The field list is bounded, not overflowed. */
	fsm_fields_reset(&f);
	for (int i = 0; i < FSM_FIELDS_MAX + 3; i++)
		fsm_fields_add(&f, "X", "%d", i);
	ok(f.n == FSM_FIELDS_MAX && f.full, "fields: bounded at FSM_FIELDS_MAX");
	fsm_fields_free(&f);
}

/* A fake journal sink: every entry, fields one a line, then "--". */
static void capture_sink(void *arg, const struct fsm_fields *f)
{
	struct capture *c = arg;
	char *s = fields_str(f);

	fsm_buf_puts(&c->log, s ? s : "(oom)\n");
	fsm_buf_puts(&c->log, "--\n");
	free(s);
}

static void test_monitor_journal(void)
{
	struct fsm_fs_list l = { 0 };
	struct capture c;
	struct raw r = { 0 };
	const char *log;

	make_rows(&l);
	cap_init(&c, true);
	c.m.log = NULL;
	c.m.sink = capture_sink;
	c.m.sink_arg = &c;
	fsm_monitor_seed(&c.m, &l);
	feed_event(&c, 1, 2, 0);	/* seed 0: 1 missed */
	raw_begin(&r, FS_MSG_CMD_WARNING);	/* invalid */
	raw_end(&r);
	feed(&c, &r);
	raw_free(&r);
	fsm_monitor_log(&c.m, LOG_INFO, "exiting on %s", "SIGTERM");
	cap_finish(&c);
	log = fsm_buf_str(&c.log);
	is_str(log,
	       "MESSAGE=vdb (ext4, 254:16): missed 1 enospc warnings\n"
	       "MESSAGE_ID=" FSM_MSGID_MISSED "\nPRIORITY=3\n" J_ID
	       "FSMSG_WARNING=enospc\nFSMSG_WARNING_ID=1\n"
	       "FSMSG_DEV=254:16\nFSMSG_MAJOR=254\nFSMSG_MINOR=16\n"
	       "FSMSG_DEVICE=vdb\nFSMSG_FSTYPE=ext4\nFSMSG_UUID=" UUID_STR "\n"
	       "FSMSG_MISSED=1\n--\n"
	       "MESSAGE=vdb (ext4, 254:16): no space left for data; alloc_test[123] uid 1000\n"
	       "MESSAGE_ID=" FSM_MSGID_ENOSPC "\nPRIORITY=4\n" J_ID
	       "FSMSG_EVENT=warning\n"
	       "FSMSG_WARNING=enospc\nFSMSG_WARNING_ID=1\nFSMSG_SEVERITY=warning\n"
	       "FSMSG_DEV=254:16\nFSMSG_MAJOR=254\nFSMSG_MINOR=16\n"
	       "FSMSG_DEVICE=vdb\nFSMSG_FSTYPE=ext4\nFSMSG_UUID=" UUID_STR "\n"
	       "FSMSG_SB_ID=7\nFSMSG_UID=1000\nFSMSG_PID=123\nOBJECT_PID=123\nFSMSG_COMM=alloc_test\n"
	       "FSMSG_COUNT=2\nFSMSG_SUPPRESSED=0\nFSMSG_TIMESTAMP_NS=1796283771123456789\n--\n"
	       "MESSAGE=skipped an invalid FS_MSG message: missing required attributes WARNING (1), DEV_MAJOR (2), DEV_MINOR (3), COUNT (11)\n"
	       "PRIORITY=4\n" J_ID "--\n"
	       "MESSAGE=exiting on SIGTERM\nPRIORITY=6\n" J_ID "--\n",
	       "monitor to the journal: missed report, event (text MESSAGE even with --json), diagnostics");
	ok(c.out && strstr(c.out, "\"warning\":\"enospc\"") &&
	   c.err && !strstr(c.err, "exiting"),
	   "monitor to the journal: stdout still JSON; log-only notices not on stderr");
	cap_free(&c);
	fsm_fs_list_free(&l);
}

/* ---- --receive-time ------------------------------------------------------- */

/* Received 12345.678 us after the kernel's TIMESTAMP (TS). */
#define RX (TS + 12345678ULL)
#define RX_NS "1796283771135802467"

/* The text suffix as printf would write it, for any receive time. */
static void want_delta(struct fsm_buf *w, uint64_t ts, uint64_t rx)
{
	uint64_t d = rx >= ts ? rx - ts : ts - rx;

	fsm_buf_printf(w, " received %c%llu.%03lluus", rx >= ts ? '+' : '-',
		       (unsigned long long)(d / 1000),
		       (unsigned long long)(d % 1000));
}

static void test_receive_time_format(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_buf b, want;
	bool good = true;
	static const struct {
		uint64_t rx;
		const char *suffix;
	} cases[] = {
		{ TS, " received +0.000us" },
		{ TS + 1, " received +0.001us" },
		{ TS + 7, " received +0.007us" },
		{ TS + 120, " received +0.120us" },
		{ TS + 999, " received +0.999us" },
		{ TS + 1000, " received +1.000us" },
		{ TS + 1001, " received +1.001us" },
		{ TS + 85250, " received +85.250us" },
		{ TS + 3000000000ULL, " received +3000000.000us" },
		{ TS - 1, " received -0.001us" },
		{ TS - 1500, " received -1.500us" },
		{ 0, " received -1796283771123456.789us" },
		{ UINT64_MAX, " received +16650460302586094.826us" },
	};

	raw_full_event(&r, FS_MSG_WARN_ENOSPC, 5, 2, "alloc_test");
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK, "receive time: full event parses");
	fsm_buf_init(&b);
	fsm_buf_init(&want);
	ok(fsm_format_event_text(&b, &ev, RX, true) == 0, "receive time: text formatted");
	is_str(fsm_buf_str(&b),
	       TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for data,"
	       " uid 1000, pid 123 (alloc_test), count 5 (2 suppressed)"
	       " received +12345.678us\n",
	       "receive time: text line ends with the delay in us, 3 decimals");
	fsm_buf_reset(&b);
	ok(fsm_format_event_json(&b, &ev, RX, true) == 0, "receive time: JSON formatted");
	is_str(fsm_buf_str(&b),
	       "{\"time\":\"" JTS_STR "\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771123456789\","
	       "\"warning\":\"enospc\",\"warning_id\":1,\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"254:16\","
	       "\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\","
	       "\"uuid\":\"" UUID_STR "\",\"label\":null,\"mountpoints\":null,\"sb_id\":7,\"uid\":1000,\"pid\":123,"
	       "\"comm\":\"alloc_test\",\"count\":5,\"suppressed\":2"
	       NO_DETAILS ",\"received_ns\":\"" RX_NS "\"}\n",
	       "receive time: JSON line ends with received_ns, the kernel's time kept");

	/* Without the option, the receive time changes nothing but a
	 * missing TIMESTAMP: the lines of test_full_event(). */
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RX, false);
	fsm_buf_reset(&want);
	fsm_format_event_text(&want, &ev, RECV, false);
	is_str(fsm_buf_str(&b), fsm_buf_str(&want),
	       "receive time off: text line independent of the receive time");
	ok(!strstr(fsm_buf_str(&b), "received"), "receive time off: no suffix");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RX, false);
	ok(!strstr(fsm_buf_str(&b), "received_ns") &&
	   !strcmp(fsm_buf_str(&b) + b.len - (sizeof(NO_DETAILS "}\n") - 1),
		   NO_DETAILS "}\n"),
	   "receive time off: JSON without received_ns");

	/* Every case, the suffix exactly, and as printf writes it. */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *line;
		size_t n = strlen(cases[i].suffix);

		fsm_buf_reset(&b);
		fsm_buf_reset(&want);
		fsm_format_event_text(&b, &ev, cases[i].rx, true);
		want_delta(&want, TS, cases[i].rx);
		line = fsm_buf_str(&b);
		if (b.len < n + 1 || memcmp(line + b.len - n - 1, cases[i].suffix, n) ||
		    line[b.len - 1] != '\n' || strcmp(cases[i].suffix, fsm_buf_str(&want))) {
			diag_str("got", line);
			diag_str("want suffix", cases[i].suffix);
			diag_str("printf", fsm_buf_str(&want));
			good = false;
		}
	}
	ok(good, "receive time: text delay at 0, below and above 1 us, negative, extremes");

	/* Against printf at every power of ten, one below and one above,
	 * both signs. */
	good = true;
	for (uint64_t p = 1;; p *= 10) {
		const uint64_t ds[] = { p - 1, p, p + 1 };

		for (size_t i = 0; i < 3; i++) {
			for (int neg = 0; neg < 2; neg++) {
				uint64_t rx = neg ? TS - ds[i] % TS : TS + ds[i] % (UINT64_MAX - TS);
				const char *line;

				fsm_buf_reset(&b);
				fsm_buf_reset(&want);
				fsm_format_event_text(&b, &ev, rx, true);
				want_delta(&want, TS, rx);
				line = fsm_buf_str(&b);
				if (b.len < want.len + 1 ||
				    memcmp(line + b.len - want.len - 1, fsm_buf_str(&want), want.len)) {
					diag_str("got", line);
					diag_str("want suffix", fsm_buf_str(&want));
					good = false;
				}
			}
		}
		if (p > UINT64_MAX / 10)
			break;
	}
	ok(good, "receive time: text delay as printf's %%c%%llu.%%03llu at every power of ten");
	raw_free(&r);

	/* No TIMESTAMP: the receive time is the event's time too; text has
	 * no delay to show. */
	build_minimal(&r, FS_MSG_WARN_INODE_ENOSPC);
	parse(&r, &ev, &err);
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, true);
	is_str(fsm_buf_str(&b),
	       RECV_STR " 8:3 - - uuid - mnt -: warning: no free inodes, count 7 received -\n",
	       "receive time, no TIMESTAMP: text ' received -'");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, true);
	is_str(fsm_buf_str(&b),
	       "{\"time\":\"" JRECV_STR "\",\"event\":\"warning\",\"timestamp_ns\":\"1700000000000000001\","
	       "\"warning\":\"inode-enospc\",\"warning_id\":3,\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"8:3\","
	       "\"major\":8,\"minor\":3,\"fstype\":null,\"device\":null,"
	       "\"uuid\":null,\"label\":null,\"mountpoints\":null,\"sb_id\":null,\"uid\":null,\"pid\":null,\"comm\":null,"
	       "\"count\":7,\"suppressed\":null" NO_DETAILS ",\"received_ns\":\"1700000000000000001\"}\n",
	       "receive time, no TIMESTAMP: JSON received_ns equals timestamp_ns");
	raw_free(&r);

	/* Out of memory: fails, leaves the contents. */
	raw_full_event(&r, FS_MSG_WARN_ENOSPC, 5, 2, "alloc_test");
	parse(&r, &ev, &err);
	fsm_buf_reset(&b);
	fsm_buf_puts(&b, "kept");
	b.oom = true;
	ok(fsm_format_event_text(&b, &ev, RX, true) < 0 &&
	   fsm_format_event_json(&b, &ev, RX, true) < 0 &&
	   b.len == 4 && !strcmp(fsm_buf_str(&b), "kept"),
	   "receive time, out of memory: fails and leaves the contents");
	raw_free(&r);
	fsm_buf_free(&b);
	fsm_buf_free(&want);
}

static void test_receive_time_monitor(void)
{
	struct fsm_fs_list l = { 0 };
	struct capture c;
	struct raw r = { 0 };
	struct fsm_fields f;
	struct fsm_event ev;
	struct fsm_error err;
	char *got;
	const char *log;

	make_rows(&l);
	raw_full_event(&r, FS_MSG_WARN_META_ENOSPC, 6, 1, "alloc_test");

	/* Text: stdout and syslog get the suffix, the missed report not. */
	cap_init(&c, false);
	c.m.received = true;
	fsm_monitor_seed(&c.m, &l);	/* meta-enospc at 3: 6 with 1 suppressed misses 1 */
	fsm_monitor_message(&c.m, r.buf, r.len, RX);
	cap_finish(&c);
	is_str(c.out,
	       TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for metadata,"
	       " uid 1000, pid 123 (alloc_test), count 6 (1 suppressed) received +12345.678us\n",
	       "monitor --receive-time, text: the event line with its delay");
	is_str(c.err, "fsmsg: missed 1 meta-enospc warnings on ext4 vdb (254:16) mnt -\n",
	       "monitor --receive-time, text: missed report unchanged");
	is_str(fsm_buf_str(&c.log),
	       "3|missed 1 meta-enospc warnings on ext4 vdb (254:16) mnt -\n"
	       "4|" TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: warning: no space left for metadata,"
	       " uid 1000, pid 123 (alloc_test), count 6 (1 suppressed) received +12345.678us\n",
	       "monitor --receive-time, text: syslog gets the line as printed");
	cap_free(&c);

	/* JSON: received_ns last in the event, not in the missed line. */
	cap_init(&c, true);
	c.m.received = true;
	fsm_monitor_seed(&c.m, &l);
	fsm_monitor_message(&c.m, r.buf, r.len, RX);
	cap_finish(&c);
	is_str(c.out,
	       "{\"time\":\"2026-12-03T07:42:51Z\",\"event\":\"missed\",\"dev\":\"254:16\","
	       "\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"" UUID_STR "\","
	       "\"mountpoints\":null,\"warning\":\"meta-enospc\",\"missed\":1}\n"
	       "{\"time\":\"" JTS_STR "\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771123456789\",\"warning\":\"meta-enospc\",\"warning_id\":2,\"severity\":\"warning\",\"severity_id\":2,"
	       "\"dev\":\"254:16\",\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"" UUID_STR "\",\"label\":null,\"mountpoints\":null,"
	       "\"sb_id\":7,\"uid\":1000,\"pid\":123,\"comm\":\"alloc_test\",\"count\":6,\"suppressed\":1"
	       NO_DETAILS ",\"received_ns\":\"" RX_NS "\"}\n",
	       "monitor --receive-time, JSON: received_ns last in the event, not in the missed line");
	cap_free(&c);

	/* The journal: MESSAGE as without the option, FSMSG_RECEIVED_NS last. */
	cap_init(&c, false);
	c.m.received = true;
	c.m.log = NULL;
	c.m.sink = capture_sink;
	c.m.sink_arg = &c;
	fsm_monitor_seed(&c.m, &l);
	fsm_monitor_message(&c.m, r.buf, r.len, RX);
	cap_finish(&c);
	log = fsm_buf_str(&c.log);
	is_str(log,
	       "MESSAGE=vdb (ext4, 254:16): missed 1 meta-enospc warnings\n"
	       "MESSAGE_ID=" FSM_MSGID_MISSED "\nPRIORITY=3\n" J_ID
	       "FSMSG_WARNING=meta-enospc\nFSMSG_WARNING_ID=2\n"
	       "FSMSG_DEV=254:16\nFSMSG_MAJOR=254\nFSMSG_MINOR=16\n"
	       "FSMSG_DEVICE=vdb\nFSMSG_FSTYPE=ext4\nFSMSG_UUID=" UUID_STR "\n"
	       "FSMSG_MISSED=1\n--\n"
	       "MESSAGE=vdb (ext4, 254:16): no space left for metadata; alloc_test[123] uid 1000\n"
	       "MESSAGE_ID=" FSM_MSGID_META_ENOSPC "\nPRIORITY=4\n" J_ID
	       "FSMSG_EVENT=warning\n"
	       "FSMSG_WARNING=meta-enospc\nFSMSG_WARNING_ID=2\nFSMSG_SEVERITY=warning\n"
	       "FSMSG_DEV=254:16\nFSMSG_MAJOR=254\nFSMSG_MINOR=16\n"
	       "FSMSG_DEVICE=vdb\nFSMSG_FSTYPE=ext4\nFSMSG_UUID=" UUID_STR "\n"
	       "FSMSG_SB_ID=7\nFSMSG_UID=1000\nFSMSG_PID=123\nOBJECT_PID=123\nFSMSG_COMM=alloc_test\n"
	       "FSMSG_COUNT=6\nFSMSG_SUPPRESSED=1\nFSMSG_TIMESTAMP_NS=1796283771123456789\n"
	       "FSMSG_RECEIVED_NS=" RX_NS "\n--\n",
	       "monitor --receive-time, journal: FSMSG_RECEIVED_NS last, MESSAGE and missed report unchanged");
	cap_free(&c);

	/* The same entry built directly, and without the option. */
	fsm_fields_init(&f);
	parse(&r, &ev, &err);
	ok(fsm_journal_event(&f, &ev, RX, true) == 0 && f.n == 24 &&
	   !strcmp(fsm_fields_get(&f, 23), "FSMSG_RECEIVED_NS=" RX_NS),
	   "journal event --receive-time: 24 fields, FSMSG_RECEIVED_NS the last");
	fsm_journal_event(&f, &ev, RX, false);
	got = fields_str(&f);
	ok(f.n == 23 && got && !strstr(got, "RECEIVED"),
	   "journal event without it: 23 fields, no FSMSG_RECEIVED_NS");
	free(got);
	fsm_fields_free(&f);
	raw_free(&r);
	fsm_fs_list_free(&l);
}

/* ---- severity, label, summaries (kernel interface of 2026-12) -------- */

static void test_severity(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_filter f;
	struct fsm_buf b;
	uint32_t v = 0;

	ok(fsm_parse_severity("info", &v) == 0 && v == 1 &&
	   fsm_parse_severity("warning", &v) == 0 && v == 2 &&
	   fsm_parse_severity("error", &v) == 0 && v == 3 &&
	   fsm_parse_severity("critical", &v) == 0 && v == 4,
	   "--severity: the four names");
	ok(fsm_parse_severity("1", &v) == 0 && v == 1 &&
	   fsm_parse_severity("4", &v) == 0 && v == 4, "--severity: 1 to 4");
	ok(fsm_parse_severity("0", &v) < 0 && fsm_parse_severity("5", &v) < 0 &&
	   fsm_parse_severity("", &v) < 0 && fsm_parse_severity("warn", &v) < 0 &&
	   fsm_parse_severity("ERROR", &v) < 0 && fsm_parse_severity("22", &v) < 0,
	   "--severity: anything else refused");
	ok(fsm_severity_priority(1) == 6 && fsm_severity_priority(2) == 4 &&
	   fsm_severity_priority(3) == 3 && fsm_severity_priority(4) == 2 &&
	   fsm_severity_priority(9) == 2 && fsm_severity_priority(0) == 4,
	   "syslog priority: info 6, warning 4, error 3, critical 2; newer higher 2, 0 as warning");

	/* An older kernel: no SEVERITY, counted as a warning. */
	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_u32(&r, FS_MSG_A_WARNING, 2);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 3);
	raw_uint(&r, FS_MSG_A_COUNT, 7);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && !ev.has_severity &&
	   ev.severity == FS_MSG_SEVERITY_WARNING && !ev.summary && !ev.label,
	   "no SEVERITY: a warning");
	raw_free(&r);

	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_u32(&r, FS_MSG_A_WARNING, 2);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 3);
	raw_uint(&r, FS_MSG_A_COUNT, 7);
	raw_u32(&r, FS_MSG_A_SEVERITY, 9);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.has_severity && ev.severity == 9,
	   "a newer severity kept");
	fsm_buf_init(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b), "\"severity\":\"unknown-9\",\"severity_id\":9,",
		"unknown severity: JSON name unknown-9 and id");
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b), "uuid - mnt -: unknown-9: no space left for metadata,",
		"unknown severity: text names it");
	fsm_buf_free(&b);
	raw_free(&r);

	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_u32(&r, FS_MSG_A_WARNING, 1);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 3);
	raw_uint(&r, FS_MSG_A_COUNT, 7);
	raw_attr(&r, FS_MSG_A_SEVERITY, "\x03\x00", 2);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID &&
	   strstr(err.msg, "SEVERITY (16)"), "a 2-byte SEVERITY is malformed, named");
	raw_free(&r);

	/* --severity: below MIN left out. */
	fsm_filter_init(&f);
	raw_full_event(&r, 1, 5, 0, "a");
	parse(&r, &ev, &err);
	ok(fsm_filter_event(&f, &ev), "no --severity: a warning passes");
	f.min_severity = FS_MSG_SEVERITY_WARNING;
	ok(fsm_filter_event(&f, &ev), "--severity warning: a warning passes");
	f.min_severity = FS_MSG_SEVERITY_ERROR;
	ok(!fsm_filter_event(&f, &ev), "--severity error: a warning is left out");
	ev.severity = FS_MSG_SEVERITY_CRITICAL;
	ok(fsm_filter_event(&f, &ev), "--severity error: a critical one passes");
	fsm_filter_free(&f);
	raw_free(&r);
}

static void build_labelled(struct raw *r, const char *label)
{
	raw_begin(r, FS_MSG_CMD_WARNING);
	raw_u32(r, FS_MSG_A_WARNING, 1);
	raw_u32(r, FS_MSG_A_DEV_MAJOR, 254);
	raw_u32(r, FS_MSG_A_DEV_MINOR, 16);
	raw_str(r, FS_MSG_A_FSTYPE, "ext4");
	raw_str(r, FS_MSG_A_DEVICE, "vdb");
	raw_uint(r, FS_MSG_A_TIMESTAMP, TS);
	raw_uint(r, FS_MSG_A_COUNT, 5);
	raw_uint(r, FS_MSG_A_SB_ID, 3);
	raw_u32(r, FS_MSG_A_SEVERITY, 3);
	raw_str(r, FS_MSG_A_LABEL, label);
	raw_end(r);
}

static void test_label(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_fields jf;
	struct fsm_buf b;
	char big[300];

	fsm_buf_init(&b);
	build_labelled(&r, "data");
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.label &&
	   !strcmp(ev.label, "data"), "LABEL read");
	fsm_format_event_text(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       TS_STR " 254:16 ext4 vdb uuid - sb 3 label data mnt -: error: no space left for data,"
	       " count 5\n",
	       "label: text ' label L' after the sb id, severity error");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b), "\"uuid\":null,\"label\":\"data\",\"mountpoints\":null,\"sb_id\":3,",
		"label: JSON string after uuid");
	has_str(fsm_buf_str(&b), "\"severity\":\"error\",\"severity_id\":3,",
		"severity error in JSON");
	raw_free(&r);

	/* Any bytes: the text token keeps the line splittable. */
	build_labelled(&r, "my vol: \"x\"\\\x01\xc3\xa9\xff");
	parse(&r, &ev, &err);
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b),
		" sb 3 label my\\x20vol\\x3a\\x20\\x22x\\x22\\\\\\x01\xc3\xa9\xff mnt -: error: ",
		"label: space, ':', '\"', '\\\\' and control bytes escaped in text");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b),
		"\"label\":\"my vol: \\\"x\\\"\\\\\\u0001\xc3\xa9\\u00ff\",",
		"label: JSON escapes as for other strings");
	fsm_fields_init(&jf);
	fsm_journal_event(&jf, &ev, RECV, false);
	{
		char *got = fields_str(&jf);

		has_str(got, "FSMSG_LABEL=my vol: \"x\"\\\\x01\xc3\xa9\\xff\n",
			"label: journal FSMSG_LABEL, control and non-UTF-8 bytes as \\xNN");
		free(got);
	}
	fsm_fields_free(&jf);
	raw_free(&r);

	/* Empty: no label in text, "" in JSON. */
	build_labelled(&r, "");
	parse(&r, &ev, &err);
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b), " uuid - sb 3 mnt -: error: ", "empty label: none in text");
	raw_free(&r);

	/* 255 bytes, the kernel's most, and beyond our slack: malformed. */
	memset(big, 'L', 255);
	big[255] = '\0';
	build_labelled(&r, big);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && strlen(ev.label) == 255,
	   "a 255-byte label parses");
	raw_free(&r);
	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_u32(&r, FS_MSG_A_WARNING, 1);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 254);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 16);
	raw_uint(&r, FS_MSG_A_COUNT, 5);
	raw_str(&r, FS_MSG_A_LABEL, "x");
	r.buf[r.len - 4] = 'y';	/* "x" then padding: no NUL left */
	r.buf[r.len - 3] = 'y';
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID && strstr(err.msg, "LABEL (17)"),
	   "a LABEL without its NUL is malformed, named");
	raw_free(&r);
	fsm_buf_free(&b);
}

static void test_list_label(void)
{
	struct fsm_fs_list l = { 0 };
	struct fsm_error err;
	struct raw r = { 0 };
	struct capture c;
	uint64_t sb = 9;

	raw_fs_row_label(&r, 254, 16, "ext4", "vdb", test_uuid, counts_a, lasts_a,
			 NULL, &sb, "my data");
	ok(fsm_fs_list_add(&l, r.buf, r.len, TEST_FAMILY, &err) == 0 && l.n == 1 &&
	   l.v[0].label && !strcmp(l.v[0].label, "my data"),
	   "dump reply: LABEL kept in the copy");
	raw_free(&r);
	cap_init(&c, false);
	fsm_monitor_list(&c.m, &l);
	cap_finish(&c);
	is_str(c.out,
	       "DEVICE  MAJ:MIN  FSTYPE  UUID                                  SB_ID  LABEL       ENOSPC  META-ENOSPC  INODE-ENOSPC  FS-ERROR  SHUTDOWN  DATA-LOST  MOUNTPOINT\n"
	       "vdb     254:16   ext4    " UUID_STR "  9      my\\x20data       0            3             0         0         0          0  -\n",
	       "--list table: SB_ID and LABEL columns, the label escaped as in the text line");
	cap_free(&c);
	cap_init(&c, true);
	fsm_monitor_list(&c.m, &l);
	cap_finish(&c);
	has_str(c.out, "{\"event\":\"filesystem\",\"dev\":\"254:16\",", "--list JSON: event filesystem first");
	has_str(c.out, "\"uuid\":\"" UUID_STR "\",\"label\":\"my data\",\"mountpoints\":null,\"sb_id\":9,",
		"--list JSON: label and sb_id");
	cap_free(&c);
	fsm_fs_list_free(&l);
}

static void test_summary(void)
{
	struct fsm_fs_list l = { 0 };
	struct fsm_metrics met;
	struct fsm_labels key;
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_fields jf;
	struct raw r = { 0 };
	struct capture c;
	struct fsm_buf b;
	struct fsm_acct *a = fsm_acct_new(16);
	struct fsm_key k = { 254, 16, 2 };
	uint64_t missed = 99, last = 0;
	char *got;

	/* Accounting: a summary counts no warning of its own. */
	fsm_acct_seed(a, &k, 10, TS);
	ok(fsm_acct_summary(a, &k, 13, 3, TS + 1, &missed) == 0 && missed == 0 &&
	   fsm_acct_get(a, &k, &last) && last == 13,
	   "summary: count = previous + suppressed, nothing missed");
	fsm_acct_event(a, &k, 14, 0, TS + 2, &missed);
	ok(missed == 0, "a warning after a summary: previous + 0 + 1");
	fsm_acct_summary(a, &k, 20, 3, TS + 3, &missed);
	ok(missed == 3, "summary: count beyond previous + suppressed is missed (14 + 3, got 20)");
	fsm_acct_summary(a, &k, 20, 0, TS + 3, &missed);
	ok(missed == 0 && fsm_acct_get(a, &k, &last) && last == 20,
	   "summary at the known count: already counted");
	/* A summary of a new mount (lower count, clearly newer) restarts. */
	fsm_acct_summary(a, &k, 4, 4, TS + 10 * FSM_REMOUNT_MARGIN_NS, &missed);
	ok(missed == 0 && fsm_acct_get(a, &k, &last) && last == 4,
	   "summary after a remount: counting restarted, 4 held back, none missed");
	fsm_acct_free(a);

	raw_summary(&r, FS_MSG_WARN_META_ENOSPC, 120, 37, FS_MSG_SEVERITY_WARNING, "vol");
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.summary && !ev.has_uid &&
	   !ev.has_pid && !ev.comm && ev.count == 120 && ev.suppressed == 37 &&
	   ev.label && !strcmp(ev.label, "vol"), "summary parses: no task, label");
	fsm_buf_init(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       "2026-12-03T07:42:52.000000000Z 254:16 ext4 vdb uuid " UUID_STR
	       " sb 7 label vol mnt -: warning: no space left for metadata,"
	       " 37 warnings held back by rate limiting (count 120)\n",
	       "summary: text line");
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, true);
	has_str(fsm_buf_str(&b), "(count 120) received -", "summary: text with --receive-time");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       "{\"time\":\"2026-12-03T07:42:52Z\",\"event\":\"summary\","
	       "\"timestamp_ns\":\"1796283772000000000\",\"warning\":\"meta-enospc\",\"warning_id\":2,"
	       "\"severity\":\"warning\",\"severity_id\":2,\"dev\":\"254:16\",\"major\":254,"
	       "\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"" UUID_STR "\","
	       "\"label\":\"vol\",\"mountpoints\":null,\"sb_id\":7,\"uid\":null,\"pid\":null,\"comm\":null,"
	       "\"count\":120,\"suppressed\":37" NO_DETAILS "}\n",
	       "summary: JSON line, the same keys as a warning's");
	fsm_fields_init(&jf);
	ok(fsm_journal_event(&jf, &ev, RECV, false) == 0, "summary: journal entry built");
	got = fields_str(&jf);
	is_str(got,
	       "MESSAGE=vdb (ext4, 254:16): 37 warnings of no space left for metadata"
	       " held back by rate limiting\n"
	       "MESSAGE_ID=" FSM_MSGID_SUMMARY "\n"
	       "PRIORITY=4\n" J_ID
	       "FSMSG_EVENT=summary\n"
	       "FSMSG_WARNING=meta-enospc\nFSMSG_WARNING_ID=2\nFSMSG_SEVERITY=warning\n"
	       "FSMSG_DEV=254:16\nFSMSG_MAJOR=254\nFSMSG_MINOR=16\n"
	       "FSMSG_DEVICE=vdb\nFSMSG_FSTYPE=ext4\nFSMSG_UUID=" UUID_STR "\n"
	       "FSMSG_LABEL=vol\nFSMSG_SB_ID=7\n"
	       "FSMSG_COUNT=120\nFSMSG_SUPPRESSED=37\nFSMSG_TIMESTAMP_NS=1796283772000000000\n",
	       "summary: journal fields, no task ones, its own MESSAGE_ID");
	free(got);
	fsm_fields_free(&jf);
	fsm_buf_reset(&b);
	raw_free(&r);
	raw_summary(&r, 1, 5, 1, 2, NULL);
	parse(&r, &ev, &err);
	fsm_format_event_text(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b), ": warning: no space left for data, 1 warning held back by rate limiting (count 5)\n",
		"summary of one: singular");
	fsm_buf_free(&b);
	raw_free(&r);

	/* The pipeline: seed 3, warning 4, held back 5..9, summary 9. */
	make_rows(&l);
	cap_init(&c, true);
	fsm_metrics_init(&met, RECV, 64);
	c.m.metrics = &met;
	fsm_monitor_seed(&c.m, &l);
	feed_event(&c, 2, 4, 0);
	raw_summary(&r, 2, 9, 5, 2, NULL);
	feed(&c, &r);
	raw_free(&r);
	feed_event(&c, 2, 10, 0);
	raw_summary(&r, 2, 14, 2, 2, NULL);	/* 11 and 12 lost */
	feed(&c, &r);
	raw_free(&r);
	cap_finish(&c);
	ok(c.m.missed == 2 && c.m.events == 2 && c.m.summaries == 2,
	   "monitor: summaries accounted, only the real gap missed; --count counts warnings only");
	key = lab(254, 16, 2, "ext4", "vdb", true);
	is_u64(fsm_metrics_find(&met, &key)->count, 14,
	       "metrics: the counter follows a summary's COUNT");
	ok(strstr(c.out, "\"event\":\"summary\"") && !strstr(c.err, "missed 5"),
	   "monitor: summary printed, its held-back warnings not reported missed");
	has_str(c.out, "\"event\":\"missed\",\"dev\":\"254:16\",\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"" UUID_STR "\",\"mountpoints\":null,\"warning\":\"meta-enospc\",\"missed\":2}",
		"monitor: the gap before the second summary reported");
	has_str(fsm_buf_str(&c.log), "4|{\"time\":\"2026-12-03T07:42:52Z\",\"event\":\"summary\"",
		"monitor: summary to syslog at its severity's priority");
	fsm_metrics_free(&met);
	cap_free(&c);

	/* --severity above the summaries': left out, yet accounted. */
	cap_init(&c, false);
	c.f.min_severity = FS_MSG_SEVERITY_ERROR;
	fsm_monitor_seed(&c.m, &l);
	raw_summary(&r, 2, 9, 6, 2, NULL);
	feed(&c, &r);
	raw_free(&r);
	feed_event(&c, 2, 10, 0);
	cap_finish(&c);
	ok(c.outlen == 0 && c.m.missed == 0, "--severity error: warnings and summaries left out, nothing missed");
	cap_free(&c);

	/*
	 * --severity error and an overrun: the kernel's filter kept the
	 * warnings of severity warning away, so the resync finds them
	 * "missing"; they are no more reported than their messages. A key
	 * whose messages were errors is.
	 */
	{
		static const uint64_t counts_later[3] = { 0, 20, 2 };
		struct fsm_fs_list later = { 0 };

		cap_init(&c, false);
		c.f.min_severity = FS_MSG_SEVERITY_ERROR;
		fsm_monitor_seed(&c.m, &l);
		raw_begin(&r, FS_MSG_CMD_WARNING);
		raw_u32(&r, FS_MSG_A_WARNING, 2);
		raw_u32(&r, FS_MSG_A_DEV_MAJOR, 254);
		raw_u32(&r, FS_MSG_A_DEV_MINOR, 16);
		raw_uint(&r, FS_MSG_A_COUNT, 4);
		raw_u32(&r, FS_MSG_A_SEVERITY, FS_MSG_SEVERITY_ERROR);
		raw_end(&r);
		feed(&c, &r);
		raw_free(&r);
		fsm_monitor_overrun(&c.m);
		raw_fs_row(&r, 254, 16, "ext4", "vdb", test_uuid, counts_later, lasts_a);
		fsm_fs_list_add(&later, r.buf, r.len, TEST_FAMILY, &err);
		raw_free(&r);
		fsm_monitor_resync(&c.m, &later, RECV);
		cap_finish(&c);
		ok(c.m.events == 1 && c.m.missed == 16 && strstr(c.err, "missed 16 meta-enospc") &&
		   !strstr(c.err, "inode-enospc"),
		   "--severity error, resync: the error key's loss reported, the inode key (never seen, a warning) not");
		cap_free(&c);
		fsm_fs_list_free(&later);
	}
	fsm_fs_list_free(&l);
}

/* ---- fs-error and shutdown (kernel interface of 2026-12) ------------- */

/* A minimal message of @warning with one extra attribute as given. */
static void build_with_attr(struct raw *r, uint32_t warning, uint16_t type,
			    const void *p, size_t n)
{
	raw_begin(r, FS_MSG_CMD_WARNING);
	raw_u32(r, FS_MSG_A_WARNING, warning);
	raw_u32(r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(r, FS_MSG_A_DEV_MINOR, 3);
	raw_uint(r, FS_MSG_A_COUNT, 1);
	raw_attr(r, type, p, n);
	raw_end(r);
}

static void test_fs_error_shutdown_parse(void)
{
	static const struct {
		uint16_t type;
		size_t len;
		const char *want;
	} bad[] = {
		{ FS_MSG_A_ERRNO, 2, "attribute ERRNO (18) is too short: 2 bytes, needs 4" },
		{ FS_MSG_A_ERRNO, 8, "attribute ERRNO (18) is too long: 8 bytes, at most 4" },
		{ FS_MSG_A_LINE, 0, "attribute LINE (20) is too short: 0 bytes, needs 4" },
		{ FS_MSG_A_INODE, 3, "attribute INODE (21) has invalid length 3: an unsigned integer is 4 or 8 bytes" },
		{ FS_MSG_A_BLOCK, 16, "attribute BLOCK (22) has invalid length 16: an unsigned integer is 4 or 8 bytes" },
		{ FS_MSG_A_REASON, 5, "attribute REASON (23) is too long: 5 bytes, at most 4" },
		{ FS_MSG_A_FS_FLAGS, 1, "attribute FS_FLAGS (24) is too short: 1 bytes, needs 4" },
		{ FS_MSG_A_FUNCTION, 0, "attribute FUNCTION (19) is too short: 0 bytes, needs 1" },
		{ FS_MSG_A_FUNCTION, 11, "attribute FUNCTION (19) is not a NUL-terminated string" },
		{ FS_MSG_A_FUNCTION, FSM_FUNCTION_MAX + 1,
		  "attribute FUNCTION (19) is too long: 513 bytes, at most 512" },
	};
	char blob[FSM_FUNCTION_MAX + 8];
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	uint64_t wide = 1ULL << 40;

	raw_fs_error_event(&r, 3);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.warning == FS_MSG_WARN_FS_ERROR &&
	   ev.severity == FS_MSG_SEVERITY_ERROR, "fs-error: parses, severity error");
	ok(ev.has_errno && ev.error == 117 && ev.function &&
	   !strcmp(ev.function, "ext4_lookup") && ev.has_line && ev.line == 1234 &&
	   ev.has_inode && ev.inode == 12 && ev.has_block && ev.block == 0 &&
	   !ev.has_reason && !ev.has_fs_flags,
	   "fs-error: errno, function, line, inode, block read; no reason, fs_flags");
	raw_free(&r);

	raw_shutdown_event(&r, 1);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.warning == FS_MSG_WARN_SHUTDOWN &&
	   ev.severity == FS_MSG_SEVERITY_CRITICAL && ev.has_reason &&
	   ev.reason == FS_MSG_SHUTDOWN_REASON_ERROR && ev.has_fs_flags &&
	   ev.fs_flags == 0 && ev.has_errno && ev.error == 5 && !ev.function &&
	   !ev.has_line && !ev.has_inode && !ev.has_block,
	   "shutdown: reason, fs_flags, errno read; the rest absent");
	raw_free(&r);

	build_minimal(&r, FS_MSG_WARN_ENOSPC);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && !ev.has_errno && !ev.function &&
	   !ev.has_line && !ev.has_inode && !ev.has_block && !ev.has_reason &&
	   !ev.has_fs_flags, "enospc without details: all absent");
	raw_free(&r);

	/* NLA_UINT: 8 bytes for values past 32 bits. */
	build_with_attr(&r, FS_MSG_WARN_FS_ERROR, FS_MSG_A_INODE, &wide, 8);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.has_inode && ev.inode == wide,
	   "INODE of 8 bytes read");
	raw_free(&r);
	build_with_attr(&r, FS_MSG_WARN_FS_ERROR, FS_MSG_A_BLOCK, &wide, 8);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.has_block && ev.block == wide,
	   "BLOCK of 8 bytes read");
	raw_free(&r);

	memset(blob, 'f', sizeof(blob));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[160];

		build_with_attr(&r, FS_MSG_WARN_FS_ERROR, bad[i].type, blob,
				bad[i].len);
		snprintf(name, sizeof(name), "malformed %s: invalid, reason given",
			 bad[i].want);
		ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID &&
		   !strcmp(err.msg, bad[i].want), "%s", name);
		if (strcmp(err.msg, bad[i].want))
			diag_str("got", err.msg);
		raw_free(&r);
	}
	/* The longest function name the policy takes. */
	blob[FSM_FUNCTION_MAX - 1] = '\0';
	build_with_attr(&r, FS_MSG_WARN_FS_ERROR, FS_MSG_A_FUNCTION, blob,
			FSM_FUNCTION_MAX);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.function &&
	   strlen(ev.function) == FSM_FUNCTION_MAX - 1,
	   "FUNCTION of FSM_FUNCTION_MAX bytes accepted");
	raw_free(&r);

	ok(!strcmp(fsm_warning_name(4), "fs-error") &&
	   !strcmp(fsm_warning_name(5), "shutdown") &&
	   !strcmp(fsm_warning_name(6), "data-lost") && !fsm_warning_name(7) &&
	   !fsm_warning_name(0) && !strcmp(fsm_warning_words(4), "filesystem error") &&
	   !strcmp(fsm_warning_words(5), "filesystem shut down") &&
	   !strcmp(fsm_warning_words(6), "file data lost at writeback") &&
	   !fsm_warning_words(7), "names and words of fs-error, shutdown and data-lost");
	ok(!strcmp(fsm_reason_name(1), "error") && !strcmp(fsm_reason_name(2), "user") &&
	   !strcmp(fsm_reason_name(3), "io-error") &&
	   !strcmp(fsm_reason_name(4), "corruption") &&
	   !strcmp(fsm_reason_name(5), "device-removed") &&
	   !strcmp(fsm_reason_name(6), "abort") && !fsm_reason_name(0) &&
	   !fsm_reason_name(7) && !fsm_reason_name(UINT32_MAX),
	   "shutdown reasons: the six names, none for others");
	ok(fsm_errno_name(5) && !strcmp(fsm_errno_name(5), "EIO") &&
	   !strcmp(fsm_errno_name(117), "EUCLEAN") && !fsm_errno_name(0) &&
	   !fsm_errno_name(4000) && !fsm_errno_name(UINT32_MAX),
	   "errno names: EIO, EUCLEAN; none for 0 and unknown values");
}

/* ---- data-lost (kernel interface of 2026-12) ------------------------- */

static void test_data_lost(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_fields f;
	struct fsm_buf b;
	uint64_t wide = 1ULL << 40;
	uint32_t w = 0;
	char *got;

	fsm_buf_init(&b);
	raw_data_lost_event(&r, 2);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.warning == FS_MSG_WARN_DATA_LOST &&
	   ev.severity == FS_MSG_SEVERITY_ERROR && ev.has_errno && ev.error == 28 &&
	   ev.has_inode && ev.inode == 13 && ev.has_offset && ev.offset == 0 &&
	   ev.has_length && ev.length == 4096 && !ev.has_uid && !ev.has_pid &&
	   !ev.comm && !ev.has_block && !ev.has_line,
	   "data-lost: errno, inode, offset, length read; no task, no block");
	fsm_format_event_text(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: error: file data lost at writeback,"
	       " count 2 errno ENOSPC (28) inode 13 offset 0 length 4096\n",
	       "data-lost: text line, no task part, the file range last");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       "{\"time\":\"" JTS_STR "\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771123456789\","
	       "\"warning\":\"data-lost\",\"warning_id\":6,\"severity\":\"error\",\"severity_id\":3,\"dev\":\"254:16\","
	       "\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\","
	       "\"uuid\":\"" UUID_STR "\",\"label\":null,\"mountpoints\":null,\"sb_id\":7,\"uid\":null,\"pid\":null,"
	       "\"comm\":null,\"count\":2,\"suppressed\":0,\"errno\":28,\"errno_name\":\"ENOSPC\","
	       "\"function\":null,\"line\":null,\"inode\":13,\"block\":null,"
	       "\"reason\":null,\"reason_id\":null,\"fs_flags\":null,\"offset\":0,\"length\":4096}\n",
	       "data-lost: JSON line, task keys null, offset and length");
	fsm_fields_init(&f);
	ok(fsm_journal_event(&f, &ev, RECV, true) == 0, "data-lost: journal entry built");
	got = fields_str(&f);
	has_str(got, "MESSAGE_ID=" FSM_MSGID_DATA_LOST "\nPRIORITY=3\n",
		"data-lost: its MESSAGE_ID, PRIORITY 3 (LOG_ERR)");
	has_str(got, "FSMSG_ERRNO=28\nFSMSG_INODE=13\nFSMSG_OFFSET=0\nFSMSG_LENGTH=4096\n",
		"data-lost: journal fields FSMSG_ERRNO, FSMSG_INODE, FSMSG_OFFSET, FSMSG_LENGTH");
	ok(!strstr(got, "FSMSG_PID=") && !strstr(got, "OBJECT_PID=") &&
	   !strstr(got, "FSMSG_UID="), "data-lost: no task fields in the journal");
	free(got);
	fsm_fields_free(&f);
	raw_free(&r);

	/* 64-bit offset and length; a u32 LENGTH (the kernel's uint) too. */
	build_with_attr(&r, FS_MSG_WARN_DATA_LOST, FS_MSG_A_OFFSET, &wide, 8);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.offset == wide,
	   "data-lost: 64-bit OFFSET read");
	raw_free(&r);
	{
		uint32_t len4 = 65536;

		build_with_attr(&r, FS_MSG_WARN_DATA_LOST, FS_MSG_A_LENGTH, &len4, 4);
		ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.length == 65536,
		   "data-lost: 32-bit LENGTH read");
		raw_free(&r);
		build_with_attr(&r, FS_MSG_WARN_DATA_LOST, FS_MSG_A_LENGTH, &len4, 2);
		ok(parse(&r, &ev, &err) == FSM_PARSE_INVALID,
		   "data-lost: a 2-byte LENGTH is invalid");
		raw_free(&r);
	}

	ok(fsm_parse_warning("data-lost", &w) == 0 && w == 6 &&
	   fsm_parse_warning("DATA-LOST", &w) == 0 && w == 6 &&
	   fsm_parse_warning("data-loss", &w) < 0, "parse warning data-lost");
	fsm_buf_free(&b);
}

static void test_fs_error_shutdown_format(void)
{
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_fields f;
	struct fsm_buf b;
	uint32_t w = 0;
	uint32_t reason = 99, flags = 0x80000001;
	char *got;

	fsm_buf_init(&b);
	raw_fs_error_event(&r, 3);
	parse(&r, &ev, &err);
	fsm_format_event_text(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: error: filesystem error,"
	       " uid 1000, pid 123 (touch), count 3"
	       " errno EUCLEAN (117) function ext4_lookup line 1234 inode 12 block 0\n",
	       "fs-error: text line with the details");
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, true);
	has_str(fsm_buf_str(&b), " inode 12 block 0 received -",
		"fs-error: --receive-time suffix after the details");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       "{\"time\":\"" JTS_STR "\",\"event\":\"warning\",\"timestamp_ns\":\"1796283771123456789\","
	       "\"warning\":\"fs-error\",\"warning_id\":4,\"severity\":\"error\",\"severity_id\":3,\"dev\":\"254:16\","
	       "\"major\":254,\"minor\":16,\"fstype\":\"ext4\",\"device\":\"vdb\","
	       "\"uuid\":\"" UUID_STR "\",\"label\":null,\"mountpoints\":null,\"sb_id\":7,\"uid\":1000,\"pid\":123,"
	       "\"comm\":\"touch\",\"count\":3,\"suppressed\":0,\"errno\":117,\"errno_name\":\"EUCLEAN\","
	       "\"function\":\"ext4_lookup\",\"line\":1234,\"inode\":12,\"block\":0,"
	       "\"reason\":null,\"reason_id\":null,\"fs_flags\":null,\"offset\":null,\"length\":null}\n",
	       "fs-error: JSON line with the details");

	fsm_fields_init(&f);
	ok(fsm_journal_event(&f, &ev, RECV, false) == 0, "fs-error: journal entry built");
	got = fields_str(&f);
	is_str(got,
	       "MESSAGE=vdb (ext4, 254:16): filesystem error; touch[123] uid 1000\n"
	       "MESSAGE_ID=" FSM_MSGID_FS_ERROR "\n"
	       "PRIORITY=3\n" J_ID
	       "FSMSG_EVENT=warning\n"
	       "FSMSG_WARNING=fs-error\nFSMSG_WARNING_ID=4\nFSMSG_SEVERITY=error\n"
	       "FSMSG_DEV=254:16\nFSMSG_MAJOR=254\nFSMSG_MINOR=16\n"
	       "FSMSG_DEVICE=vdb\nFSMSG_FSTYPE=ext4\nFSMSG_UUID=" UUID_STR "\n"
	       "FSMSG_SB_ID=7\nFSMSG_UID=1000\nFSMSG_PID=123\nOBJECT_PID=123\nFSMSG_COMM=touch\n"
	       "FSMSG_COUNT=3\nFSMSG_SUPPRESSED=0\n"
	       "FSMSG_ERRNO=117\nFSMSG_FUNCTION=ext4_lookup\nFSMSG_LINE=1234\n"
	       "FSMSG_INODE=12\nFSMSG_BLOCK=0\n"
	       "FSMSG_TIMESTAMP_NS=1796283771123456789\n",
	       "fs-error: journal fields, PRIORITY 3 (LOG_ERR), its MESSAGE_ID");
	free(got);
	raw_free(&r);

	raw_shutdown_event(&r, 1);
	parse(&r, &ev, &err);
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: critical: filesystem shut down,"
	       " uid 1000, pid 123 (kworker/1:2), count 1"
	       " reason error fs_flags 0x0 errno EIO (5)\n",
	       "shutdown: text line with the details");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b),
		"\"warning\":\"shutdown\",\"warning_id\":5,\"severity\":\"critical\",\"severity_id\":4,",
		"shutdown: JSON warning and severity");
	has_str(fsm_buf_str(&b),
		"\"count\":1,\"suppressed\":0,\"errno\":5,\"errno_name\":\"EIO\",\"function\":null,"
		"\"line\":null,\"inode\":null,\"block\":null,\"reason\":\"error\",\"reason_id\":1,"
		"\"fs_flags\":0,\"offset\":null,\"length\":null}\n",
		"shutdown: JSON details, absent ones null");
	ok(fsm_journal_event(&f, &ev, RECV, true) == 0 && !f.full,
	   "shutdown: journal entry built, --receive-time fits too");
	got = fields_str(&f);
	has_str(got, "MESSAGE_ID=" FSM_MSGID_SHUTDOWN "\nPRIORITY=2\n",
		"shutdown: its MESSAGE_ID, PRIORITY 2 (LOG_CRIT)");
	has_str(got, "FSMSG_SUPPRESSED=0\nFSMSG_ERRNO=5\nFSMSG_REASON=error\nFSMSG_FS_FLAGS=0x0\n"
		"FSMSG_TIMESTAMP_NS=",
		"shutdown: journal fields FSMSG_ERRNO, FSMSG_REASON, FSMSG_FS_FLAGS");
	ok(!strstr(got, "FSMSG_FUNCTION") && !strstr(got, "FSMSG_LINE") &&
	   !strstr(got, "FSMSG_INODE") && !strstr(got, "FSMSG_BLOCK"),
	   "shutdown: absent details have no journal field");
	free(got);
	raw_free(&r);

	/* A newer reason, wide values, flags in hex, no errno name. */
	raw_begin(&r, FS_MSG_CMD_WARNING);
	raw_u32(&r, FS_MSG_A_WARNING, FS_MSG_WARN_SHUTDOWN);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 3);
	raw_uint(&r, FS_MSG_A_COUNT, 1);
	raw_u32(&r, FS_MSG_A_REASON, reason);
	raw_u32(&r, FS_MSG_A_FS_FLAGS, flags);
	raw_u32(&r, FS_MSG_A_ERRNO, 4000);
	raw_str(&r, FS_MSG_A_FUNCTION, "odd name\x01");
	raw_uint(&r, FS_MSG_A_INODE, 1ULL << 40);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK, "shutdown with a newer reason parses");
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b),
		", count 1 reason 99 fs_flags 0x80000001 errno 4000 function odd\\x20name\\x01"
		" inode 1099511627776\n",
		"newer reason: text number, flags hex, errno number, function one token");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b),
		"\"errno\":4000,\"errno_name\":null,\"function\":\"odd name\\u0001\","
		"\"line\":null,\"inode\":1099511627776,\"block\":null,\"reason\":99,"
		"\"reason_id\":99,\"fs_flags\":2147483649,\"offset\":null,\"length\":null}\n",
		"newer reason: JSON number for reason, errno_name null");
	fsm_journal_event(&f, &ev, RECV, false);
	got = fields_str(&f);
	has_str(got, "MESSAGE_ID=" FSM_MSGID_SHUTDOWN "\n", "newer reason: MESSAGE_ID of shutdown");
	has_str(got, "FSMSG_ERRNO=4000\nFSMSG_FUNCTION=odd name\\x01\nFSMSG_INODE=1099511627776\n"
		"FSMSG_REASON=99\nFSMSG_FS_FLAGS=0x80000001\n",
		"newer reason: journal fields, the reason as a number");
	free(got);
	raw_free(&r);

	/* A summary of fs-errors carries the details too. */
	raw_begin(&r, FS_MSG_CMD_SUMMARY);
	raw_u32(&r, FS_MSG_A_WARNING, FS_MSG_WARN_FS_ERROR);
	raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(&r, FS_MSG_A_DEV_MINOR, 3);
	raw_uint(&r, FS_MSG_A_COUNT, 10);
	raw_uint(&r, FS_MSG_A_SUPPRESSED, 4);
	raw_u32(&r, FS_MSG_A_ERRNO, 5);
	raw_end(&r);
	ok(parse(&r, &ev, &err) == FSM_PARSE_OK && ev.summary && ev.has_errno,
	   "fs-error summary with ERRNO parses");
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b),
		": warning: filesystem error, 4 warnings held back by rate limiting (count 10) errno EIO (5)\n",
		"fs-error summary: text with the errno");
	raw_free(&r);
	fsm_fields_free(&f);
	fsm_buf_free(&b);

	/* -w fs-error, -w shutdown; the filter. */
	ok(fsm_parse_warning("fs-error", &w) == 0 && w == 4, "parse warning fs-error");
	ok(fsm_parse_warning("SHUTDOWN", &w) == 0 && w == 5, "parse warning SHUTDOWN");
	ok(fsm_parse_warning("unknown-4", &w) == 0 && w == 4 &&
	   fsm_parse_warning("fs-errors", &w) < 0, "parse warning unknown-4, not fs-errors");
	{
		struct fsm_filter fl;
		struct fsm_event e = { .warning = 4, .major = 8, .minor = 3 };

		fsm_filter_init(&fl);
		fsm_filter_add_warning(&fl, FS_MSG_WARN_FS_ERROR);
		ok(fsm_filter_event(&fl, &e), "-w fs-error admits an fs-error");
		e.warning = FS_MSG_WARN_SHUTDOWN;
		ok(!fsm_filter_event(&fl, &e), "-w fs-error rejects a shutdown");
		e.warning = FS_MSG_WARN_ENOSPC;
		ok(!fsm_filter_event(&fl, &e), "-w fs-error rejects an enospc");
		fsm_filter_free(&fl);
	}
	ok(fsm_severity_priority(FS_MSG_SEVERITY_ERROR) == LOG_ERR &&
	   fsm_severity_priority(FS_MSG_SEVERITY_CRITICAL) == LOG_CRIT,
	   "syslog priority: fs-error's severity LOG_ERR, shutdown's LOG_CRIT");
}

/* A kernel with five counters: dump, --list, metrics, syslog. */
static void test_fs_error_shutdown_monitor(void)
{
	static const uint64_t counts5[5] = { 4, 17, 0, 3, 1 };
	static const uint64_t lasts5[5] = { 0, TS, 0, TS + 1, TS + 2 };
	static const uint64_t sb = 7;
	struct fsm_fs_list l = { 0 };
	struct fsm_metrics met;
	struct fsm_labels key;
	struct fsm_error err;
	struct capture c;
	struct raw r = { 0 };
	struct fsm_buf b;

	raw_fs_row_n(&r, 254, 16, "ext4", "vdb", test_uuid, counts5, lasts5, NULL,
		     &sb, NULL, 5);
	ok(fsm_fs_list_add(&l, r.buf, r.len, TEST_FAMILY, &err) == 0 && l.n == 1 &&
	   l.v[0].ncounters == 5 && fsm_fs_counter(&l.v[0], 4) &&
	   fsm_fs_counter(&l.v[0], 4)->count == 3 && fsm_fs_counter(&l.v[0], 5) &&
	   fsm_fs_counter(&l.v[0], 5)->last_ns == TS + 2,
	   "dump reply with five counters parsed");
	raw_free(&r);

	cap_init(&c, false);
	fsm_monitor_list(&c.m, &l);
	cap_finish(&c);
	is_str(c.out,
	       "DEVICE  MAJ:MIN  FSTYPE  UUID                                  SB_ID  LABEL  ENOSPC  META-ENOSPC  INODE-ENOSPC  FS-ERROR  SHUTDOWN  DATA-LOST  MOUNTPOINT\n"
	       "vdb     254:16   ext4    " UUID_STR "  7      -           4           17             0         3         1          0  -\n",
	       "--list: five counter columns");
	cap_free(&c);
	cap_init(&c, true);
	fsm_filter_add_warning(&c.f, FS_MSG_WARN_SHUTDOWN);
	fsm_filter_add_warning(&c.f, FS_MSG_WARN_FS_ERROR);
	fsm_monitor_list(&c.m, &l);
	cap_finish(&c);
	has_str(c.out,
		"\"counters\":{\"fs-error\":{\"count\":3,\"last_ns\":\"1796283771123456790\",\"suppressed\":null},"
		"\"shutdown\":{\"count\":1,\"last_ns\":\"1796283771123456791\",\"suppressed\":null}}}\n",
		"--list --json -w shutdown -w fs-error: those two, by number");
	cap_free(&c);

	cap_init(&c, false);
	fsm_metrics_init(&met, RECV, 64);
	c.m.metrics = &met;
	fsm_monitor_seed(&c.m, &l);
	ok(met.n == 5, "metrics seed: a series for each of the five types");
	raw_fs_error_event(&r, 5);	/* 4 missed */
	feed(&c, &r);
	raw_free(&r);
	raw_shutdown_event(&r, 3);	/* 2 missed */
	feed(&c, &r);
	raw_free(&r);
	cap_finish(&c);
	key = lab(254, 16, FS_MSG_WARN_FS_ERROR, "ext4", "vdb", true);
	is_u64(fsm_metrics_find(&met, &key)->count, 5, "metrics: fs-error counter follows COUNT");
	fsm_buf_init(&b);
	fsm_metrics_render(&met, &b);
	has_str(fsm_buf_str(&b),
		"fsmsg_warnings_total{" L_VDB ",warning=\"inode-enospc\"} 0\n"
		"fsmsg_warnings_total{" L_VDB ",warning=\"fs-error\"} 5\n"
		"fsmsg_warnings_total{" L_VDB ",warning=\"shutdown\"} 3\n",
		"metrics: fs-error and shutdown series");
	has_str(fsm_buf_str(&b),
		"fsmsg_last_warning_timestamp_seconds{" L_VDB ",warning=\"shutdown\"} 1796283771.123456791\n",
		"metrics: the latest shutdown's time (the kernel's, newer)");
	check_exposition(fsm_buf_str(&b), "metrics with fs-error and shutdown");
	ok(c.m.missed == 1 + 1, "a gap in fs-error and shutdown counts is missed");
	has_str(fsm_buf_str(&c.log), "3|" TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: error: filesystem error,",
		"syslog: fs-error at LOG_ERR");
	has_str(fsm_buf_str(&c.log), "2|" TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt -: critical: filesystem shut down,",
		"syslog: shutdown at LOG_CRIT");
	has_str(c.err, "missed 1 shutdown warnings on ext4 vdb (254:16)",
		"missed report names the shutdown type");
	fsm_buf_free(&b);
	cap_free(&c);
	fsm_metrics_free(&met);
	fsm_fs_list_free(&l);
}

/* ---- mount points ------------------------------------------------------ */

/* A fake mountinfo: 254:16 mounted twice (listed out of id order), once on
 * a path with a space, a tab, a backslash and a quote, btrfs's anonymous
 * 0:45 by two subvolumes, and lines that do not parse. */
#define MI_VDB1 "60 29 254:16 /sub /mnt/a\\040b\\011c\\134d\"e rw - ext4 /dev/vdb rw\n"
#define MI_VDB0 "30 29 254:16 / /srv rw,relatime shared:1 - ext4 /dev/vdb rw\n"
#define MI_BTRFS "41 29 0:45 /@ /data rw - btrfs /dev/vdc rw\n" \
	"42 29 0:45 /@home /home rw - btrfs /dev/vdc rw\n"
#define MI_JUNK "garbage\n22 1 0:21 / /proc rw - proc proc rw\n"

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (!fp || fputs(text, fp) < 0 || fclose(fp) != 0)
		printf("# cannot write %s\n", path);
}

static void test_mounts(void)
{
	char path[] = "/tmp/fsmsg-unit-mi-XXXXXX";
	struct fsm_mounts t;
	struct fsm_mnts mnt;
	int fd = mkstemp(path);

	if (fd >= 0)
		close(fd);
	write_file(path, MI_VDB1 MI_JUNK MI_VDB0 MI_BTRFS);
	ok(fsm_mounts_init(&t, path) == 0 && !t.loaded, "mounts: init reads nothing yet");
	fsm_mounts_find(&t, 254, 16, 1000000000ULL, &mnt);
	ok(t.loaded && t.n == 5 && mnt.n == 2 && !strcmp(mnt.paths[0], "/srv") &&
	   !strcmp(mnt.paths[1], "/mnt/a b\tc\\d\"e") && !strcmp(mnt.source, "/dev/vdb"),
	   "mounts: both mounts of 254:16 by mount id, unescaped, the junk skipped");
	fsm_mounts_lookup(&t, 0, 45, &mnt);
	ok(mnt.n == 2 && !strcmp(mnt.paths[0], "/data") && !strcmp(mnt.paths[1], "/home") &&
	   !strcmp(mnt.source, "/dev/vdc"), "mounts: btrfs's anonymous 0:45 from field 3");
	fsm_mounts_lookup(&t, 0, 21, &mnt);
	ok(mnt.n == 1 && !strcmp(mnt.paths[0], "/proc"), "mounts: proc too");
	fsm_mounts_lookup(&t, 8, 3, &mnt);
	ok(mnt.n == 0 && !mnt.paths && !mnt.source, "mounts: a device mounted nowhere: none");

	/* Mounted after the table was read: a miss re-reads it, but at most
	 * once a second. */
	write_file(path, MI_VDB0 "70 29 8:3 / /mnt/new rw - xfs /dev/sda3 rw\n");
	fsm_mounts_find(&t, 8, 3, 2000000000ULL, &mnt);
	ok(mnt.n == 1 && !strcmp(mnt.paths[0], "/mnt/new"), "mounts: a miss re-reads the file");
	fsm_mounts_find(&t, 9, 9, 3000000000ULL, &mnt);
	ok(mnt.n == 0, "mounts: still not there");
	write_file(path, MI_VDB0 "71 29 9:9 / /mnt/nine rw - xfs /dev/sdb rw\n");
	fsm_mounts_find(&t, 9, 9, 3500000000ULL, &mnt);
	ok(mnt.n == 0, "mounts: no second read within a second of the last miss");
	fsm_mounts_find(&t, 9, 9, 4000000001ULL, &mnt);
	ok(mnt.n == 1 && !strcmp(mnt.paths[0], "/mnt/nine"), "mounts: read again a second later");

	/* POLLPRI: the mounts changed; the next lookup reads them. */
	write_file(path, "80 29 254:16 / /srv2 rw - ext4 /dev/vdb rw\n");
	fsm_mounts_polled(&t, POLLIN);
	fsm_mounts_find(&t, 254, 16, 4000000002ULL, &mnt);
	ok(mnt.n == 1 && !strcmp(mnt.paths[0], "/srv"), "mounts: POLLIN alone changes nothing");
	fsm_mounts_polled(&t, POLLPRI | POLLERR);
	ok(t.stale, "mounts: POLLPRI marks the table stale");
	fsm_mounts_find(&t, 254, 16, 4000000003ULL, &mnt);
	ok(mnt.n == 1 && !strcmp(mnt.paths[0], "/srv2") && !t.stale,
	   "mounts: re-read after POLLPRI");
	ok(fsm_mounts_watch(&t) >= 0 && t.fd >= 0, "mounts: the file opens for poll()");

	/* A chroot, a container, no /proc: nothing known, nothing wrong. */
	unlink(path);
	fsm_mounts_polled(&t, POLLPRI);
	fsm_mounts_find(&t, 254, 16, 9000000000ULL, &mnt);
	ok(mnt.n == 0 && t.n == 0, "mounts: an unreadable file: no mount points");
	fsm_mounts_free(&t);

	setenv("FSMSG_MOUNTINFO", "/x/mi", 1);
	ok(!strcmp(fsm_mountinfo_path(), "/x/mi"), "mounts: $FSMSG_MOUNTINFO names the file");
	setenv("FSMSG_MOUNTINFO", "", 1);
	ok(!strcmp(fsm_mountinfo_path(), "/proc/self/mountinfo"), "mounts: else /proc/self/mountinfo");
	unsetenv("FSMSG_MOUNTINFO");
}

/* Every output of an event and a --list row, with its mount points. */
static void test_mounts_format(void)
{
	static const char *const two[] = { "/srv", "/mnt/a b\tc\\d\"e" };
	static const char *const one[] = { "/srv" };
	struct raw r = { 0 };
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_buf b;
	struct fsm_fields f;
	char *got;

	fsm_buf_init(&b);
	raw_full_event(&r, FS_MSG_WARN_ENOSPC, 5, 2, "alloc_test");
	parse(&r, &ev, &err);
	ev.mnt = (struct fsm_mnts){ one, 1, "/dev/vdb" };
	fsm_format_event_text(&b, &ev, RECV, false);
	is_str(fsm_buf_str(&b),
	       TS_STR " 254:16 ext4 vdb uuid " UUID_STR " sb 7 mnt /srv: warning: no space left for data,"
	       " uid 1000, pid 123 (alloc_test), count 5 (2 suppressed)\n",
	       "mount point: text ' mnt /srv' before the severity");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b), ",\"label\":null,\"mountpoints\":[\"/srv\"],\"sb_id\":7,",
		"mount point: JSON array after the label");

	ev.mnt = (struct fsm_mnts){ two, 2, "/dev/vdb" };
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b), " sb 7 mnt /srv +1: warning: ",
		"two mount points: text the first and +1");
	fsm_buf_reset(&b);
	fsm_format_event_json(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b), ",\"mountpoints\":[\"/srv\",\"/mnt/a b\\u0009c\\\\d\\\"e\"],",
		"two mount points: JSON both, by mount id, escaped");
	ev.mnt = (struct fsm_mnts){ two + 1, 1, "/dev/vdb" };
	fsm_buf_reset(&b);
	fsm_format_event_text(&b, &ev, RECV, false);
	has_str(fsm_buf_str(&b), " sb 7 mnt /mnt/a\\x20b\\x09c\\\\d\\x22e: warning: ",
		"mount point: text one token, space, tab, backslash and quote escaped");

	fsm_fields_init(&f);
	ev.mnt = (struct fsm_mnts){ two, 2, "/dev/vdb" };
	ok(fsm_journal_event(&f, &ev, RECV, false) == 0, "mount points: journal entry built");
	got = fields_str(&f);
	has_str(got, "MESSAGE=/srv (vdb, ext4, 254:16): no space left for data; alloc_test[123] uid 1000\n",
		"journal: MESSAGE starts with the mount point");
	has_str(got, "FSMSG_UUID=" UUID_STR "\nFSMSG_MOUNTPOINT=/srv\nFSMSG_MOUNTPOINT=/mnt/a b\\x09c\\d\"e\nFSMSG_SB_ID=7\n",
		"journal: one FSMSG_MOUNTPOINT per mount point, after the uuid");
	free(got);
	raw_free(&r);

	/* A missed report: the same mount points, by the same writers. */
	{
		struct fsm_missed ms = {
			.major = 254, .minor = 16, .warning = 2, .missed = 12,
			.fstype = "ext4", .device = "vdb", .has_uuid = true,
			.mnt = { two, 2, "/dev/vdb" },
		};

		memcpy(ms.uuid, test_uuid, 16);
		fsm_buf_reset(&b);
		fsm_format_missed_text(&b, &ms);
		is_str(fsm_buf_str(&b),
		       "fsmsg: missed 12 meta-enospc warnings on ext4 vdb (254:16) mnt /srv +1\n",
		       "missed, text: ' mnt /srv +1' last, as an event has it");
		ms.mnt = (struct fsm_mnts){ two + 1, 1, "/dev/vdb" };
		fsm_buf_reset(&b);
		fsm_format_missed_text(&b, &ms);
		is_str(fsm_buf_str(&b),
		       "fsmsg: missed 12 meta-enospc warnings on ext4 vdb (254:16) mnt /mnt/a\\x20b\\x09c\\\\d\\x22e\n",
		       "missed, text: the mount point one token, escaped");
		ms.mnt = (struct fsm_mnts){ two, 2, "/dev/vdb" };
		fsm_buf_reset(&b);
		fsm_format_missed_json(&b, &ms, TS);
		is_str(fsm_buf_str(&b),
		       "{\"time\":\"2026-12-03T07:42:51Z\",\"event\":\"missed\",\"dev\":\"254:16\","
		       "\"fstype\":\"ext4\",\"device\":\"vdb\",\"uuid\":\"" UUID_STR "\","
		       "\"mountpoints\":[\"/srv\",\"/mnt/a b\\u0009c\\\\d\\\"e\"],"
		       "\"warning\":\"meta-enospc\",\"missed\":12}\n",
		       "missed, JSON: mountpoints after the uuid, every one, escaped");
		ok(fsm_journal_missed(&f, &ms) == 0, "missed, journal: built");
		got = fields_str(&f);
		is_str(got,
		       "MESSAGE=/srv (vdb, ext4, 254:16): missed 12 meta-enospc warnings\n"
		       "MESSAGE_ID=" FSM_MSGID_MISSED "\n"
		       "PRIORITY=3\n" J_ID
		       "FSMSG_WARNING=meta-enospc\nFSMSG_WARNING_ID=2\n"
		       "FSMSG_DEV=254:16\nFSMSG_MAJOR=254\nFSMSG_MINOR=16\n"
		       "FSMSG_DEVICE=vdb\nFSMSG_FSTYPE=ext4\nFSMSG_UUID=" UUID_STR "\n"
		       "FSMSG_MOUNTPOINT=/srv\nFSMSG_MOUNTPOINT=/mnt/a b\\x09c\\d\"e\n"
		       "FSMSG_MISSED=12\n",
		       "missed, journal: MESSAGE starts with the mount point, FSMSG_MOUNTPOINT for each");
		free(got);
		ms.mnt = (struct fsm_mnts){ NULL, 0, NULL };
		ms.device = NULL;
		fsm_journal_missed(&f, &ms);
		got = fields_str(&f);
		has_str(got, "MESSAGE=254:16 (ext4): missed 12 meta-enospc warnings\n",
			"missed, journal: no mount point, no device name: the number first");
		ok(!strstr(got, "FSMSG_MOUNTPOINT="), "missed, journal: no FSMSG_MOUNTPOINT when none");
		free(got);
		fsm_buf_reset(&b);
		fsm_format_missed_json(&b, &ms, TS);
		has_str(fsm_buf_str(&b), ",\"uuid\":\"" UUID_STR "\",\"mountpoints\":null,\"warning\":",
			"missed, JSON: mountpoints null when none");
	}
	fsm_fields_free(&f);
	fsm_buf_free(&b);
}

/* --list and the metrics file, with the fake mountinfo. */
static void test_mounts_list_metrics(void)
{
	char path[] = "/tmp/fsmsg-unit-mi-XXXXXX";
	static const uint32_t cols[] = { 1 };
	struct fsm_mounts t;
	struct fsm_metrics m;
	struct fsm_labels l;
	struct fsm_fs fs[3];
	struct fsm_buf b;
	int fd = mkstemp(path);

	if (fd >= 0)
		close(fd);
	write_file(path, MI_VDB1 MI_VDB0 MI_BTRFS);
	fsm_mounts_init(&t, path);
	fsm_mounts_load(&t);
	fsm_buf_init(&b);
	memset(fs, 0, sizeof(fs));
	fs[0] = (struct fsm_fs){ .major = 0, .minor = 45, .fstype = "btrfs", .device = "vdc" };
	fs[1] = (struct fsm_fs){ .major = 254, .minor = 16, .fstype = "ext4", .device = "vdb" };
	fs[2] = (struct fsm_fs){ .major = 8, .minor = 3, .fstype = "xfs", .device = "sda3" };
	for (size_t i = 0; i < 3; i++)
		fsm_mounts_lookup(&t, fs[i].major, fs[i].minor, &fs[i].mnt);
	fsm_format_fs_table(&b, fs, 3, cols, 1);
	is_str(fsm_buf_str(&b),
	       "DEVICE  MAJ:MIN  FSTYPE  UUID  SB_ID  LABEL  ENOSPC  MOUNTPOINT\n"
	       "vdc     0:45     btrfs   -     -      -           0  /data +1\n"
	       "vdb     254:16   ext4    -     -      -           0  /srv +1\n"
	       "sda3    8:3      xfs     -     -      -           0  -\n",
	       "--list table: MOUNTPOINT last, the first and +N, - for none");
	fsm_buf_reset(&b);
	fsm_format_fs_json(&b, &fs[2], cols, 1);
	has_str(fsm_buf_str(&b), "\"label\":null,\"mountpoints\":null,\"sb_id\":null,",
		"--list JSON: mountpoints null when mounted nowhere visible");
	fsm_buf_reset(&b);
	fsm_format_fs_json(&b, &fs[1], cols, 1);
	has_str(fsm_buf_str(&b), "\"mountpoints\":[\"/srv\",\"/mnt/a b\\u0009c\\\\d\\\"e\"],",
		"--list JSON: every mount point");

	fsm_metrics_init(&m, RECV, 16);
	m.mounts = &t;
	l = lab(254, 16, 2, "ext4", "vdb", true);
	fsm_metrics_observe(&m, &l, 3, TS);
	l = lab(254, 16, 1, "ext4", "vdb", true);
	fsm_metrics_observe(&m, &l, 0, 0);
	l = lab(0, 45, 1, "btrfs", "vdc", false);
	fsm_metrics_observe(&m, &l, 12, TS + 1);
	l = lab(8, 3, 1, "xfs", "sda3", false);
	fsm_metrics_observe(&m, &l, 1, TS + 1);
	fsm_buf_reset(&b);
	fsm_metrics_render(&m, &b);
	has_str(fsm_buf_str(&b),
		"# HELP fsmsg_filesystem_info Where each filesystem with warnings series is mounted, 1 per mount point; device and mountpoint as node_exporter's node_filesystem_* series have them.\n"
		"# TYPE fsmsg_filesystem_info gauge\n"
		"fsmsg_filesystem_info{dev=\"0:45\",device=\"/dev/vdc\",fstype=\"btrfs\",uuid=\"\",mountpoint=\"/data\"} 1\n"
		"fsmsg_filesystem_info{dev=\"0:45\",device=\"/dev/vdc\",fstype=\"btrfs\",uuid=\"\",mountpoint=\"/home\"} 1\n"
		"fsmsg_filesystem_info{dev=\"254:16\",device=\"/dev/vdb\",fstype=\"ext4\",uuid=\"" UUID_STR "\",mountpoint=\"/srv\"} 1\n"
		"fsmsg_filesystem_info{dev=\"254:16\",device=\"/dev/vdb\",fstype=\"ext4\",uuid=\"" UUID_STR "\",mountpoint=\"/mnt/a b\\\\x09c\\\\d\\\"e\"} 1\n"
		"# HELP fsmsg_missed_warnings_total ",
		"metrics: one info series per filesystem and mount point, none for 8:3");
	check_exposition(fsm_buf_str(&b), "metrics with info series");
	fsm_metrics_free(&m);
	fsm_buf_free(&b);
	fsm_mounts_free(&t);
	unlink(path);
}

int main(void)
{
	/* Output must not depend on the machine's zone or locale. */
	setenv("TZ", "Asia/Kolkata", 1);
	printf("TAP version 13\n");

	test_full_event();
	test_libnl_built();
	test_minimal_event();
	test_unknown_warning();
	test_missing_required();
	test_unknown_attrs();
	test_truncated();
	test_oversized();
	test_uint();
	test_rejected();
	test_not_an_event();
	test_escaping();
	test_time();
	test_writers();
	test_buf();
	test_accounting();
	test_dump_parse();
	test_list();
	test_filters();
	test_mountinfo();
	test_mounts();
	test_mounts_format();
	test_mounts_list_metrics();
	test_resolve();
	test_monitor_text();
	test_monitor_json_overrun();
	test_monitor_filter_count();
	test_dump_suppressed();
	test_promcheck();
	test_metrics_render();
	test_metrics_observe();
	test_metrics_escaping();
	test_metrics_monitor();
	test_metrics_gone();
	test_metrics_one_table();
	test_textfile();
	test_journal();
	test_monitor_journal();
	test_receive_time_format();
	test_receive_time_monitor();
	test_severity();
	test_label();
	test_list_label();
	test_summary();
	test_fs_error_shutdown_parse();
	test_fs_error_shutdown_format();
	test_data_lost();
	test_fs_error_shutdown_monitor();

	printf("1..%d\n", tests);
	printf("# %d passed, %d failed\n", tests - failed, failed);
	return failed ? 1 : 0;
}
