// SPDX-License-Identifier: GPL-2.0
/*
 * prjquota: XFS project quota set-up for the guest tests, which have no
 * xfs_quota.
 *
 *   prjquota project DIR ID           give DIR project ID and the
 *                                     PROJINHERIT flag (FS_IOC_FSSETXATTR):
 *                                     what is created in it is charged to ID
 *   prjquota limit DEV ID BHARD_KIB IHARD
 *                                     set the block and inode hard limits
 *                                     of project ID on the filesystem of
 *                                     block device DEV (Q_XSETQLIM); 0 is
 *                                     no limit
 *   prjquota get DEV ID               print "blocks_kib=N inodes=N
 *                                     bhard_kib=N ihard=N" (Q_XGETQUOTA)
 *   prjquota counts PATH              print "free_kib=N free_inodes=N" for
 *                                     the filesystem of PATH: free blocks,
 *                                     and free inodes in allocated inode
 *                                     chunks (needs mkfs.xfs -i maxpct=100)
 *   prjquota use-free-inodes DIR      create empty files in DIR until no
 *                                     allocated inode is free: the next
 *                                     create needs a new inode chunk;
 *                                     prints "created N"
 *   prjquota race FILE ID1 ID2 N      a child flips FILE's project between
 *                                     ID1 and ID2 N times while this
 *                                     process writes 16 KiB at its start
 *                                     until the child is done; prints
 *                                     "writes=N enospc=N flips=N"
 *
 * Exit status: 0 done, 1 usage error, 2 the kernel refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/quota.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <linux/dqblk_xfs.h>
#include <linux/fs.h>
#include <linux/quota.h>

/* From xfsprogs' xfs_fs.h, which the build host need not have. */
struct xfs_fsop_geom_v1 {
	uint32_t	blocksize;
	uint32_t	rtextsize;
	uint32_t	agblocks;
	uint32_t	agcount;
	uint32_t	logblocks;
	uint32_t	sectsize;
	uint32_t	inodesize;
	uint32_t	imaxpct;
	uint64_t	datablocks;
	uint64_t	rtblocks;
	uint64_t	rtextents;
	uint64_t	logstart;
	unsigned char	uuid[16];
	uint32_t	sunit;
	uint32_t	swidth;
	int32_t		version;
	uint32_t	flags;
	uint32_t	logsectsize;
	uint32_t	rtsectsize;
	uint32_t	dirblocksize;
};

#define XFS_IOC_FSGEOMETRY_V1	_IOR('X', 100, struct xfs_fsop_geom_v1)

/* Quota block counts are in 512-byte basic blocks. */
#define BB_PER_KIB	2

static void fail(const char *what, const char *arg)
{
	fprintf(stderr, "prjquota: %s %s: %s\n", what, arg, strerror(errno));
	exit(2);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: prjquota project DIR ID\n"
		"       prjquota limit DEV ID BHARD_KIB IHARD\n"
		"       prjquota get DEV ID\n"
		"       prjquota counts PATH\n"
		"       prjquota use-free-inodes DIR\n"
		"       prjquota race FILE ID1 ID2 N\n");
	exit(1);
}

static unsigned long long number(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-') {
		fprintf(stderr, "prjquota: '%s' is not a number\n", s);
		exit(1);
	}
	return v;
}

static int cmd_project(const char *dir, unsigned long long id)
{
	struct fsxattr fsx;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fail("open", dir);
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx))
		fail("FS_IOC_FSGETXATTR", dir);
	fsx.fsx_projid = id;
	fsx.fsx_xflags |= FS_XFLAG_PROJINHERIT;
	if (ioctl(fd, FS_IOC_FSSETXATTR, &fsx))
		fail("FS_IOC_FSSETXATTR", dir);
	close(fd);
	return 0;
}

static int cmd_limit(const char *dev, unsigned long long id,
		     unsigned long long bhard_kib, unsigned long long ihard)
{
	struct fs_disk_quota d = {
		.d_version	= FS_DQUOT_VERSION,
		.d_flags	= FS_PROJ_QUOTA,
		.d_fieldmask	= FS_DQ_BHARD | FS_DQ_IHARD,
		.d_id		= id,
		.d_blk_hardlimit = bhard_kib * BB_PER_KIB,
		.d_ino_hardlimit = ihard,
	};

	if (quotactl(QCMD(Q_XSETQLIM, PRJQUOTA), dev, id, (caddr_t)&d))
		fail("Q_XSETQLIM on", dev);
	return 0;
}

static int cmd_get(const char *dev, unsigned long long id)
{
	struct fs_disk_quota d;

	memset(&d, 0, sizeof(d));
	if (quotactl(QCMD(Q_XGETQUOTA, PRJQUOTA), dev, id, (caddr_t)&d))
		fail("Q_XGETQUOTA on", dev);
	printf("blocks_kib=%llu inodes=%llu bhard_kib=%llu ihard=%llu\n",
	       (unsigned long long)d.d_bcount / BB_PER_KIB,
	       (unsigned long long)d.d_icount,
	       (unsigned long long)d.d_blk_hardlimit / BB_PER_KIB,
	       (unsigned long long)d.d_ino_hardlimit);
	return 0;
}

