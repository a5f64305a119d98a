// SPDX-License-Identifier: GPL-2.0
/*
 * fsops: the system calls the guest tests need and busybox cannot make,
 * one per run, so that a test counts failed calls exactly.
 *
 *   fsops rename SRC DST            rename(2)
 *   fsops exchange A B              renameat2(RENAME_EXCHANGE)
 *   fsops setxattr PATH NAME SIZE   setxattr() of a SIZE-byte value
 *   fsops acl PATH N                setxattr("system.posix_acl_access")
 *                                   of an access ACL with N named users
 *   fsops clone SRC DST             ioctl(FICLONE)
 *   fsops clonerange SRC DST LEN    ioctl(FICLONERANGE) of LEN bytes at 0
 *   fsops dedupe SRC DST LEN        ioctl(FIDEDUPERANGE) of LEN bytes at 0
 *                                   (a per-destination error counts as the
 *                                   call's)
 *   fsops subvol DIR NAME           ioctl(BTRFS_IOC_SUBVOL_CREATE)
 *   fsops snapshot SUBVOL DIR NAME  ioctl(BTRFS_IOC_SNAP_CREATE_V2)
 *   fsops write PATH SIZE [direct]  open(O_CREAT) and one write() of SIZE
 *                                   bytes (O_DIRECT|O_SYNC with "direct")
 *   fsops pwrite PATH OFFSET SIZE   open(O_CREAT) and one pwrite() of SIZE
 *                                   bytes at OFFSET
 *                                   (both print "short N" when the call
 *                                   returned N < SIZE: the call succeeded)
 *   fsops create PATH               open(O_CREAT|O_EXCL)
 *   fsops mmapwrite PATH SIZE       store one byte into each page of a
 *                                   MAP_SHARED window of SIZE bytes (the
 *                                   file is extended to SIZE first); SIGBUS
 *                                   is taken as ENOSPC
 *   fsops fragment PATH N [full]    N 4 KiB blocks of 'x' with O_DIRECT, at
 *                                   every other block from the last to the
 *                                   first: N extents with holes between
 *                                   (with "full" the holes are written with
 *                                   zeros: the same data, and no holes)
 *   fsops fsuid UID SUBCOMMAND...   setfsuid(UID), then SUBCOMMAND
 *   fsops xfsresblks PATH [N]       print XFS's reserved block pool
 *                                   ("RESBLKS AVAIL"), set it to N first if
 *                                   given (XFS_IOC_SET_RESBLKS, as xfs_io's
 *                                   resblks)
 *   fsops fallocate PATH SIZE       fallocate(2) SIZE bytes at 0 of PATH
 *                                   (created): an unwritten extent
 *   fsops fiemap PATH               print the device byte offset of the
 *                                   first extent of PATH (FIEMAP)
 *   fsops fsync PATH                fsync(2) PATH, opened read-only: the
 *                                   error writeback met (busybox has no
 *                                   fsync applet)
 *   fsops shutdown PATH FLAGS [N]   shut the filesystem down (the ioctl
 *                                   EXT4_IOC_SHUTDOWN and XFS_IOC_GOINGDOWN
 *                                   share, FLAGS 0 default, 1 log flush,
 *                                   2 no log flush), N times (1) on one
 *                                   descriptor: a shut down XFS refuses
 *                                   to open files
 *
 * Exit status: 0 the call succeeded, 1 it failed with ENOSPC ("ENOSPC" on
 * stdout), 2 usage or any other failure (the error on stderr).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <linux/btrfs.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

static const char *sub;

static void usage(void)
{
	fprintf(stderr,
		"usage: fsops rename SRC DST | exchange A B | setxattr PATH NAME SIZE |\n"
		"             acl PATH N | clone SRC DST | clonerange SRC DST LEN |\n"
		"             dedupe SRC DST LEN | subvol DIR NAME |\n"
		"             snapshot SUBVOL DIR NAME | write PATH SIZE [direct] |\n"
		"             pwrite PATH OFFSET SIZE | fragment PATH N [full] |\n"
		"             create PATH | mmapwrite PATH SIZE | fsuid UID SUBCOMMAND... |\n"
		"             xfsresblks PATH [N] | shutdown PATH FLAGS [N] | fsync PATH |\n"
		"             fallocate PATH SIZE | fiemap PATH\n");
	exit(2);
}

/* The end of every subcommand: ret is the call's result, errno its error. */
static int result(int ret, const char *what)
{
	if (ret >= 0)
		return 0;
	if (errno == ENOSPC) {
		printf("ENOSPC\n");
		return 1;
	}
	fprintf(stderr, "fsops %s: %s: %s\n", sub, what, strerror(errno));
	return 2;
}

