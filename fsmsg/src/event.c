// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Parsing and validation of FS_MSG generic netlink messages.
 *
 * The attribute walk is done here rather than with nla_parse(): libnl's
 * nla_parse() silently stops at a truncated attribute and does not say
 * which attribute broke the policy, and the daemon has to report both.
 * Validation still follows a struct nla_policy table per message kind.
 */
#include "event.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/attr.h>

/*
 * The kernel's NLA_UINT (nla_put_uint()): 4 bytes when the value fits in
 * 32 bits, else 8. libnl 3.7 has no such type; the walk below is ours, so
 * a private number past libnl's types marks it in the policy tables.
 */
#define FSM_NLA_UINT (NLA_TYPE_MAX + 1)

static const struct nla_policy event_policy[FS_MSG_A_MAX + 1] = {
	[FS_MSG_A_WARNING]	= { .type = NLA_U32, .maxlen = 4 },
	[FS_MSG_A_DEV_MAJOR]	= { .type = NLA_U32, .maxlen = 4 },
	[FS_MSG_A_DEV_MINOR]	= { .type = NLA_U32, .maxlen = 4 },
	[FS_MSG_A_CAUSED_ID]	= { .type = FSM_NLA_UINT },
	[FS_MSG_A_FSTYPE]	= { .type = NLA_STRING, .maxlen = FSM_FSTYPE_MAX },
	[FS_MSG_A_DEVICE]	= { .type = NLA_STRING, .maxlen = FSM_DEVICE_MAX },
	[FS_MSG_A_UUID]		= { .type = NLA_UNSPEC, .minlen = FSM_UUID_LEN,
				    .maxlen = FSM_UUID_LEN },
	[FS_MSG_A_PID]		= { .type = NLA_U32, .maxlen = 4 },
	[FS_MSG_A_COMM]		= { .type = NLA_STRING, .maxlen = FSM_COMM_MAX },
	[FS_MSG_A_TIMESTAMP]	= { .type = FSM_NLA_UINT },
	[FS_MSG_A_COUNT]	= { .type = FSM_NLA_UINT },
	[FS_MSG_A_SUPPRESSED]	= { .type = FSM_NLA_UINT },
	[FS_MSG_A_COUNTER]	= { .type = NLA_NESTED },
	[FS_MSG_A_SB_ID]	= { .type = FSM_NLA_UINT },
	[FS_MSG_A_BOOTTIME]	= { .type = FSM_NLA_UINT },
	[FS_MSG_A_SEVERITY]	= { .type = NLA_U32, .maxlen = 4 },
	[FS_MSG_A_LABEL]	= { .type = NLA_STRING, .maxlen = FSM_LABEL_MAX },
	[FS_MSG_A_ERRNO]	= { .type = NLA_U32, .maxlen = 4 },
	[FS_MSG_A_FUNCTION]	= { .type = NLA_STRING, .maxlen = FSM_FUNCTION_MAX },
	[FS_MSG_A_LINE]		= { .type = NLA_U32, .maxlen = 4 },
	[FS_MSG_A_INODE]	= { .type = FSM_NLA_UINT },
	[FS_MSG_A_BLOCK]	= { .type = FSM_NLA_UINT },
	[FS_MSG_A_REASON]	= { .type = NLA_U32, .maxlen = 4 },
	[FS_MSG_A_FS_FLAGS]	= { .type = NLA_U32, .maxlen = 4 },
	[FS_MSG_A_OFFSET]	= { .type = FSM_NLA_UINT },
	[FS_MSG_A_LENGTH]	= { .type = FSM_NLA_UINT },
};

static const struct nla_policy counter_policy[FS_MSG_A_COUNTER_MAX + 1] = {
	[FS_MSG_A_COUNTER_WARNING]	= { .type = NLA_U32, .maxlen = 4 },
	[FS_MSG_A_COUNTER_COUNT]	= { .type = FSM_NLA_UINT },
	[FS_MSG_A_COUNTER_LAST]		= { .type = FSM_NLA_UINT },
	[FS_MSG_A_COUNTER_SUPPRESSED]	= { .type = FSM_NLA_UINT },
};

