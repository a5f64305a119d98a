/* SPDX-License-Identifier: GPL-2.0 */
/* alloc_test: fill a filesystem until ENOSPC and report exactly what happened. */
#ifndef ALLOC_TEST_H
#define ALLOC_TEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Linux errno values are below 134; slot 0 collects anything out of range. */
#define ERRNO_SLOTS 256

enum mode { M_BUFFERED, M_DIRECT, M_FALLOCATE, M_FILES, M_DIRS, M_SYMLINKS, M_MMAP, M_FLOOD };
enum flood_op { F_WRITE, F_FALLOCATE, F_CREATE, F_MKDIR };

struct config {
	enum mode mode;
	const char *dir;
	const char *workdir_name;	/* NULL: alloc_test.<pid> */
	size_t block_size;
	uint64_t file_size;
	uint64_t max_ops, max_bytes;	/* 0: no bound */
	uint64_t after_full;
	size_t symlink_len;
	size_t name_len;		/* entry names padded to this; 0: natural */
	enum flood_op flood_op;
	unsigned threads;
	uint64_t flood_ops;		/* per thread; 0: no bound */
	double flood_seconds;		/* 0: no bound */
	bool no_fill, keep, json, quiet;
	bool fsync;			/* fsync() after each buffered write */
};

struct counts {
	uint64_t ops, ok, enospc, shrt, other, bytes;
	uint64_t err[ERRNO_SLOTS];	/* errno of each "other" failure */
};

struct run {
	const struct config *cfg;
	int wfd;			/* work folder; everything is created with *at() */
	const char *wpath;		/* its path, for messages only */
	void *buf;			/* block_size bytes, page aligned (O_DIRECT) */
	struct counts c;
	enum { B_NONE, B_OPS, B_BYTES } bound;	/* the limit that stopped the fill before ENOSPC */
	bool failed;			/* an unexpected error; the run ends with result=error */
	bool interrupted;
	double flood_secs;		/* duration of the flood phase */
	uint64_t flood_ops;		/* operations of the flood phase */
};

/* Set by SIGINT/SIGTERM: stop issuing operations, clean up, exit 2.
 * Atomic rather than sig_atomic_t because the flood threads read it too. */
extern atomic_int stop_requested;

/* util.c */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void errmsg(const char *path, const char *name, const char *what, int err);
char *join_path(const char *dir, const char *name);
bool parse_u64(const char *s, bool suffixes, uint64_t *out);
const char *errno_name(int slot, char *buf, size_t size);
int errno_slot(int err);
void count_op(struct counts *c, int err, uint64_t bytes, bool shrt);
void add_counts(struct counts *to, const struct counts *from);
double now(void);
int remove_tree(int parent_fd, const char *parent_path, const char *name);

/* fill.c */
enum mode fill_mode_of(enum flood_op op);
void fill(struct run *r, enum mode mode, uint64_t after_full);

/* flood.c */
void flood(struct run *r);

#endif
