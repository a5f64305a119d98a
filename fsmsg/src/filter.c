// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Filters by device, filesystem type, UUID and warning type, and the
 * resolution of --device arguments through /proc/self/mountinfo.
 */
#include "filter.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include <linux/magic.h>

void fsm_filter_init(struct fsm_filter *f)
{
	memset(f, 0, sizeof(*f));
}

void fsm_filter_free(struct fsm_filter *f)
{
	for (size_t i = 0; i < f->nfstypes; i++)
		free(f->fstypes[i]);
	free(f->fstypes);
	free(f->devs);
	free(f->uuids);
	free(f->warnings);
	fsm_filter_init(f);
}

/* @arr (@n elements of @size bytes) with room for one more; NULL: no memory. */
static void *grow(void *arr, size_t n, size_t size)
{
	if (n >= SIZE_MAX / size - 1)
		return NULL;
	return realloc(arr, (n + 1) * size);
}

int fsm_filter_add_dev(struct fsm_filter *f, uint32_t major, uint32_t minor)
{
	struct fsm_devnum *d;

	for (size_t i = 0; i < f->ndevs; i++)
		if (f->devs[i].major == major && f->devs[i].minor == minor)
			return 0;
	d = grow(f->devs, f->ndevs, sizeof(*d));
	if (!d)
		return -1;
	f->devs = d;
	d[f->ndevs].major = major;
	d[f->ndevs].minor = minor;
	f->ndevs++;
	return 0;
}

int fsm_filter_add_fstype(struct fsm_filter *f, const char *fstype)
{
	char *copy, **slot;

	for (size_t i = 0; i < f->nfstypes; i++)
		if (!strcmp(f->fstypes[i], fstype))
			return 0;
	copy = strdup(fstype);
	if (!copy)
		return -1;
	slot = grow(f->fstypes, f->nfstypes, sizeof(*slot));
	if (!slot) {
		free(copy);
		return -1;
	}
	f->fstypes = slot;
	f->fstypes[f->nfstypes++] = copy;
	return 0;
}

int fsm_filter_add_uuid(struct fsm_filter *f, const uint8_t uuid[FSM_UUID_LEN])
{
	uint8_t (*u)[FSM_UUID_LEN];

	for (size_t i = 0; i < f->nuuids; i++)
		if (!memcmp(f->uuids[i], uuid, FSM_UUID_LEN))
			return 0;
	u = grow(f->uuids, f->nuuids, sizeof(*u));
	if (!u)
		return -1;
	f->uuids = u;
	memcpy(f->uuids[f->nuuids++], uuid, FSM_UUID_LEN);
	return 0;
}

int fsm_filter_add_warning(struct fsm_filter *f, uint32_t warning)
{
	uint32_t *w;

	for (size_t i = 0; i < f->nwarnings; i++)
		if (f->warnings[i] == warning)
			return 0;
	w = grow(f->warnings, f->nwarnings, sizeof(*w));
	if (!w)
		return -1;
	f->warnings = w;
	f->warnings[f->nwarnings++] = warning;
	return 0;
}

bool fsm_filter_fs(const struct fsm_filter *f, uint32_t major, uint32_t minor,
		   const char *fstype, const uint8_t *uuid)
{
	size_t i;

	if (f->ndevs) {
		for (i = 0; i < f->ndevs; i++)
			if (f->devs[i].major == major && f->devs[i].minor == minor)
				break;
		if (i == f->ndevs)
			return false;
	}
	if (f->nfstypes) {
		if (!fstype)
			return false;
		for (i = 0; i < f->nfstypes; i++)
			if (!strcmp(f->fstypes[i], fstype))
				break;
		if (i == f->nfstypes)
			return false;
	}
	if (f->nuuids) {
		if (!uuid)
			return false;
		for (i = 0; i < f->nuuids; i++)
			if (!memcmp(f->uuids[i], uuid, FSM_UUID_LEN))
				break;
		if (i == f->nuuids)
			return false;
	}
	return true;
}

bool fsm_filter_warning(const struct fsm_filter *f, uint32_t warning)
{
	if (!f->nwarnings)
		return true;
	for (size_t i = 0; i < f->nwarnings; i++)
		if (f->warnings[i] == warning)
			return true;
	return false;
}