static const char *const attr_names[FS_MSG_A_MAX + 1] = {
	[FS_MSG_A_WARNING] = "WARNING",
	[FS_MSG_A_DEV_MAJOR] = "DEV_MAJOR",
	[FS_MSG_A_DEV_MINOR] = "DEV_MINOR",
	[FS_MSG_A_CAUSED_ID] = "CAUSED_ID",
	[FS_MSG_A_FSTYPE] = "FSTYPE",
	[FS_MSG_A_DEVICE] = "DEVICE",
	[FS_MSG_A_UUID] = "UUID",
	[FS_MSG_A_PID] = "PID",
	[FS_MSG_A_COMM] = "COMM",
	[FS_MSG_A_TIMESTAMP] = "TIMESTAMP",
	[FS_MSG_A_COUNT] = "COUNT",
	[FS_MSG_A_SUPPRESSED] = "SUPPRESSED",
	[FS_MSG_A_COUNTER] = "COUNTER",
	[FS_MSG_A_SB_ID] = "SB_ID",
	[FS_MSG_A_BOOTTIME] = "BOOTTIME",
	[FS_MSG_A_SEVERITY] = "SEVERITY",
	[FS_MSG_A_LABEL] = "LABEL",
	[FS_MSG_A_ERRNO] = "ERRNO",
	[FS_MSG_A_FUNCTION] = "FUNCTION",
	[FS_MSG_A_LINE] = "LINE",
	[FS_MSG_A_INODE] = "INODE",
	[FS_MSG_A_BLOCK] = "BLOCK",
	[FS_MSG_A_REASON] = "REASON",
	[FS_MSG_A_FS_FLAGS] = "FS_FLAGS",
	[FS_MSG_A_OFFSET] = "OFFSET",
	[FS_MSG_A_LENGTH] = "LENGTH",
};

static const char *const counter_names[FS_MSG_A_COUNTER_MAX + 1] = {
	[FS_MSG_A_COUNTER_WARNING] = "COUNTER_WARNING",
	[FS_MSG_A_COUNTER_COUNT] = "COUNTER_COUNT",
	[FS_MSG_A_COUNTER_LAST] = "COUNTER_LAST",
	[FS_MSG_A_COUNTER_SUPPRESSED] = "COUNTER_SUPPRESSED",
};

/* A set of attributes: the policy to apply and a name per type. */
struct attr_space {
	int maxtype;
	const struct nla_policy *policy;
	const char *const *names;
};

static const struct attr_space event_space = {
	FS_MSG_A_MAX, event_policy, attr_names,
};
static const struct attr_space counter_space = {
	FS_MSG_A_COUNTER_MAX, counter_policy, counter_names,
};

/* A validated attribute: where its payload is and how long it is. */
struct attr {
	const unsigned char *data;
	uint16_t len;
	bool present;
};

static int fail(struct fsm_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct fsm_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return FSM_PARSE_INVALID;
}

static const char *attr_name(const struct attr_space *sp, int type)
{
	if (type >= 0 && type <= sp->maxtype && sp->names[type])
		return sp->names[type];
	return "unknown";
}

static unsigned int policy_minlen(const struct nla_policy *p)
{
	if (p->minlen)
		return p->minlen;
	switch (p->type) {
	case NLA_U32:
		return 4;
	case NLA_U64:
		return 8;
	case NLA_STRING:
		return 1;
	default:
		return 0;
	}
}

static int validate(const struct attr_space *sp, int type,
		    const unsigned char *data, unsigned int len,
		    struct fsm_error *err)
{
	const struct nla_policy *p = &sp->policy[type];
	unsigned int min = policy_minlen(p);