static void die(const char *what)
{
	fprintf(stderr, "fsops %s: %s: %s\n", sub, what, strerror(errno));
	exit(2);
}

static long long number(const char *s)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(s, &end, 0);
	if (errno || *end || n < 0) {
		fprintf(stderr, "fsops %s: not a number: %s\n", sub, s);
		exit(2);
	}
	return n;
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, flags, 0666);

	if (fd < 0) {
		if (errno == ENOSPC) {
			printf("ENOSPC\n");
			exit(1);
		}
		die(path);
	}
	return fd;
}

static int do_setxattr(const char *path, const char *name, size_t size)
{
	char *v = malloc(size ? size : 1);

	if (!v)
		die("malloc");
	memset(v, 'x', size);
	return result(setxattr(path, name, v, size, 0), path);
}

/* posix_acl_xattr_header and _entry (include/uapi/linux/posix_acl_xattr.h) */
struct acl_entry {
	uint16_t tag;
	uint16_t perm;
	uint32_t id;
};

static int do_acl(const char *path, unsigned int n)
{
	size_t size = 4 + (n + 4) * sizeof(struct acl_entry);
	char *buf = calloc(1, size);
	struct acl_entry *e;
	unsigned int i;

	if (!buf)
		die("calloc");
	*(uint32_t *)buf = 2;			/* POSIX_ACL_XATTR_VERSION */
	e = (struct acl_entry *)(buf + 4);
	*e++ = (struct acl_entry){ 0x01, 6, 0xffffffff };	/* USER_OBJ */
	for (i = 0; i < n; i++)
		*e++ = (struct acl_entry){ 0x02, 4, 1000 + i };	/* USER */
	*e++ = (struct acl_entry){ 0x04, 4, 0xffffffff };	/* GROUP_OBJ */
	*e++ = (struct acl_entry){ 0x10, 6, 0xffffffff };	/* MASK */
	*e++ = (struct acl_entry){ 0x20, 4, 0xffffffff };	/* OTHER */
	return result(setxattr(path, "system.posix_acl_access", buf, size, 0),
		      path);
}

static int do_remap(const char *kind, const char *src, const char *dst,
		    long long len)
{
	int s = open_or_die(src, O_RDONLY);
	int d = open_or_die(dst, strcmp(kind, "dedupe") ? O_WRONLY : O_RDWR);

	if (!strcmp(kind, "clone"))
		return result(ioctl(d, FICLONE, s), "FICLONE");
	if (!strcmp(kind, "clonerange")) {
		struct file_clone_range r = {
			.src_fd = s, .src_offset = 0, .src_length = len,
			.dest_offset = 0,
		};
		return result(ioctl(d, FICLONERANGE, &r), "FICLONERANGE");
	}
	{
		struct file_dedupe_range *r;
		int ret;

		r = calloc(1, sizeof(*r) + sizeof(r->info[0]));
		if (!r)
			die("calloc");
		r->src_offset = 0;
		r->src_length = len;
		r->dest_count = 1;
		r->info[0].dest_fd = d;
		r->info[0].dest_offset = 0;
		ret = ioctl(s, FIDEDUPERANGE, r);
		if (ret < 0)
			return result(ret, "FIDEDUPERANGE");
		if (r->info[0].status < 0) {
			errno = -r->info[0].status;
			return result(-1, "FIDEDUPERANGE status");
		}
		if (r->info[0].status == FILE_DEDUPE_RANGE_DIFFERS) {
			fprintf(stderr, "fsops dedupe: the ranges differ\n");
			return 2;
		}
		if ((long long)r->info[0].bytes_deduped != len) {
			fprintf(stderr, "fsops dedupe: %llu bytes deduped, not %lld\n",
				(unsigned long long)r->info[0].bytes_deduped, len);
			return 2;
		}
		return 0;
	}
}

static int do_subvol(const char *dir, const char *name)
{
	struct btrfs_ioctl_vol_args a;
	int d = open_or_die(dir, O_RDONLY | O_DIRECTORY);

	memset(&a, 0, sizeof(a));
	if (strlen(name) >= sizeof(a.name))
		usage();
	strcpy(a.name, name);
	return result(ioctl(d, BTRFS_IOC_SUBVOL_CREATE, &a),
		      "BTRFS_IOC_SUBVOL_CREATE");
}

