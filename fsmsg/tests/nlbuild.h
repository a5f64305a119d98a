/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hand-built netlink messages for the tests and the seed corpus: every
 * byte is under the test's control, so malformed messages (truncated,
 * oversized, misdeclared lengths) are as easy to make as valid ones.
 */
#ifndef FSMSG_NLBUILD_H
#define FSMSG_NLBUILD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/fs_msg.h>

/* The family id the tests pretend the kernel assigned. */
#define TEST_FAMILY 0x1c

struct raw {
	unsigned char *buf;
	size_t len;
	size_t cap;
	size_t msg;		/* offset of the message being built */
	size_t nest;		/* offset of the open nest, 0: none */
};

static inline void raw_put(struct raw *r, const void *p, size_t n)
{
	if (r->len + n > r->cap) {
		size_t cap = r->cap ? r->cap : 256;

		while (cap < r->len + n)
			cap *= 2;
		r->buf = realloc(r->buf, cap);
		if (!r->buf) {
			fputs("nlbuild: out of memory\n", stderr);
			abort();
		}
		memset(r->buf + r->cap, 0, cap - r->cap);
		r->cap = cap;
	}
	if (n)
		memcpy(r->buf + r->len, p, n);
	r->len += n;
}

static inline void raw_pad(struct raw *r)
{
	static const unsigned char zero[4];

	raw_put(r, zero, NLMSG_ALIGN(r->len) - r->len);
}

