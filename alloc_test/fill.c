// SPDX-License-Identifier: GPL-2.0
/*
 * The filling modes. Each step issues exactly one counted operation: one
 * syscall, or one page fault in mmap mode. Auxiliary syscalls (opening the
 * next data file, ftruncate, mmap, msync, munmap, close) are not counted when
 * they succeed, but a failure is counted as an operation of its own, so that
 * the report accounts for every failing syscall the kernel sees.
 */
#include "alloc_test.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct fill_state {
	enum mode mode;
	int fd;			/* current data file, or -1 */
	uint64_t seq;		/* number for the next generated name */
	uint64_t off;		/* data modes: offset of the current block or window */
	size_t done;		/* bytes of the block written by short writes, or
				 * bytes of the mmap window touched so far */
	char *map;		/* mmap window at off, or NULL */
	size_t page;
	char *target;		/* symlink target */
	char name[NAME_MAX + 1];	/* current data file or entry, e.g. "data.000001" */
};

static void record(struct run *r, struct fill_state *s, int err, uint64_t bytes, bool shrt,
		   const char *what)
{
	count_op(&r->c, err, bytes, shrt);
	if (err && err != ENOSPC) {
		errmsg(r->wpath, s->name, what, err);
		if (err == EINVAL && s->mode == M_DIRECT)
			note("O_DIRECT may be unsupported here, or --block-size is not a "
			     "multiple of the device's logical block size");
		r->failed = true;
	}
}

static bool open_data(struct run *r, struct fill_state *s)
{
	int flags = O_CREAT | O_EXCL | O_CLOEXEC;

	flags |= s->mode == M_MMAP ? O_RDWR : O_WRONLY;
	if (s->mode == M_DIRECT)
		flags |= O_DIRECT;
	snprintf(s->name, sizeof(s->name), "data.%06" PRIu64, s->seq++);
	s->fd = openat(r->wfd, s->name, flags, 0644);
	if (s->fd < 0) {
		record(r, s, errno, 0, false, "open");
		return false;
	}
	s->off = 0;
	s->done = 0;
	return true;
}

static void unmap_window(struct run *r, struct fill_state *s)
{
	/* MS_SYNC surfaces a delayed write-back error (filesystems that do
	 * not reserve space at fault time) as a failing syscall we count. */
	if (msync(s->map, r->cfg->block_size, MS_SYNC))
		record(r, s, errno, 0, false, "msync");
	if (munmap(s->map, r->cfg->block_size))
		record(r, s, errno, 0, false, "munmap");
	s->map = NULL;
}

static void close_data(struct run *r, struct fill_state *s)
{
	if (s->map)
		unmap_window(r, s);
	if (s->fd >= 0 && close(s->fd))
		record(r, s, errno, 0, false, "close");
	s->fd = -1;
}

/* Called after a block or window is complete: start a new file rather than
 * let one file grow past --file-size. */
static void advance(struct run *r, struct fill_state *s)
{
	s->off += r->cfg->block_size;
	s->done = 0;
	if (s->off + r->cfg->block_size > r->cfg->file_size)
		close_data(r, s);
}

static void step_write(struct run *r, struct fill_state *s)
{
	const char *what = s->mode == M_DIRECT ? "pwrite" : "write";
	const char *p;
	size_t len;
	ssize_t n;

	if (s->fd < 0 && !open_data(r, s))
		return;
	len = r->cfg->block_size - s->done;
	p = (const char *)r->buf + s->done;
	if (s->mode == M_DIRECT)
		n = pwrite(s->fd, p, len, (off_t)(s->off + s->done));
	else
		n = write(s->fd, p, len);
	if (n < 0) {
		record(r, s, errno, 0, false, what);
	} else if ((size_t)n < len) {
		/* The rest of the block is the next operation. */
		record(r, s, 0, (uint64_t)n, true, what);
		s->done += (size_t)n;
		if (!n) {
			note("%s/%s: %s wrote nothing and reported no error", r->wpath, s->name, what);
			r->failed = true;
		}
	} else if (r->cfg->fsync && fsync(s->fd)) {
		/* The block is in the page cache but not on disk: not written. */
		record(r, s, errno, 0, false, "fsync");
	} else {
		record(r, s, 0, (uint64_t)n, false, what);
		advance(r, s);
	}
}

static void step_fallocate(struct run *r, struct fill_state *s)
{
	if (s->fd < 0 && !open_data(r, s))
		return;
	if (fallocate(s->fd, 0, (off_t)s->off, (off_t)r->cfg->block_size)) {
		record(r, s, errno, 0, false, "fallocate");
		return;
	}
	record(r, s, 0, r->cfg->block_size, false, "fallocate");
	advance(r, s);
}

static sigjmp_buf bus_env;
static volatile sig_atomic_t bus_armed;