static int do_snapshot(const char *subvol, const char *dir, const char *name)
{
	struct btrfs_ioctl_vol_args_v2 a;
	int s = open_or_die(subvol, O_RDONLY | O_DIRECTORY);
	int d = open_or_die(dir, O_RDONLY | O_DIRECTORY);

	memset(&a, 0, sizeof(a));
	if (strlen(name) >= sizeof(a.name))
		usage();
	a.fd = s;
	strcpy(a.name, name);
	return result(ioctl(d, BTRFS_IOC_SNAP_CREATE_V2, &a),
		      "BTRFS_IOC_SNAP_CREATE_V2");
}

static int do_write(const char *path, long long off, long long size,
		    int direct)
{
	int fd = open_or_die(path, O_WRONLY | O_CREAT |
			     (direct ? O_DIRECT | O_SYNC : 0));
	void *buf;
	ssize_t n;

	if (posix_memalign(&buf, 4096, size ? size : 1))
		die("posix_memalign");
	memset(buf, 'x', size);
	n = off < 0 ? write(fd, buf, size) : pwrite(fd, buf, size, off);
	if (n < 0)
		return result(-1, path);
	if (n != size)
		printf("short %zd\n", n);
	return result(close(fd), "close");
}

/* The device byte offset of PATH's first extent, written or not. */
static int do_fiemap(const char *path)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe;
	} m = { .fm = { .fm_length = FIEMAP_MAX_OFFSET,
			.fm_flags = FIEMAP_FLAG_SYNC, .fm_extent_count = 1 } };
	int fd = open_or_die(path, O_RDONLY);

	if (ioctl(fd, FS_IOC_FIEMAP, &m.fm) < 0)
		return result(-1, path);
	if (m.fm.fm_mapped_extents != 1) {
		fprintf(stderr, "fsops fiemap: %s has no extent\n", path);
		return 2;
	}
	printf("%llu\n", (unsigned long long)m.fe.fe_physical);
	return 0;
}

static int do_fragment(const char *path, long long n, int full)
{
	int fd = open_or_die(path, O_WRONLY | O_CREAT | O_DIRECT);
	void *x, *zero;
	long long i;

	if (posix_memalign(&x, 4096, 4096) || posix_memalign(&zero, 4096, 4096))
		die("posix_memalign");
	memset(x, 'x', 4096);
	memset(zero, 0, 4096);
	for (i = n - 1; i >= 0; i--) {
		if (pwrite(fd, x, 4096, 2 * i * 4096) != 4096)
			return result(-1, path);
		if (full && pwrite(fd, zero, 4096, (2 * i + 1) * 4096) != 4096)
			return result(-1, path);
	}
	if (!full && ftruncate(fd, 2 * n * 4096) < 0)
		return result(-1, "ftruncate");
	return result(fsync(fd), "fsync");
}

/* xfs_fsop_resblks_t and its ioctls (fs/xfs/libxfs/xfs_fs.h) */
struct xfs_resblks {
	uint64_t resblks;
	uint64_t resblks_avail;
};
#define XFS_IOC_SET_RESBLKS	_IOWR('X', 114, struct xfs_resblks)
#define XFS_IOC_GET_RESBLKS	_IOR('X', 115, struct xfs_resblks)

static int do_xfsresblks(const char *path, int set, uint64_t n)
{
	struct xfs_resblks r = { .resblks = n };
	int fd = open_or_die(path, O_RDONLY);

	if (set && ioctl(fd, XFS_IOC_SET_RESBLKS, &r) < 0)
		return result(-1, "XFS_IOC_SET_RESBLKS");
	if (ioctl(fd, XFS_IOC_GET_RESBLKS, &r) < 0)
		return result(-1, "XFS_IOC_GET_RESBLKS");
	printf("%llu %llu\n", (unsigned long long)r.resblks,
	       (unsigned long long)r.resblks_avail);
	return 0;
}

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static int do_mmapwrite(const char *path, long long size)
{
	int fd = open_or_die(path, O_RDWR | O_CREAT);
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p;
	long long off;

	if (ftruncate(fd, size) < 0)
		return result(-1, "ftruncate");
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return result(-1, "mmap");
	signal(SIGBUS, on_sigbus);
	if (sigsetjmp(bus_jmp, 1)) {
		printf("ENOSPC\n");
		return 1;
	}
	for (off = 0; off < size; off += page)
		p[off] = 'x';
	return result(msync((void *)p, size, MS_SYNC), "msync");
}