	if (p->type == FSM_NLA_UINT) {
		if (len != 4 && len != 8)
			return fail(err, "attribute %s (%d) has invalid length %u: an unsigned integer is 4 or 8 bytes",
				    attr_name(sp, type), type, len);
		return 0;
	}
	if (len < min)
		return fail(err, "attribute %s (%d) is too short: %u bytes, needs %u",
			    attr_name(sp, type), type, len, min);
	if (p->maxlen && len > p->maxlen)
		return fail(err, "attribute %s (%d) is too long: %u bytes, at most %u",
			    attr_name(sp, type), type, len, p->maxlen);
	if (p->type == NLA_STRING && data[len - 1] != '\0')
		return fail(err, "attribute %s (%d) is not a NUL-terminated string",
			    attr_name(sp, type), type);
	return 0;
}

/*
 * Walk the attribute stream at @head, validating every attribute whose
 * type the space knows and recording the last one of each type in @tb.
 * Types beyond maxtype (from a newer kernel) are skipped, as the kernel's
 * own parser does. A header or payload running past @len is an error, so
 * is trailing garbage shorter than an attribute header.
 */
static int walk(const struct attr_space *sp, const unsigned char *head,
		size_t len, struct attr *tb, struct fsm_error *err)
{
	size_t off = 0;

	memset(tb, 0, sizeof(*tb) * (size_t)(sp->maxtype + 1));
	while (off < len) {
		struct nlattr nla;
		size_t rem = len - off, step;
		int type;

		if (rem < NLA_HDRLEN)
			return fail(err, "truncated attribute header (%zu trailing bytes)",
				    rem);
		memcpy(&nla, head + off, sizeof(nla));
		type = nla.nla_type & NLA_TYPE_MASK;
		if (nla.nla_len < NLA_HDRLEN)
			return fail(err, "attribute %s (%d) has invalid length %u",
				    attr_name(sp, type), type, nla.nla_len);
		if (nla.nla_len > rem)
			return fail(err, "attribute %s (%d) is truncated: length %u, %zu bytes left",
				    attr_name(sp, type), type, nla.nla_len, rem);
		if (type <= sp->maxtype) {
			const unsigned char *data = head + off + NLA_HDRLEN;
			unsigned int plen = nla.nla_len - NLA_HDRLEN;

			if (validate(sp, type, data, plen, err) < 0)
				return FSM_PARSE_INVALID;
			tb[type].data = data;
			tb[type].len = (uint16_t)plen;
			tb[type].present = true;
		}
		/* The final attribute's padding may be missing. */
		step = NLA_ALIGN((size_t)nla.nla_len);
		off += step < rem ? step : rem;
	}
	return 0;
}

/* memcpy: attribute payloads are only 4-byte aligned. */
static uint32_t get_u32(const struct attr *a)
{
	uint32_t v;

	memcpy(&v, a->data, sizeof(v));
	return v;
}

/* An NLA_UINT, validated to be 4 or 8 bytes. */
static uint64_t get_uint(const struct attr *a)
{
	uint64_t v;

	if (a->len == 4)
		return get_u32(a);
	memcpy(&v, a->data, sizeof(v));
	return v;
}

/*
 * Common header checks. Returns FSM_PARSE_OK with the attribute stream in
 * @attrs and @alen, or IGNORED/INVALID.
 */
