// SPDX-License-Identifier: GPL-2.0
/*
 * Flood mode: after filling, K threads repeat one operation that is expected
 * to fail with ENOSPC, for --ops attempts each or for --seconds. Each attempt
 * is one syscall. Counters are per thread and summed after the join.
 */
#include "alloc_test.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Workers need little stack; the default 8 MiB each adds up in a small guest. */
#define WORKER_STACK (256 * 1024)

struct worker {
	_Alignas(64) struct counts c;	/* own cache lines: no false sharing */
	struct run *r;
	pthread_t tid;
	unsigned idx;
	int fd;				/* write/fallocate: this thread's file */
	uint64_t size;			/* its size; attempts go at the end so they must allocate */
	double deadline;		/* 0: none */
	char name[48];
};

/* Any thread's unexpected error stops them all. */
static atomic_bool abort_flood;

static void worker_record(struct worker *w, int err, uint64_t bytes, bool shrt, const char *what)
{
	count_op(&w->c, err, bytes, shrt);
	if (err && err != ENOSPC) {
		errmsg(w->r->wpath, w->name, what, err);
		atomic_store(&abort_flood, true);
	}
}

static void attempt(struct worker *w, uint64_t seq)
{
	const struct config *cfg = w->r->cfg;
	size_t bs = cfg->block_size;
	ssize_t n;
	int fd;

	switch (cfg->flood_op) {
	case F_WRITE:
		n = pwrite(w->fd, w->r->buf, bs, (off_t)w->size);
		if (n < 0) {
			worker_record(w, errno, 0, false, "pwrite");
			break;
		}
		worker_record(w, 0, (uint64_t)n, (size_t)n < bs, "pwrite");
		w->size += (uint64_t)n;
		break;
	case F_FALLOCATE:
		if (fallocate(w->fd, 0, (off_t)w->size, (off_t)bs)) {
			worker_record(w, errno, 0, false, "fallocate");
			break;
		}
		worker_record(w, 0, bs, false, "fallocate");
		w->size += bs;
		break;
	case F_CREATE:
		snprintf(w->name, sizeof(w->name), "flood.%u.%" PRIu64, w->idx, seq);
		fd = openat(w->r->wfd, w->name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0) {
			worker_record(w, errno, 0, false, "open");
			break;
		}
		worker_record(w, 0, 0, false, "open");
		if (close(fd))
			worker_record(w, errno, 0, false, "close");
		break;
	case F_MKDIR:
		snprintf(w->name, sizeof(w->name), "flood.%u.%" PRIu64, w->idx, seq);
		worker_record(w, mkdirat(w->r->wfd, w->name, 0755) ? errno : 0, 0, false, "mkdir");
		break;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t max = w->r->cfg->flood_ops;

	for (uint64_t seq = 0; !atomic_load_explicit(&abort_flood, memory_order_relaxed); seq++) {
		if (stop_requested || (max && w->c.ops >= max) || (w->deadline > 0 && now() >= w->deadline))
			break;
		attempt(w, seq);
	}
	return NULL;
}

/* The per-thread files exist before the fill: on a full filesystem even an
 * empty file may not fit. */
static bool create_files(struct run *r, struct worker *w, unsigned k)
{
	int err;

	for (unsigned i = 0; i < k; i++) {
		snprintf(w[i].name, sizeof(w[i].name), "flood.%u", i);
		w[i].fd = openat(r->wfd, w[i].name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (w[i].fd < 0) {
			err = errno;
			count_op(&r->c, err, 0, false);
			errmsg(r->wpath, w[i].name, "open", err);
			if (err == ENOSPC)
				note("the filesystem is already full: run flood without "
				     "--no-fill, so the thread files are created first");
			return false;
		}
	}
	return true;
}

static void run_threads(struct run *r, struct worker *w, unsigned k)
{
	const struct config *cfg = r->cfg;
	unsigned started = 0;
	pthread_attr_t attr;
	double t0;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	atomic_store(&abort_flood, false);
	t0 = now();
	for (; started < k; started++) {
		w[started].deadline = cfg->flood_seconds > 0 ? t0 + cfg->flood_seconds : 0;
		err = pthread_create(&w[started].tid, &attr, worker_main, &w[started]);
		if (err) {
			note("cannot start flood thread %u: %s", started, strerror(err));
			atomic_store(&abort_flood, true);
			r->failed = true;
			break;
		}
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(w[i].tid, NULL);
	r->flood_secs = now() - t0;
	pthread_attr_destroy(&attr);

	for (unsigned i = 0; i < started; i++) {
		add_counts(&r->c, &w[i].c);
		r->flood_ops += w[i].c.ops;
	}
	if (atomic_load(&abort_flood))
		r->failed = true;
	if (stop_requested)
		r->interrupted = true;
}

void flood(struct run *r)
{
	const struct config *cfg = r->cfg;
	unsigned k = cfg->threads;
	struct worker *w;
	void *mem;
	int err;

	/* calloc does not honour the 64-byte alignment of struct worker. */
	if (posix_memalign(&mem, _Alignof(struct worker), k * sizeof(*w))) {
		note("out of memory");
		r->failed = true;
		return;
	}
	w = memset(mem, 0, k * sizeof(*w));
	for (unsigned i = 0; i < k; i++) {
		w[i].r = r;
		w[i].idx = i;
		w[i].fd = -1;
	}
	if ((cfg->flood_op == F_WRITE || cfg->flood_op == F_FALLOCATE) && !create_files(r, w, k))
		r->failed = true;
	if (!r->failed && !cfg->no_fill)
		fill(r, fill_mode_of(cfg->flood_op), 0);
	if (!r->failed && !r->interrupted)
		run_threads(r, w, k);
	for (unsigned i = 0; i < k; i++) {
		if (w[i].fd >= 0 && close(w[i].fd)) {
			err = errno;
			count_op(&r->c, err, 0, false);
			errmsg(r->wpath, w[i].name, "close", err);
			r->failed = true;
		}
	}
	free(w);
}