static int run(int argc, char **argv)
{
	if (argc < 1)
		usage();
	sub = argv[0];
#define ARGS(n) do { if (argc != (n) + 1) usage(); } while (0)
	if (!strcmp(sub, "rename")) {
		ARGS(2);
		return result(rename(argv[1], argv[2]), argv[2]);
	}
	if (!strcmp(sub, "exchange")) {
		ARGS(2);
		return result(renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2],
					RENAME_EXCHANGE), argv[2]);
	}
	if (!strcmp(sub, "setxattr")) {
		ARGS(3);
		return do_setxattr(argv[1], argv[2], number(argv[3]));
	}
	if (!strcmp(sub, "acl")) {
		ARGS(2);
		return do_acl(argv[1], number(argv[2]));
	}
	if (!strcmp(sub, "clone")) {
		ARGS(2);
		return do_remap(sub, argv[1], argv[2], 0);
	}
	if (!strcmp(sub, "clonerange") || !strcmp(sub, "dedupe")) {
		ARGS(3);
		return do_remap(sub, argv[1], argv[2], number(argv[3]));
	}
	if (!strcmp(sub, "subvol")) {
		ARGS(2);
		return do_subvol(argv[1], argv[2]);
	}
	if (!strcmp(sub, "snapshot")) {
		ARGS(3);
		return do_snapshot(argv[1], argv[2], argv[3]);
	}
	if (!strcmp(sub, "write")) {
		if (argc == 4 && strcmp(argv[3], "direct"))
			usage();
		if (argc != 3 && argc != 4)
			usage();
		return do_write(argv[1], -1, number(argv[2]), argc == 4);
	}
	if (!strcmp(sub, "pwrite")) {
		ARGS(3);
		return do_write(argv[1], number(argv[2]), number(argv[3]), 0);
	}
	if (!strcmp(sub, "create")) {
		ARGS(1);
		return result(open(argv[1], O_WRONLY | O_CREAT | O_EXCL, 0666),
			      argv[1]);
	}
	if (!strcmp(sub, "mmapwrite")) {
		ARGS(2);
		return do_mmapwrite(argv[1], number(argv[2]));
	}
	if (!strcmp(sub, "fragment")) {
		if (argc == 4 && strcmp(argv[3], "full"))
			usage();
		if (argc != 3 && argc != 4)
			usage();
		return do_fragment(argv[1], number(argv[2]), argc == 4);
	}
	if (!strcmp(sub, "xfsresblks")) {
		if (argc != 2 && argc != 3)
			usage();
		return do_xfsresblks(argv[1], argc == 3,
				     argc == 3 ? number(argv[2]) : 0);
	}
	if (!strcmp(sub, "fallocate")) {
		ARGS(2);
		return result(fallocate(open_or_die(argv[1], O_WRONLY | O_CREAT),
					0, 0, number(argv[2])), argv[1]);
	}
	if (!strcmp(sub, "fiemap")) {
		ARGS(1);
		return do_fiemap(argv[1]);
	}
	if (!strcmp(sub, "fsync")) {
		int fd;

		ARGS(1);
		fd = open_or_die(argv[1], O_RDONLY);
		return result(fsync(fd), argv[1]);
	}
	if (!strcmp(sub, "shutdown")) {
		long long times = 1;
		uint32_t flags;
		int fd, ret = 0;

		if (argc != 3 && argc != 4)
			usage();
		flags = number(argv[2]);
		if (argc == 4)
			times = number(argv[3]);
		fd = open_or_die(argv[1], O_RDONLY);
		/* _IOR('X', 125, __u32): EXT4_IOC_SHUTDOWN, XFS_IOC_GOINGDOWN */
		while (times-- > 0 && !ret)
			ret = result(ioctl(fd, _IOR('X', 125, uint32_t), &flags),
				     argv[1]);
		return ret;
	}
	if (!strcmp(sub, "fsuid")) {
		uid_t uid;

		if (argc < 3)
			usage();
		uid = number(argv[1]);
		setfsuid(uid);
		/* setfsuid() reports nothing: ask again. */
		if ((uid_t)setfsuid(-1) != uid) {
			fprintf(stderr, "fsops fsuid: setfsuid(%u) did not take\n",
				(unsigned int)uid);
			return 2;
		}
		return run(argc - 2, argv + 2);
	}
	usage();
	return 2;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	return run(argc - 1, argv + 1);
}