static int check_headers(const void *buf, size_t buflen, int family,
			 uint8_t want_cmd, uint8_t also_cmd,
			 const unsigned char **attrs, size_t *alen,
			 uint8_t *cmd, struct fsm_error *err)
{
	struct nlmsghdr nlh;
	struct genlmsghdr gh;
	const unsigned char *p = buf;

	err->msg[0] = '\0';
	if (!buf || buflen < NLMSG_HDRLEN)
		return fail(err, "message too short: %zu bytes", buf ? buflen : 0);
	memcpy(&nlh, p, sizeof(nlh));
	if (nlh.nlmsg_len < NLMSG_HDRLEN || nlh.nlmsg_len > buflen)
		return fail(err, "truncated message: nlmsg_len %u, %zu bytes received",
			    nlh.nlmsg_len, buflen);
	if (nlh.nlmsg_type < NLMSG_MIN_TYPE) {
		snprintf(err->msg, sizeof(err->msg),
			 "netlink control message type %u", nlh.nlmsg_type);
		return FSM_PARSE_IGNORED;
	}
	if (family > 0 && nlh.nlmsg_type != family) {
		snprintf(err->msg, sizeof(err->msg),
			 "message type %u is not the FS_MSG family (%d)",
			 nlh.nlmsg_type, family);
		return FSM_PARSE_IGNORED;
	}
	if (nlh.nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return fail(err, "no generic netlink header: nlmsg_len %u",
			    nlh.nlmsg_len);
	memcpy(&gh, p + NLMSG_HDRLEN, sizeof(gh));
	if (gh.cmd != want_cmd && (!also_cmd || gh.cmd != also_cmd)) {
		/* A newer kernel may multicast other commands: not an error. */
		snprintf(err->msg, sizeof(err->msg),
			 "command %u, expected %u", gh.cmd, want_cmd);
		return FSM_PARSE_IGNORED;
	}
	*attrs = p + NLMSG_HDRLEN + GENL_HDRLEN;
	*cmd = gh.cmd;
	*alen = nlh.nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	return FSM_PARSE_OK;
}

static int require(const struct attr_space *sp, const struct attr *tb,
		   const int *types, size_t n, struct fsm_error *err)
{
	char list[128] = "";
	size_t used = 0, missing = 0;

	for (size_t i = 0; i < n; i++) {
		int r;

		if (tb[types[i]].present)
			continue;
		r = snprintf(list + used, sizeof(list) - used, "%s%s (%d)",
			     missing ? ", " : "", attr_name(sp, types[i]), types[i]);
		if (r > 0 && (size_t)r < sizeof(list) - used)
			used += (size_t)r;
		missing++;
	}
	if (!missing)
		return 0;
	return fail(err, "missing required attribute%s %s",
		    missing > 1 ? "s" : "", list);
}

int fsm_event_parse(const void *buf, size_t buflen, int family,
		    struct fsm_event *ev, struct fsm_error *err)
{
	static const int required[] = {
		FS_MSG_A_WARNING, FS_MSG_A_DEV_MAJOR, FS_MSG_A_DEV_MINOR,
		FS_MSG_A_COUNT,
	};
	struct attr tb[FS_MSG_A_MAX + 1];
	const unsigned char *attrs = NULL;
	size_t alen = 0;
	uint8_t cmd = 0;
	int ret;

	memset(ev, 0, sizeof(*ev));
	ret = check_headers(buf, buflen, family, FS_MSG_CMD_WARNING,
			    FS_MSG_CMD_SUMMARY, &attrs, &alen, &cmd, err);
	if (ret != FSM_PARSE_OK)
		return ret;
	ev->summary = cmd == FS_MSG_CMD_SUMMARY;
	if (walk(&event_space, attrs, alen, tb, err) < 0)
		return FSM_PARSE_INVALID;
	if (require(&event_space, tb, required,
		    sizeof(required) / sizeof(required[0]), err) < 0)
		return FSM_PARSE_INVALID;

	ev->warning = get_u32(&tb[FS_MSG_A_WARNING]);
	if (ev->warning == FS_MSG_WARN_NONE)
		return fail(err, "attribute WARNING (%d) is 0, which is not a warning",
			    FS_MSG_A_WARNING);
	ev->major = get_u32(&tb[FS_MSG_A_DEV_MAJOR]);
	ev->minor = get_u32(&tb[FS_MSG_A_DEV_MINOR]);
	ev->count = get_uint(&tb[FS_MSG_A_COUNT]);

	if ((ev->has_uid = tb[FS_MSG_A_CAUSED_ID].present))
		ev->uid = get_uint(&tb[FS_MSG_A_CAUSED_ID]);
	if ((ev->has_pid = tb[FS_MSG_A_PID].present))
		ev->pid = get_u32(&tb[FS_MSG_A_PID]);
	if ((ev->has_timestamp = tb[FS_MSG_A_TIMESTAMP].present))
		ev->timestamp_ns = get_uint(&tb[FS_MSG_A_TIMESTAMP]);
	if ((ev->has_suppressed = tb[FS_MSG_A_SUPPRESSED].present))
		ev->suppressed = get_uint(&tb[FS_MSG_A_SUPPRESSED]);
	if ((ev->has_sb_id = tb[FS_MSG_A_SB_ID].present))
		ev->sb_id = get_uint(&tb[FS_MSG_A_SB_ID]);
	if ((ev->has_boottime = tb[FS_MSG_A_BOOTTIME].present))
		ev->boottime_ns = get_uint(&tb[FS_MSG_A_BOOTTIME]);
	ev->severity = FS_MSG_SEVERITY_WARNING;
	if ((ev->has_severity = tb[FS_MSG_A_SEVERITY].present))
		ev->severity = get_u32(&tb[FS_MSG_A_SEVERITY]);
	if ((ev->has_uuid = tb[FS_MSG_A_UUID].present))
		memcpy(ev->uuid, tb[FS_MSG_A_UUID].data, FSM_UUID_LEN);
	if (tb[FS_MSG_A_LABEL].present)
		ev->label = (const char *)tb[FS_MSG_A_LABEL].data;
	if (tb[FS_MSG_A_FSTYPE].present)
		ev->fstype = (const char *)tb[FS_MSG_A_FSTYPE].data;
	if (tb[FS_MSG_A_DEVICE].present)
		ev->device = (const char *)tb[FS_MSG_A_DEVICE].data;
	if (tb[FS_MSG_A_COMM].present)
		ev->comm = (const char *)tb[FS_MSG_A_COMM].data;

	if ((ev->has_errno = tb[FS_MSG_A_ERRNO].present))
		ev->error = get_u32(&tb[FS_MSG_A_ERRNO]);
	if ((ev->has_line = tb[FS_MSG_A_LINE].present))
		ev->line = get_u32(&tb[FS_MSG_A_LINE]);
	if ((ev->has_inode = tb[FS_MSG_A_INODE].present))
		ev->inode = get_uint(&tb[FS_MSG_A_INODE]);
	if ((ev->has_block = tb[FS_MSG_A_BLOCK].present))
		ev->block = get_uint(&tb[FS_MSG_A_BLOCK]);
	if ((ev->has_reason = tb[FS_MSG_A_REASON].present))
		ev->reason = get_u32(&tb[FS_MSG_A_REASON]);
	if ((ev->has_fs_flags = tb[FS_MSG_A_FS_FLAGS].present))
		ev->fs_flags = get_u32(&tb[FS_MSG_A_FS_FLAGS]);
	if ((ev->has_offset = tb[FS_MSG_A_OFFSET].present))
		ev->offset = get_uint(&tb[FS_MSG_A_OFFSET]);
	if ((ev->has_length = tb[FS_MSG_A_LENGTH].present))
		ev->length = get_uint(&tb[FS_MSG_A_LENGTH]);
	if (tb[FS_MSG_A_FUNCTION].present)
		ev->function = (const char *)tb[FS_MSG_A_FUNCTION].data;
	return FSM_PARSE_OK;
}

static int parse_counter(const struct attr *nest, struct fsm_fs *fs,
			 struct fsm_error *err)
{
	static const int required[] = {
		FS_MSG_A_COUNTER_WARNING, FS_MSG_A_COUNTER_COUNT,
	};
	struct attr tb[FS_MSG_A_COUNTER_MAX + 1];
	struct fsm_counter c = { 0 };
	struct fsm_error inner;
	size_t i;

	if (walk(&counter_space, nest->data, nest->len, tb, &inner) < 0 ||
	    require(&counter_space, tb, required,
		    sizeof(required) / sizeof(required[0]), &inner) < 0)
		return fail(err, "attribute COUNTER (%d): %s", FS_MSG_A_COUNTER,
			    inner.msg);

	c.warning = get_u32(&tb[FS_MSG_A_COUNTER_WARNING]);
	c.count = get_uint(&tb[FS_MSG_A_COUNTER_COUNT]);
	if ((c.has_last = tb[FS_MSG_A_COUNTER_LAST].present))
		c.last_ns = get_uint(&tb[FS_MSG_A_COUNTER_LAST]);
	if ((c.has_suppressed = tb[FS_MSG_A_COUNTER_SUPPRESSED].present))
		c.suppressed = get_uint(&tb[FS_MSG_A_COUNTER_SUPPRESSED]);

	/* A repeated type replaces the earlier one, as tb[] would. */
	for (i = 0; i < fs->ncounters; i++)
		if (fs->counters[i].warning == c.warning)
			break;
	if (i == FSM_MAX_COUNTERS)
		return fail(err, "more than %d warning types in one reply",
			    FSM_MAX_COUNTERS);
	fs->counters[i] = c;
	if (i == fs->ncounters)
		fs->ncounters++;
	return 0;
}

int fsm_fs_parse(const void *buf, size_t buflen, int family,
		 struct fsm_fs *fs, struct fsm_error *err)
{
	static const int required[] = { FS_MSG_A_DEV_MAJOR, FS_MSG_A_DEV_MINOR };
	struct attr tb[FS_MSG_A_MAX + 1];
	const unsigned char *attrs = NULL;
	size_t alen = 0, off;
	uint8_t cmd = 0;
	int ret;

	memset(fs, 0, sizeof(*fs));
	ret = check_headers(buf, buflen, family, FS_MSG_CMD_FS_GET, 0,
			    &attrs, &alen, &cmd, err);
	if (ret != FSM_PARSE_OK)
		return ret;
	if (walk(&event_space, attrs, alen, tb, err) < 0)
		return FSM_PARSE_INVALID;
	if (require(&event_space, tb, required,
		    sizeof(required) / sizeof(required[0]), err) < 0)
		return FSM_PARSE_INVALID;

	fs->major = get_u32(&tb[FS_MSG_A_DEV_MAJOR]);
	fs->minor = get_u32(&tb[FS_MSG_A_DEV_MINOR]);
	if ((fs->has_sb_id = tb[FS_MSG_A_SB_ID].present))
		fs->sb_id = get_uint(&tb[FS_MSG_A_SB_ID]);
	if ((fs->has_uuid = tb[FS_MSG_A_UUID].present))
		memcpy(fs->uuid, tb[FS_MSG_A_UUID].data, FSM_UUID_LEN);
	if (tb[FS_MSG_A_FSTYPE].present)
		fs->fstype = (const char *)tb[FS_MSG_A_FSTYPE].data;
	if (tb[FS_MSG_A_DEVICE].present)
		fs->device = (const char *)tb[FS_MSG_A_DEVICE].data;
	if (tb[FS_MSG_A_LABEL].present)
		fs->label = (const char *)tb[FS_MSG_A_LABEL].data;

	/* COUNTER is multi-attr: tb[] kept only the last, walk them all.
	 * The stream was validated above, so headers are sane here. */
	for (off = 0; off + NLA_HDRLEN <= alen;) {
		struct nlattr nla;
		size_t step;

		memcpy(&nla, attrs + off, sizeof(nla));
		if ((nla.nla_type & NLA_TYPE_MASK) == FS_MSG_A_COUNTER) {
			struct attr nest = {
				.data = attrs + off + NLA_HDRLEN,
				.len = (uint16_t)(nla.nla_len - NLA_HDRLEN),
				.present = true,
			};

			if (parse_counter(&nest, fs, err) < 0)
				return FSM_PARSE_INVALID;
		}
		step = NLA_ALIGN((size_t)nla.nla_len);
		off += step;
	}
	return FSM_PARSE_OK;
}

/* Copy @src (NULL: none) to @s; returns the copy and advances @s. */
static const char *copy_str(char **s, const char *src, size_t len)
{
	char *d = *s;

	if (!src)
		return NULL;
	memcpy(d, src, len);
	*s += len;
	return d;
}

int fsm_fs_clone(struct fsm_fs *dst, const struct fsm_fs *src)
{
	size_t lt = src->fstype ? strlen(src->fstype) + 1 : 0;
	size_t ld = src->device ? strlen(src->device) + 1 : 0;
	size_t ll = src->label ? strlen(src->label) + 1 : 0;
	char *s;

	*dst = *src;
	dst->storage = NULL;
	dst->fstype = dst->device = dst->label = NULL;
	dst->mnt = (struct fsm_mnts){ NULL, 0, NULL };
	if (!lt && !ld && !ll)
		return 0;
	/* One block for the strings; lengths are policy-bounded. */
	s = malloc(lt + ld + ll);
	if (!s)
		return -1;
	dst->storage = s;
	dst->fstype = copy_str(&s, src->fstype, lt);
	dst->device = copy_str(&s, src->device, ld);
	dst->label = copy_str(&s, src->label, ll);
	return 0;
}

void fsm_fs_release(struct fsm_fs *fs)
{
	free(fs->storage);
	fs->storage = NULL;
	fs->fstype = fs->device = fs->label = NULL;
}

const struct fsm_counter *fsm_fs_counter(const struct fsm_fs *fs,
					 uint32_t warning)
{
	for (size_t i = 0; i < fs->ncounters; i++)
		if (fs->counters[i].warning == warning)
			return &fs->counters[i];
	return NULL;
}

/* Name and words of each warning type, by number. */
static const struct {
	const char *name;
	const char *words;
} warning_types[FS_MSG_WARN_MAX + 1] = {
	[FS_MSG_WARN_ENOSPC] = { "enospc", "no space left for data" },
	[FS_MSG_WARN_META_ENOSPC] = { "meta-enospc", "no space left for metadata" },
	[FS_MSG_WARN_INODE_ENOSPC] = { "inode-enospc", "no free inodes" },
	[FS_MSG_WARN_FS_ERROR] = { "fs-error", "filesystem error" },
	[FS_MSG_WARN_SHUTDOWN] = { "shutdown", "filesystem shut down" },
	[FS_MSG_WARN_DATA_LOST] = { "data-lost", "file data lost at writeback" },
};

const char *fsm_warning_name(uint32_t warning)
{
	return warning <= FS_MSG_WARN_MAX ? warning_types[warning].name : NULL;
}

const char *fsm_severity_name(uint32_t severity)
{
	switch (severity) {
	case FS_MSG_SEVERITY_INFO:
		return "info";
	case FS_MSG_SEVERITY_WARNING:
		return "warning";
	case FS_MSG_SEVERITY_ERROR:
		return "error";
	case FS_MSG_SEVERITY_CRITICAL:
		return "critical";
	default:
		return NULL;
	}
}

int fsm_parse_severity(const char *s, uint32_t *severity)
{
	static const char *const names[] = {
		"info", "warning", "error", "critical",
	};

	for (uint32_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i]) == 0 ||
		    (s[0] == (char)('1' + i) && s[1] == '\0')) {
			*severity = FS_MSG_SEVERITY_INFO + i;
			return 0;
		}
	}
	return -1;
}