/*
 * The free inodes of the allocated inode chunks (XFS's m_ifree), exactly.
 * XFS_IOC_FSCOUNTS reads the per-cpu counter without summing it; statfs
 * sums it: f_ffree is m_ifree plus the inodes the free blocks could hold,
 * as long as imaxpct does not cap f_files (mkfs.xfs -i maxpct=100).
 */
static long long free_inodes(int fd, const char *path)
{
	struct xfs_fsop_geom_v1 geo;
	unsigned long long inopb, chunk, maxicount = 0;
	struct statfs st;

	if (ioctl(fd, XFS_IOC_FSGEOMETRY_V1, &geo))
		fail("XFS_IOC_FSGEOMETRY_V1", path);
	if (fstatfs(fd, &st))
		fail("fstatfs", path);
	inopb = geo.blocksize / geo.inodesize;
	/* xfs_set_maxicount(): whole 64-inode chunks within imaxpct. */
	chunk = inopb < 64 ? 64 / inopb : 1;
	if (geo.imaxpct)
		maxicount = geo.datablocks * geo.imaxpct / 100 / chunk * chunk * inopb;
	if (maxicount && st.f_files >= maxicount) {
		fprintf(stderr, "prjquota: %s: imaxpct %u caps the inode count: free inodes cannot be counted (mkfs.xfs -i maxpct=100)\n",
			path, geo.imaxpct);
		exit(2);
	}
	return (long long)st.f_ffree - (long long)(st.f_bfree * inopb);
}

static int cmd_counts(const char *path)
{
	struct statfs st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("open", path);
	if (fstatfs(fd, &st))
		fail("fstatfs", path);
	printf("free_kib=%llu free_inodes=%lld\n",
	       (unsigned long long)st.f_bfree * st.f_bsize / 1024,
	       free_inodes(fd, path));
	close(fd);
	return 0;
}

static int cmd_use_free_inodes(const char *dir)
{
	long long ifree = -1;
	char name[32];
	int dfd, fd, n;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		fail("open", dir);
	/* An inode chunk is 64 inodes: a few hundred creates at most. */
	for (n = 0; n < 1000; n++) {
		ifree = free_inodes(dfd, dir);
		if (ifree <= 0)
			break;
		snprintf(name, sizeof(name), "inode.%d", n);
		fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			fail("create in", dir);
		close(fd);
	}
	if (ifree != 0) {
		fprintf(stderr, "prjquota: %s: %lld inodes free after %d creates\n",
			dir, ifree, n);
		return 2;
	}
	printf("created %d\n", n);
	close(dfd);
	return 0;
}

static void set_project(int fd, const char *file, unsigned long long id)
{
	struct fsxattr fsx;

	if (ioctl(fd, FS_IOC_FSGETXATTR, &fsx))
		fail("FS_IOC_FSGETXATTR", file);
	fsx.fsx_projid = id;
	if (ioctl(fd, FS_IOC_FSSETXATTR, &fsx))
		fail("FS_IOC_FSSETXATTR", file);
}

/*
 * A project change swaps the inode's project dquot and drops the old one
 * while writes to the file fail at the project's limit: the ENOSPC path
 * reads the dquot at the same time.  Every write must fail with ENOSPC;
 * anything else (a write that succeeds, another errno) is exit status 2.
 */
static int cmd_race(const char *file, unsigned long long id1,
		    unsigned long long id2, unsigned long long flips)
{
	static char buf[16384];
	unsigned long long writes = 0, enospc = 0, n;
	int fd, status;
	pid_t child;
	ssize_t ret;

	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fail("open", file);
	/* In a limited project before the first write, not project 0. */
	set_project(fd, file, id1);
	fflush(stdout);
	child = fork();
	if (child < 0)
		fail("fork for", file);
	if (child == 0) {
		for (n = 0; n < flips; n++)
			set_project(fd, file, n % 2 ? id2 : id1);
		_exit(0);
	}
	memset(buf, 0x5a, sizeof(buf));
	do {
		ret = pwrite(fd, buf, sizeof(buf), 0);
		writes++;
		if (ret >= 0) {
			fprintf(stderr, "prjquota: %s: a write of %zu bytes returned %zd: the projects' limits did not refuse it\n",
				file, sizeof(buf), ret);
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			return 2;
		}
		if (errno != ENOSPC)
			fail("write to", file);
		enospc++;
	} while (waitpid(child, &status, WNOHANG) == 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "prjquota: %s: the project changes failed\n", file);
		return 2;
	}
	printf("writes=%llu enospc=%llu flips=%llu\n", writes, enospc, flips);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "project"))
		return cmd_project(argv[2], number(argv[3]));
	if (argc == 6 && !strcmp(argv[1], "limit"))
		return cmd_limit(argv[2], number(argv[3]), number(argv[4]),
				 number(argv[5]));
	if (argc == 4 && !strcmp(argv[1], "get"))
		return cmd_get(argv[2], number(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "counts"))
		return cmd_counts(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "use-free-inodes"))
		return cmd_use_free_inodes(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "race"))
		return cmd_race(argv[2], number(argv[3]), number(argv[4]),
				number(argv[5]));
	usage();
	return 1;
}
