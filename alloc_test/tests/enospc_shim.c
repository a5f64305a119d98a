// SPDX-License-Identifier: GPL-2.0
/*
 * Test double for the host tests, which must not mount a small filesystem:
 * LD_PRELOAD this library to make one kind of syscall fail as on a full one.
 *
 *   SHIM_FUNC   comma-separated: write, pwrite, fallocate, openat (only with
 *               O_CREAT), mkdirat, symlinkat, msync, ftruncate
 *   SHIM_AFTER  let this many calls (of all SHIM_FUNC together) through first
 *   SHIM_ERRNO  errno of the failures (default ENOSPC)
 *   SHIM_SHORT  write/pwrite only: the first call after SHIM_AFTER writes half
 *               the bytes and returns that; later calls pass through
 *
 * ftruncate instead "succeeds" without changing the size, so that stores into
 * an mmap window past the end of the file get SIGBUS, like a page fault that
 * found no space.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_long calls;

/* -1: pass through; 0: fail (errno set); 1: SHIM_SHORT applies to this call. */
static bool wanted(const char *func)
{
	const char *p = getenv("SHIM_FUNC");
	size_t len = strlen(func);

	while (p) {
		if (!strncmp(p, func, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

static int shim(const char *func)
{
	const char *s;
	long n;

	if (!wanted(func))
		return -1;
	n = atomic_fetch_add(&calls, 1);
	s = getenv("SHIM_AFTER");
	if (n < (s ? atol(s) : 0))
		return -1;
	if (getenv("SHIM_SHORT"))
		return n == (s ? atol(s) : 0) ? 1 : -1;
	s = getenv("SHIM_ERRNO");
	errno = s ? atoi(s) : ENOSPC;
	return 0;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void *buf, size_t len)
{
	switch (shim("write")) {
	case 0:
		return -1;
	case 1:
		len /= 2;
		break;
	}
	return REAL(write)(fd, buf, len);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	switch (shim("pwrite")) {
	case 0:
		return -1;
	case 1:
		len /= 2;
		break;
	}
	return REAL(pwrite)(fd, buf, len, off);
}

int fallocate(int fd, int mode, off_t off, off_t len)
{
	return shim("fallocate") ? REAL(fallocate)(fd, mode, off, len) : -1;
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | __O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if ((flags & O_CREAT) && !shim("openat"))
		return -1;
	return REAL(openat)(dirfd, path, flags, mode);
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
	return shim("mkdirat") ? REAL(mkdirat)(dirfd, path, mode) : -1;
}

int symlinkat(const char *target, int dirfd, const char *path)
{
	return shim("symlinkat") ? REAL(symlinkat)(target, dirfd, path) : -1;
}

int msync(void *addr, size_t len, int flags)
{
	return shim("msync") ? REAL(msync)(addr, len, flags) : -1;
}

int ftruncate(int fd, off_t len)
{
	return shim("ftruncate") ? REAL(ftruncate)(fd, len) : 0;
}