bool fsm_filter_event(const struct fsm_filter *f, const struct fsm_event *ev)
{
	return ev->severity >= f->min_severity &&
	       fsm_filter_warning(f, ev->warning) &&
	       fsm_filter_fs(f, ev->major, ev->minor, ev->fstype,
			     ev->has_uuid ? ev->uuid : NULL);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static bool has_u32(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static int add_col(uint32_t **cols, size_t *ncols, uint32_t w)
{
	uint32_t *c;

	if (has_u32(*cols, *ncols, w))
		return 0;
	c = grow(*cols, *ncols, sizeof(*c));
	if (!c)
		return -1;
	*cols = c;
	c[(*ncols)++] = w;
	return 0;
}

long fsm_filter_columns(const struct fsm_filter *f, const struct fsm_fs *fss,
			size_t n, uint32_t **colsp)
{
	uint32_t *cols = NULL;
	size_t ncols = 0;

	*colsp = NULL;
	if (f->nwarnings) {
		for (size_t i = 0; i < f->nwarnings; i++)
			if (add_col(&cols, &ncols, f->warnings[i]) < 0)
				goto oom;
	} else {
		for (uint32_t w = FS_MSG_WARN_ENOSPC; w <= FS_MSG_WARN_MAX; w++)
			if (add_col(&cols, &ncols, w) < 0)
				goto oom;
		for (size_t r = 0; r < n; r++)
			for (size_t i = 0; i < fss[r].ncounters; i++)
				if (add_col(&cols, &ncols, fss[r].counters[i].warning) < 0)
					goto oom;
	}
	if (ncols)
		qsort(cols, ncols, sizeof(*cols), cmp_u32);
	*colsp = cols;
	return (long)ncols;
oom:
	free(cols);
	return -1;
}

/* Strict unsigned decimal that fits in 32 bits. */
static int parse_u32(const char *s, const char **end, uint32_t *v)
{
	unsigned long long x = 0;
	const char *p = s;

	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		x = x * 10 + (unsigned)(*p - '0');
		if (x > UINT32_MAX)
			return -1;
	}
	*v = (uint32_t)x;
	*end = p;
	return 0;
}

int fsm_parse_warning(const char *s, uint32_t *warning)
{
	const char *end;
	uint32_t v;

	for (uint32_t w = FS_MSG_WARN_ENOSPC; w <= FS_MSG_WARN_MAX; w++) {
		const char *name = fsm_warning_name(w);

		if (name && !strcasecmp(s, name)) {
			*warning = w;
			return 0;
		}
	}
	/* Also the spelling fsmsg prints for types newer than it. */
	if (!strncasecmp(s, "unknown-", 8))
		s += 8;
	if (parse_u32(s, &end, &v) < 0 || *end || v == FS_MSG_WARN_NONE)
		return -1;
	*warning = v;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* 8-4-4-4-12 hex digits, or the 32 digits alone; any case. */
int fsm_parse_uuid(const char *s, uint8_t uuid[FSM_UUID_LEN])
{
	static const size_t dash_at[] = { 8, 13, 18, 23 };
	size_t len = strlen(s), nd = 0, i;
	bool dashed = len == 36;

	if (len != 32 && len != 36)
		return -1;
	for (i = 0; i < len; i++) {
		int hi, lo;

		if (dashed && nd < 4 && i == dash_at[nd]) {
			if (s[i] != '-')
				return -1;
			nd++;
			continue;
		}
		hi = hexval((unsigned char)s[i]);
		lo = i + 1 < len ? hexval((unsigned char)s[i + 1]) : -1;
		if (hi < 0 || lo < 0)
			return -1;
		uuid[(i - nd) / 2] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	return 0;
}

int fsm_parse_devnum(const char *s, struct fsm_devnum *d)
{
	const char *p;

	if (parse_u32(s, &p, &d->major) < 0 || *p != ':' ||
	    parse_u32(p + 1, &p, &d->minor) < 0 || *p)
		return -1;
	return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* Next space-separated field, NUL-terminated in place; NULL at the end. */
static char *field(char **cur)
{
	char *s = *cur, *e;

	while (*s == ' ')
		s++;
	if (!*s || *s == '\n')
		return NULL;
	e = s + strcspn(s, " \n");
	if (*e)
		*e++ = '\0';
	*cur = e;
	return s;
}

/*
 * 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw
 * (1)(2)(3)   (4)   (5)      (6)      (7...)  (-) (8)   (9)      (10)
 */
int fsm_mountinfo_parse_line(char *line, struct fsm_mount *m)
{
	char *cur = line, *f[6] = { NULL }, *sep, *p;
	const char *end;
	int i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < 6; i++)
		if (!(f[i] = field(&cur)))
			return -1;
	m->id = strtoull(f[0], &p, 10);
	if (p == f[0] || *p)
		return -1;
	if (parse_u32(f[2], &end, &m->major) < 0 || *end != ':' ||
	    parse_u32(end + 1, &end, &m->minor) < 0 || *end)
		return -1;
	do {			/* optional fields, up to the separator */
		if (!(sep = field(&cur)))
			return -1;
	} while (strcmp(sep, "-") != 0);
	if (!(p = field(&cur)))
		return -1;
	unescape(p);
	m->fstype = p;
	if (!(p = field(&cur)))
		return -1;
	unescape(p);
	m->source = p;
	unescape(f[4]);
	m->mountpoint = f[4];
	return 0;
}

/* Call @fn for each mountinfo entry until it returns non-zero. */
static int each_mount(const char *path,
		      int (*fn)(const struct fsm_mount *m, void *arg), void *arg)
{
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *fp = fopen(path, "re");

	if (!fp)
		return -1;
	while (!ret && getline(&line, &cap, fp) > 0) {
		struct fsm_mount m;

		if (fsm_mountinfo_parse_line(line, &m) == 0)
			ret = fn(&m, arg);
	}
	free(line);
	fclose(fp);
	return ret;
}

struct blockdev_ctx {
	struct fsm_filter *f;
	const char *path;
	uint64_t rdev;
	int err;
};

static int blockdev_cb(const struct fsm_mount *m, void *arg)
{
	struct blockdev_ctx *c = arg;
	struct stat st;
	bool match = !strcmp(m->source, c->path);

	if (!match && m->source[0] == '/' && stat(m->source, &st) == 0 &&
	    S_ISBLK(st.st_mode) && st.st_rdev == c->rdev)
		match = true;
	if (match && fsm_filter_add_dev(c->f, m->major, m->minor) < 0)
		c->err = -1;
	return c->err;
}

int fsm_filter_add_blockdev(struct fsm_filter *f, const char *path,
			    uint64_t rdev, const char *mountinfo)
{
	struct blockdev_ctx c = { f, path, rdev, 0 };

	if (fsm_filter_add_dev(f, major(rdev), minor(rdev)) < 0)
		return -1;
	/* Without mountinfo the block device's own number still works. */
	each_mount(mountinfo, blockdev_cb, &c);
	return c.err;
}

struct mntid_ctx {
	unsigned long long id;
	struct fsm_devnum dev;
	bool found;
};

static int mntid_cb(const struct fsm_mount *m, void *arg)
{
	struct mntid_ctx *c = arg;

	if (m->id != c->id)
		return 0;
	c->dev.major = m->major;
	c->dev.minor = m->minor;
	c->found = true;
	return 1;
}

static int fail(struct fsm_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct fsm_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int fsm_resolve_stdev(struct fsm_filter *f, const char *arg, uint64_t st_dev,
		      long f_type, const char *why, struct fsm_error *err)
{
	if (f_type == (long)BTRFS_SUPER_MAGIC)
		return fail(err, "cannot resolve device '%s': %s, and on btrfs the device number of a path (%u:%u) is its subvolume's, not the filesystem's: give the filesystem's MAJ:MIN, as fsmsg --list shows it",
			    arg, why, major(st_dev), minor(st_dev));
	if (fsm_filter_add_dev(f, major(st_dev), minor(st_dev)) < 0)
		return fail(err, "out of memory");
	return 0;
}

/* The mount of @arg is not to be found: go by stat()'s st_dev. */
static int fallback(struct fsm_filter *f, const char *arg,
		    const struct stat *st, const char *why,
		    struct fsm_error *err)
{
	struct statfs sfs;
	long f_type = 0;

	/* Unknown type: st_dev is still the best there is. */
	if (statfs(arg, &sfs) == 0)
		f_type = (long)sfs.f_type;
	return fsm_resolve_stdev(f, arg, st->st_dev, f_type, why, err);
}

int fsm_resolve_device(struct fsm_filter *f, const char *arg,
		       const char *mountinfo, struct fsm_error *err)
{
	struct fsm_devnum d;
	struct mntid_ctx c = { 0 };
	struct statx stx;
	struct stat st;
	char why[160];

	if (fsm_parse_devnum(arg, &d) == 0) {
		if (fsm_filter_add_dev(f, d.major, d.minor) < 0)
			return fail(err, "out of memory");
		return 0;
	}
	if (stat(arg, &st) < 0)
		return fail(err, "cannot resolve device '%s': %s", arg,
			    strerror(errno));
	if (S_ISBLK(st.st_mode)) {
		if (fsm_filter_add_blockdev(f, arg, st.st_rdev, mountinfo) < 0)
			return fail(err, "out of memory");
		return 0;
	}
	/*
	 * st_dev would be wrong on btrfs subvolumes: go by the mount. In a
	 * chroot or some containers mountinfo does not show the mount the
	 * path is on (or is not there): then st_dev after all, which is the
	 * superblock's device for every filesystem but btrfs.
	 */
	if (statx(AT_FDCWD, arg, AT_NO_AUTOMOUNT, STATX_MNT_ID, &stx) < 0) {
		if (errno != ENOSYS && errno != EINVAL)
			return fail(err, "cannot resolve device '%s': %s", arg,
				    strerror(errno));
		stx.stx_mask = 0;
	}
	if (!(stx.stx_mask & STATX_MNT_ID))
		return fallback(f, arg, &st, "the kernel does not report mount ids",
				err);
	c.id = stx.stx_mnt_id;
	if (each_mount(mountinfo, mntid_cb, &c) < 0) {
		snprintf(why, sizeof(why), "cannot read %s: %s", mountinfo,
			 strerror(errno));
		return fallback(f, arg, &st, why, err);
	}
	if (!c.found) {
		snprintf(why, sizeof(why), "mount %llu is not in %s", c.id,
			 mountinfo);
		return fallback(f, arg, &st, why, err);
	}
	if (fsm_filter_add_dev(f, c.dev.major, c.dev.minor) < 0)
		return fail(err, "out of memory");
	return 0;
}
