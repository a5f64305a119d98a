/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event, missed-report and --list filters: by device, filesystem type,
 * UUID and warning type, and for events a least severity. Kinds combine with AND, repeated values of one
 * kind with OR; an empty kind admits everything.
 */
#ifndef FSMSG_FILTER_H
#define FSMSG_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct fsm_devnum {
	uint32_t major;
	uint32_t minor;
};

struct fsm_filter {
	struct fsm_devnum *devs;
	size_t ndevs;
	char **fstypes;
	size_t nfstypes;
	uint8_t (*uuids)[FSM_UUID_LEN];
	size_t nuuids;
	uint32_t *warnings;
	size_t nwarnings;
	uint32_t min_severity;	/* --severity; 0: any */
};

void fsm_filter_init(struct fsm_filter *f);
void fsm_filter_free(struct fsm_filter *f);
/* Each returns 0, or -1 when out of memory. Duplicates are dropped. */
int fsm_filter_add_dev(struct fsm_filter *f, uint32_t major, uint32_t minor);
int fsm_filter_add_fstype(struct fsm_filter *f, const char *fstype);
int fsm_filter_add_uuid(struct fsm_filter *f, const uint8_t uuid[FSM_UUID_LEN]);
int fsm_filter_add_warning(struct fsm_filter *f, uint32_t warning);

/* @fstype and @uuid may be NULL (absent): they then match no such filter. */
bool fsm_filter_fs(const struct fsm_filter *f, uint32_t major, uint32_t minor,
		   const char *fstype, const uint8_t *uuid);
bool fsm_filter_warning(const struct fsm_filter *f, uint32_t warning);
bool fsm_filter_event(const struct fsm_filter *f, const struct fsm_event *ev);

/*
 * Warning types --list shows: those of the warning filter if any, else the
 * five known ones plus any newer ones the rows carry; sorted. *cols is
 * malloc()ed. Returns the number, or -1 when out of memory.
 */
long fsm_filter_columns(const struct fsm_filter *f, const struct fsm_fs *fss,
			size_t n, uint32_t **cols);

/* Option values. Return 0, or -1 when @s is not valid. */
int fsm_parse_warning(const char *s, uint32_t *warning);
int fsm_parse_uuid(const char *s, uint8_t uuid[FSM_UUID_LEN]);
int fsm_parse_devnum(const char *s, struct fsm_devnum *d);

/* One /proc/self/mountinfo line, split in place (strings point into it). */
struct fsm_mount {
	unsigned long long id;
	uint32_t major;
	uint32_t minor;
	const char *mountpoint;
	const char *fstype;
	const char *source;
};
int fsm_mountinfo_parse_line(char *line, struct fsm_mount *m);

/*
 * Add the devices a block device with number @rdev (whose path is @path)
 * stands for: @rdev itself and the major:minor of every mount in
 * @mountinfo whose source is @path or a block device with number @rdev.
 * The latter catches btrfs, whose superblock has an anonymous 0:N device.
 */
int fsm_filter_add_blockdev(struct fsm_filter *f, const char *path,
			    uint64_t rdev, const char *mountinfo);

/*
 * --device: MAJ:MIN, a block device, or any path on a mounted filesystem
 * (whose major:minor comes from @mountinfo, via the path's mount id: on a
 * btrfs subvolume st_dev is not the superblock's device). When @mountinfo
 * does not have the path's mount (a chroot, some containers), cannot be
 * read, or the kernel gives no mount ids, the path's st_dev instead, as
 * fsm_resolve_stdev(). Returns 0, or -1 with a sentence in @err.
 */
int fsm_resolve_device(struct fsm_filter *f, const char *arg,
		       const char *mountinfo, struct fsm_error *err);

/*
 * The fallback of fsm_resolve_device() for a path @arg whose mount is not
 * known: its st_dev @st_dev, which is the superblock's device number
 * (what the kernel reports) for ext2/3/4, XFS and most others. Not for
 * btrfs (@f_type, statfs()'s, is BTRFS_SUPER_MAGIC), where a path's
 * st_dev is its subvolume's anonymous device: -1 then, @err saying so
 * after @why (why the mount is not known). 0 otherwise.
 */
int fsm_resolve_stdev(struct fsm_filter *f, const char *arg, uint64_t st_dev,
		      long f_type, const char *why, struct fsm_error *err);

#endif