const char *fsm_warning_words(uint32_t warning)
{
	return warning <= FS_MSG_WARN_MAX ? warning_types[warning].words : NULL;
}

const char *fsm_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		[FS_MSG_SHUTDOWN_REASON_ERROR] = "error",
		[FS_MSG_SHUTDOWN_REASON_USER] = "user",
		[FS_MSG_SHUTDOWN_REASON_IO_ERROR] = "io-error",
		[FS_MSG_SHUTDOWN_REASON_CORRUPTION] = "corruption",
		[FS_MSG_SHUTDOWN_REASON_DEVICE_REMOVED] = "device-removed",
		[FS_MSG_SHUTDOWN_REASON_ABORT] = "abort",
	};

	return reason < sizeof(names) / sizeof(names[0]) ? names[reason] : NULL;
}

const char *fsm_errno_name(uint32_t error)
{
#ifdef __GLIBC__
#if __GLIBC_PREREQ(2, 32)
#define FSM_HAVE_STRERRORNAME_NP 1
#endif
#endif
#ifdef FSM_HAVE_STRERRORNAME_NP
	/* NULL for a value glibc has no name for. */
	return error && error <= INT_MAX ? strerrorname_np((int)error) : NULL;
#else
	(void)error;
	return NULL;	/* the number only */
#endif
}