static inline void raw_free(struct raw *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/* Start a message (appended after any previous ones). */
static inline void raw_begin_type(struct raw *r, uint16_t type, uint8_t cmd,
				  uint16_t flags)
{
	struct nlmsghdr nlh = {
		.nlmsg_type = type, .nlmsg_flags = flags, .nlmsg_seq = 1,
	};
	struct genlmsghdr gh = { .cmd = cmd, .version = FS_MSG_FAMILY_VERSION };

	raw_pad(r);
	r->msg = r->len;
	raw_put(r, &nlh, sizeof(nlh));
	raw_put(r, &gh, sizeof(gh));
}

static inline void raw_begin(struct raw *r, uint8_t cmd)
{
	raw_begin_type(r, TEST_FAMILY, cmd, 0);
}

/* Set nlmsg_len to what was built (use raw_set_len to lie). */
static inline void raw_end(struct raw *r)
{
	uint32_t len = (uint32_t)(r->len - r->msg);

	memcpy(r->buf + r->msg, &len, sizeof(len));
}

static inline void raw_set_len(struct raw *r, uint32_t len)
{
	memcpy(r->buf + r->msg, &len, sizeof(len));
}

/* An attribute whose header claims @declared payload bytes but @n follow. */
static inline void raw_attr_lie(struct raw *r, uint16_t type, const void *p,
				size_t n, size_t declared)
{
	struct nlattr nla = {
		.nla_len = (uint16_t)(NLA_HDRLEN + declared), .nla_type = type,
	};

	raw_put(r, &nla, sizeof(nla));
	raw_put(r, p, n);
	raw_pad(r);
}

static inline void raw_attr(struct raw *r, uint16_t type, const void *p,
			    size_t n)
{
	raw_attr_lie(r, type, p, n, n);
}

static inline void raw_u32(struct raw *r, uint16_t type, uint32_t v)
{
	raw_attr(r, type, &v, sizeof(v));
}

static inline void raw_u64(struct raw *r, uint16_t type, uint64_t v)
{
	raw_attr(r, type, &v, sizeof(v));
}

/* As the kernel's nla_put_uint(): 4 bytes when @v fits, else 8. */
static inline void raw_uint(struct raw *r, uint16_t type, uint64_t v)
{
	if (v <= UINT32_MAX)
		raw_u32(r, type, (uint32_t)v);
	else
		raw_u64(r, type, v);
}

static inline void raw_str(struct raw *r, uint16_t type, const char *s)
{
	raw_attr(r, type, s, strlen(s) + 1);
}

static inline void raw_nest_begin(struct raw *r, uint16_t type)
{
	struct nlattr nla = { .nla_len = 0, .nla_type = type };

	r->nest = r->len;
	raw_put(r, &nla, sizeof(nla));
}

static inline void raw_nest_end(struct raw *r)
{
	uint16_t len = (uint16_t)(r->len - r->nest);

	memcpy(r->buf + r->nest, &len, sizeof(len));
	r->nest = 0;
}

static const uint8_t test_uuid[16] = {
	0x0c, 0x5f, 0x3a, 0x9e, 0x12, 0x34, 0x4b, 0xcd,
	0x8e, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
};

/* The superblock id of the test filesystem (the kernel counts from 1). */
#define TEST_SB_ID 7
/* Its CLOCK_BOOTTIME: 5 days since boot, past 2^32 ns, so 8 bytes. */
#define TEST_BOOTTIME 432000123456789ULL

/* A warning's attributes as the kernel lays them out; no raw_end(). */
static inline void raw_full_event_attrs(struct raw *r, uint32_t warning,
					uint64_t count, uint64_t suppressed,
					const char *comm, uint32_t severity)
{
	raw_begin(r, FS_MSG_CMD_WARNING);
	raw_u32(r, FS_MSG_A_WARNING, warning);
	raw_u32(r, FS_MSG_A_DEV_MAJOR, 254);
	raw_u32(r, FS_MSG_A_DEV_MINOR, 16);
	raw_uint(r, FS_MSG_A_CAUSED_ID, 1000);
	raw_str(r, FS_MSG_A_FSTYPE, "ext4");
	raw_str(r, FS_MSG_A_DEVICE, "vdb");
	raw_attr(r, FS_MSG_A_UUID, test_uuid, sizeof(test_uuid));
	raw_u32(r, FS_MSG_A_PID, 123);
	raw_str(r, FS_MSG_A_COMM, comm);
	raw_uint(r, FS_MSG_A_TIMESTAMP, 1796283771123456789ULL);
	raw_uint(r, FS_MSG_A_COUNT, count);
	raw_uint(r, FS_MSG_A_SUPPRESSED, suppressed);
	raw_uint(r, FS_MSG_A_SB_ID, TEST_SB_ID);
	raw_uint(r, FS_MSG_A_BOOTTIME, TEST_BOOTTIME);
	raw_u32(r, FS_MSG_A_SEVERITY, severity);
}

/* A warning with every attribute, laid out as the kernel would. */
static inline void raw_full_event(struct raw *r, uint32_t warning,
				  uint64_t count, uint64_t suppressed,
				  const char *comm)
{
	raw_full_event_attrs(r, warning, count, suppressed, comm,
			     FS_MSG_SEVERITY_WARNING);
	raw_end(r);
}

/* An fs-error with every detail: EUCLEAN in ext4_lookup, line 1234. */
static inline void raw_fs_error_event(struct raw *r, uint64_t count)
{
	raw_full_event_attrs(r, FS_MSG_WARN_FS_ERROR, count, 0, "touch",
			     FS_MSG_SEVERITY_ERROR);
	raw_u32(r, FS_MSG_A_ERRNO, 117);
	raw_str(r, FS_MSG_A_FUNCTION, "ext4_lookup");
	raw_u32(r, FS_MSG_A_LINE, 1234);
	raw_uint(r, FS_MSG_A_INODE, 12);
	raw_uint(r, FS_MSG_A_BLOCK, 0);
	raw_end(r);
}

/* A shutdown after an error: reason error, fs_flags 0, EIO. */
static inline void raw_shutdown_event(struct raw *r, uint64_t count)
{
	raw_full_event_attrs(r, FS_MSG_WARN_SHUTDOWN, count, 0, "kworker/1:2",
			     FS_MSG_SEVERITY_CRITICAL);
	raw_u32(r, FS_MSG_A_REASON, FS_MSG_SHUTDOWN_REASON_ERROR);
	raw_u32(r, FS_MSG_A_FS_FLAGS, 0);
	raw_u32(r, FS_MSG_A_ERRNO, 5);
	raw_end(r);
}

/*
 * Data lost at writeback, as the kernel sends it: no task attributes
 * (writeback is not the task that wrote), ENOSPC from a full thin pool,
 * inode 13, the first 4 KiB.
 */
static inline void raw_data_lost_event(struct raw *r, uint64_t count)
{
	raw_begin(r, FS_MSG_CMD_WARNING);
	raw_u32(r, FS_MSG_A_WARNING, FS_MSG_WARN_DATA_LOST);
	raw_u32(r, FS_MSG_A_DEV_MAJOR, 254);
	raw_u32(r, FS_MSG_A_DEV_MINOR, 16);
	raw_str(r, FS_MSG_A_FSTYPE, "ext4");
	raw_str(r, FS_MSG_A_DEVICE, "vdb");
	raw_attr(r, FS_MSG_A_UUID, test_uuid, sizeof(test_uuid));
	raw_uint(r, FS_MSG_A_TIMESTAMP, 1796283771123456789ULL);
	raw_uint(r, FS_MSG_A_COUNT, count);
	raw_uint(r, FS_MSG_A_SUPPRESSED, 0);
	raw_uint(r, FS_MSG_A_SB_ID, TEST_SB_ID);
	raw_uint(r, FS_MSG_A_BOOTTIME, TEST_BOOTTIME);
	raw_u32(r, FS_MSG_A_SEVERITY, FS_MSG_SEVERITY_ERROR);
	raw_u32(r, FS_MSG_A_ERRNO, 28);
	raw_uint(r, FS_MSG_A_INODE, 13);
	raw_uint(r, FS_MSG_A_OFFSET, 0);
	raw_uint(r, FS_MSG_A_LENGTH, 4096);
	raw_end(r);
}

/* A summary of the test filesystem: no task attributes; @label may be NULL. */
static inline void raw_summary(struct raw *r, uint32_t warning, uint64_t count,
			       uint64_t suppressed, uint32_t severity,
			       const char *label)
{
	raw_begin(r, FS_MSG_CMD_SUMMARY);
	raw_u32(r, FS_MSG_A_WARNING, warning);
	raw_u32(r, FS_MSG_A_SEVERITY, severity);
	raw_u32(r, FS_MSG_A_DEV_MAJOR, 254);
	raw_u32(r, FS_MSG_A_DEV_MINOR, 16);
	raw_uint(r, FS_MSG_A_SB_ID, TEST_SB_ID);
	raw_str(r, FS_MSG_A_FSTYPE, "ext4");
	raw_str(r, FS_MSG_A_DEVICE, "vdb");
	raw_attr(r, FS_MSG_A_UUID, test_uuid, sizeof(test_uuid));
	if (label)
		raw_str(r, FS_MSG_A_LABEL, label);
	raw_uint(r, FS_MSG_A_TIMESTAMP, 1796283772000000000ULL);
	raw_uint(r, FS_MSG_A_BOOTTIME, TEST_BOOTTIME + 1);
	raw_uint(r, FS_MSG_A_COUNT, count);
	raw_uint(r, FS_MSG_A_SUPPRESSED, suppressed);
	raw_end(r);
}

/*
 * One dump reply: a filesystem with @ntypes counters, of types 1 to
 * @ntypes; @supp, the warnings held back since the last message, may be
 * NULL (not sent); @sb_id too.
 */
static inline void raw_fs_row_n(struct raw *r, uint32_t major, uint32_t minor,
				const char *fstype, const char *device,
				const uint8_t *uuid, const uint64_t *counts,
				const uint64_t *lasts, const uint64_t *supp,
				const uint64_t *sb_id, const char *label,
				uint32_t ntypes)
{
	raw_begin_type(r, TEST_FAMILY, FS_MSG_CMD_FS_GET, NLM_F_MULTI);
	raw_u32(r, FS_MSG_A_DEV_MAJOR, major);
	raw_u32(r, FS_MSG_A_DEV_MINOR, minor);
	raw_str(r, FS_MSG_A_FSTYPE, fstype);
	raw_str(r, FS_MSG_A_DEVICE, device);
	if (uuid)
		raw_attr(r, FS_MSG_A_UUID, uuid, 16);
	for (uint32_t w = 0; w < ntypes; w++) {
		raw_nest_begin(r, FS_MSG_A_COUNTER | NLA_F_NESTED);
		raw_u32(r, FS_MSG_A_COUNTER_WARNING, w + 1);
		raw_uint(r, FS_MSG_A_COUNTER_COUNT, counts[w]);
		raw_uint(r, FS_MSG_A_COUNTER_LAST, lasts[w]);
		if (supp)
			raw_uint(r, FS_MSG_A_COUNTER_SUPPRESSED, supp[w]);
		raw_nest_end(r);
	}
	if (sb_id)
		raw_uint(r, FS_MSG_A_SB_ID, *sb_id);
	if (label)
		raw_str(r, FS_MSG_A_LABEL, label);
	raw_end(r);
}

/* The same with the three counters of a kernel before fs-error. */
static inline void raw_fs_row_label(struct raw *r, uint32_t major,
				    uint32_t minor, const char *fstype,
				    const char *device, const uint8_t *uuid,
				    const uint64_t counts[3],
				    const uint64_t lasts[3],
				    const uint64_t *supp, const uint64_t *sb_id,
				    const char *label)
{
	raw_fs_row_n(r, major, minor, fstype, device, uuid, counts, lasts,
		     supp, sb_id, label, 3);
}

static inline void raw_fs_row_full(struct raw *r, uint32_t major,
				   uint32_t minor, const char *fstype,
				   const char *device, const uint8_t *uuid,
				   const uint64_t counts[3],
				   const uint64_t lasts[3],
				   const uint64_t *supp, const uint64_t *sb_id)
{
	raw_fs_row_label(r, major, minor, fstype, device, uuid, counts, lasts,
			 supp, sb_id, NULL);
}

/* As the kernel sends them: every row has an SB_ID, here @minor. */
static inline void raw_fs_row_supp(struct raw *r, uint32_t major,
				   uint32_t minor, const char *fstype,
				   const char *device, const uint8_t *uuid,
				   const uint64_t counts[3],
				   const uint64_t lasts[3],
				   const uint64_t *supp)
{
	uint64_t sb_id = minor;

	raw_fs_row_full(r, major, minor, fstype, device, uuid, counts, lasts,
			supp, &sb_id);
}

static inline void raw_fs_row(struct raw *r, uint32_t major, uint32_t minor,
			      const char *fstype, const char *device,
			      const uint8_t *uuid, const uint64_t counts[3],
			      const uint64_t lasts[3])
{
	raw_fs_row_supp(r, major, minor, fstype, device, uuid, counts, lasts,
			NULL);
}

#endif