static void on_sigbus(int sig)
{
	if (!bus_armed) {
		/* Not our store: die the normal way. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	siglongjmp(bus_env, 1);
}

/* Store one byte; false when the page fault failed with SIGBUS. The handler
 * runs with SA_NODEFER, so the signal mask need not be saved and restored
 * (which would cost a syscall per operation). */
static bool touch(volatile char *p)
{
	if (sigsetjmp(bus_env, 0)) {
		bus_armed = 0;
		return false;
	}
	bus_armed = 1;
	*p = 1;
	bus_armed = 0;
	return true;
}

static void step_mmap(struct run *r, struct fill_state *s)
{
	size_t win = r->cfg->block_size;
	void *p;

	if (s->fd < 0 && !open_data(r, s))
		return;
	if (!s->map) {
		/* Extending the size allocates nothing: the file stays sparse
		 * and the page faults do the allocation. */
		if (ftruncate(s->fd, (off_t)(s->off + win))) {
			record(r, s, errno, 0, false, "ftruncate");
			return;
		}
		p = mmap(NULL, win, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)s->off);
		if (p == MAP_FAILED) {
			record(r, s, errno, 0, false, "mmap");
			return;
		}
		s->map = p;
		s->done = 0;
	}
	if (!touch(s->map + s->done)) {
		/* Retried by the next operation, like a failed write. */
		record(r, s, ENOSPC, 0, false, "page fault");
		return;
	}
	record(r, s, 0, s->page, false, "page fault");
	s->done += s->page;
	if (s->done == win) {
		unmap_window(r, s);
		advance(r, s);
	}
}

static void step_entry(struct run *r, struct fill_state *s)
{
	static const char *const prefix[] = {
		[M_FILES] = "file", [M_DIRS] = "dir", [M_SYMLINKS] = "link",
	};
	size_t n;
	int fd;

	/* A new name per attempt, also after a failure. */
	n = (size_t)snprintf(s->name, sizeof(s->name), "%s.%" PRIu64, prefix[s->mode], s->seq++);
	if (r->cfg->name_len > n) {
		memset(s->name + n, '_', r->cfg->name_len - n);
		s->name[r->cfg->name_len] = '\0';
	}
	switch (s->mode) {
	case M_FILES:
		fd = openat(r->wfd, s->name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0) {
			record(r, s, errno, 0, false, "open");
			break;
		}
		record(r, s, 0, 0, false, "open");
		if (close(fd))
			record(r, s, errno, 0, false, "close");
		break;
	case M_DIRS:
		record(r, s, mkdirat(r->wfd, s->name, 0755) ? errno : 0, 0, false, "mkdir");
		break;
	default:
		if (symlinkat(s->target, r->wfd, s->name))
			record(r, s, errno, 0, false, "symlink");
		else
			record(r, s, 0, r->cfg->symlink_len, false, "symlink");
		break;
	}
}

enum mode fill_mode_of(enum flood_op op)
{
	static const enum mode m[] = {
		[F_WRITE] = M_BUFFERED, [F_FALLOCATE] = M_FALLOCATE,
		[F_CREATE] = M_FILES, [F_MKDIR] = M_DIRS,
	};
	return m[op];
}

/*
 * Run MODE until its first ENOSPC plus AFTER_FULL more operations, or until
 * --max-ops/--max-bytes (which also cap the operations after ENOSPC), an
 * unexpected error, or a signal.
 */
void fill(struct run *r, enum mode mode, uint64_t after_full)
{
	const struct config *cfg = r->cfg;
	struct fill_state s = { .mode = mode, .fd = -1, .page = (size_t)sysconf(_SC_PAGESIZE) };
	struct sigaction sa = { .sa_handler = on_sigbus, .sa_flags = SA_NODEFER }, old_sa;
	uint64_t left = 0, ops, enospc;
	bool full = false;

	if (mode == M_SYMLINKS) {
		s.target = malloc(cfg->symlink_len + 1);
		if (!s.target) {
			note("out of memory");
			r->failed = true;
			return;
		}
		for (size_t i = 0; i < cfg->symlink_len; i++)
			s.target[i] = (char)('a' + i % 26);
		s.target[cfg->symlink_len] = '\0';
	}
	if (mode == M_MMAP)
		sigaction(SIGBUS, &sa, &old_sa);

	while (!r->failed && !(full && !left)) {
		if (stop_requested) {
			r->interrupted = true;
			break;
		}
		if (cfg->max_ops && r->c.ops >= cfg->max_ops) {
			r->bound = full ? B_NONE : B_OPS;
			break;
		}
		if (cfg->max_bytes && r->c.bytes >= cfg->max_bytes) {
			r->bound = full ? B_NONE : B_BYTES;
			break;
		}
		ops = r->c.ops;
		enospc = r->c.enospc;
		switch (mode) {
		case M_BUFFERED:
		case M_DIRECT:
			step_write(r, &s);
			break;
		case M_FALLOCATE:
			step_fallocate(r, &s);
			break;
		case M_MMAP:
			step_mmap(r, &s);
			break;
		default:
			step_entry(r, &s);
			break;
		}
		if (full) {
			ops = r->c.ops - ops;
			left -= ops < left ? ops : left;
		} else if (r->c.enospc > enospc) {
			full = true;
			left = after_full;
		}
	}
	close_data(r, &s);
	if (mode == M_MMAP)
		sigaction(SIGBUS, &old_sa, NULL);
	free(s.target);
}
