// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Prometheus metrics for node_exporter's textfile collector: the series
 * (in the accounting's table), the exposition format, and the atomic
 * file rewrite.
 */
#include "metrics.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accounting.h"

#define NSEC_PER_SEC 1000000000ULL

enum { KEY_DEVICE, KEY_FSTYPE, KEY_UUID };

void fsm_metrics_init(struct fsm_metrics *m, uint64_t start_ns, size_t max)
{
	memset(m, 0, sizeof(*m));
	m->start_ns = start_ns;
	m->max = max ? max : 1;
	for (int i = 0; i < 3; i++)
		fsm_buf_init(&m->key[i]);
}

void fsm_metrics_free(struct fsm_metrics *m)
{
	if (m->own_acct)
		fsm_acct_free(m->acct);
	m->acct = NULL;
	m->own_acct = false;
	for (int i = 0; i < 3; i++)
		fsm_buf_free(&m->key[i]);
	m->n = 0;
}

void fsm_metrics_share(struct fsm_metrics *m, struct fsm_acct *acct)
{
	if (m->acct == acct)
		return;
	if (m->own_acct)
		fsm_acct_free(m->acct);
	m->acct = acct;
	m->own_acct = false;
	m->n = 0;
	if (acct) {
		size_t pos = 0;
		struct fsm_series **h;

		while ((h = fsm_acct_next_series(acct, &pos)))
			for (const struct fsm_series *s = *h; s; s = s->next)
				m->n++;
	}
}

int fsm_prom_label_value(struct fsm_buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s)
		return b->oom ? -1 : 0;
	while (*s) {
		size_t n = fsm_utf8_seq(s);

		if (*s == '\\') {
			fsm_buf_puts(b, "\\\\");
		} else if (*s == '"') {
			fsm_buf_puts(b, "\\\"");
		} else if (*s == '\n') {
			fsm_buf_puts(b, "\\n");
		} else if (n == 0 || *s < 0x20 || *s == 0x7f) {
			/* The format only knows three escapes: the label
			 * value holds the four characters \xNN instead. */
			fsm_buf_printf(b, "\\\\x%02x", *s);
		} else {
			fsm_buf_append(b, s, n);
			s += n;
			continue;
		}
		s++;
	}
	return b->oom ? -1 : 0;
}

/* Render the labels of @l into m->key[]. Returns 0 or -1 (out of memory). */
static int render_key(struct fsm_metrics *m, const struct fsm_labels *l)
{
	for (int i = 0; i < 3; i++)
		fsm_buf_reset(&m->key[i]);
	fsm_prom_label_value(&m->key[KEY_DEVICE], l->device);
	fsm_prom_label_value(&m->key[KEY_FSTYPE], l->fstype);
	if (l->has_uuid)
		fsm_format_uuid(&m->key[KEY_UUID], l->uuid);
	for (int i = 0; i < 3; i++) {
		/* Make an empty buffer a string too. */
		if (fsm_buf_append(&m->key[i], "", 0) < 0)
			return -1;
	}
	return 0;
}

static bool same_labels(const struct fsm_series *s, const struct fsm_metrics *m)
{
	return !strcmp(s->uuid, fsm_buf_str(&m->key[KEY_UUID])) &&
	       !strcmp(s->fstype, fsm_buf_str(&m->key[KEY_FSTYPE])) &&
	       !strcmp(s->device, fsm_buf_str(&m->key[KEY_DEVICE]));
}

/* The series with the labels in m->key[] in the list of @head. */
static struct fsm_series *lookup(const struct fsm_metrics *m,
				 struct fsm_series **head)
{
	struct fsm_series *s = head ? *head : NULL;

	while (s && !same_labels(s, m))
		s = s->next;
	return s;
}

static struct fsm_key key_of(const struct fsm_labels *l)
{
	return (struct fsm_key){ l->major, l->minor, l->warning };
}

const struct fsm_series *fsm_metrics_find(struct fsm_metrics *m,
					  const struct fsm_labels *l)
{
	struct fsm_key k = key_of(l);

	if (!m->acct || render_key(m, l) < 0)
		return NULL;
	return lookup(m, fsm_acct_series(m->acct, &k, false));
}

static int insert(struct fsm_metrics *m, const struct fsm_labels *l,
		  uint64_t count, uint64_t ts_ns)
{
	size_t len[3], size = sizeof(struct fsm_series);
	struct fsm_key k = key_of(l);
	struct fsm_series **head, *s;
	char *p;

	if (m->n >= m->max) {
		m->untracked++;
		return -1;
	}
	for (int i = 0; i < 3; i++) {
		len[i] = m->key[i].len;
		if (len[i] >= SIZE_MAX / 4 - size)
			return -1;
		size += len[i] + 1;
	}
	head = fsm_acct_series(m->acct, &k, true);
	if (!head) {
		m->untracked++;
		return -1;
	}
	s = malloc(size);
	if (!s) {
		/* A key added for it and left empty goes at the next prune. */
		return -1;
	}
	*s = (struct fsm_series){
		.major = l->major, .minor = l->minor, .warning = l->warning,
		.count = count, .last_ns = ts_ns,
	};
	p = s->text;
	s->device = p;
	memcpy(p, fsm_buf_str(&m->key[KEY_DEVICE]), len[KEY_DEVICE] + 1);
	p += len[KEY_DEVICE] + 1;
	s->fstype = p;
	memcpy(p, fsm_buf_str(&m->key[KEY_FSTYPE]), len[KEY_FSTYPE] + 1);
	p += len[KEY_FSTYPE] + 1;
	s->uuid = p;
	memcpy(p, fsm_buf_str(&m->key[KEY_UUID]), len[KEY_UUID] + 1);
	s->next = *head;
	*head = s;
	m->n++;
	m->changed = true;
	return 0;
}

int fsm_metrics_observe(struct fsm_metrics *m, const struct fsm_labels *l,
			uint64_t count, uint64_t ts_ns)
{
	struct fsm_key k = key_of(l);
	struct fsm_series *s;

	if (!m->acct) {
		m->acct = fsm_acct_new(FSM_ACCT_DEFAULT_MAX_KEYS);
		if (!m->acct)
			return -1;
		m->own_acct = true;
	}
	if (render_key(m, l) < 0)
		return -1;
	s = lookup(m, fsm_acct_series(m->acct, &k, false));
	if (!s)
		return insert(m, l, count, ts_ns);
	s->gone = false;
	if (count > s->count) {
		s->count = count;
		if (ts_ns > s->last_ns)
			s->last_ns = ts_ns;
		m->changed = true;
	} else if (count < s->count && fsm_remounted(ts_ns, s->last_ns)) {
		/* Mounted again: the kernel counts from zero. */
		s->count = count;
		s->last_ns = ts_ns;
		m->changed = true;
	} else if (ts_ns > s->last_ns) {
		s->last_ns = ts_ns;
		m->changed = true;
	}
	return 0;
}

static int cmp_dev(uint32_t amaj, uint32_t amin, uint32_t bmaj, uint32_t bmin)
{
	if (amaj != bmaj)
		return amaj < bmaj ? -1 : 1;
	if (amin != bmin)
		return amin < bmin ? -1 : 1;
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct fsm_fs *x = *(const struct fsm_fs *const *)a;
	const struct fsm_fs *y = *(const struct fsm_fs *const *)b;

	return cmp_dev(x->major, x->minor, y->major, y->minor);
}

/* Whether a row of @rows (sorted by device number) is the filesystem of @s. */
static bool listed(struct fsm_metrics *m, const struct fsm_series *s,
		   const struct fsm_fs *const *rows, size_t n)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_dev(rows[mid]->major, rows[mid]->minor, s->major, s->minor) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && !cmp_dev(rows[lo]->major, rows[lo]->minor,
				  s->major, s->minor); lo++) {
		const struct fsm_fs *fs = rows[lo];
		struct fsm_labels l = {
			.major = fs->major, .minor = fs->minor,
			.fstype = fs->fstype, .device = fs->device,
			.has_uuid = fs->has_uuid,
		};

		memcpy(l.uuid, fs->uuid, sizeof(l.uuid));
		/* Out of memory: count it as listed, so nothing is lost. */
		if (render_key(m, &l) < 0 || same_labels(s, m))
			return true;
	}
	return false;
}

int fsm_metrics_mounted(struct fsm_metrics *m, const struct fsm_fs *rows,
			size_t n)
{
	const struct fsm_fs **v = NULL;
	struct fsm_series **h;
	size_t pos = 0;

	if (!m->acct || !m->n)
		return 0;
	if (n && !(v = calloc(n, sizeof(*v))))
		return -1;
	for (size_t i = 0; i < n; i++)
		v[i] = &rows[i];
	if (n)
		qsort(v, n, sizeof(*v), cmp_row);
	while ((h = fsm_acct_next_series(m->acct, &pos)))
		for (struct fsm_series *s = *h; s; s = s->next)
			if (!s->gone && !listed(m, s, v, n)) {
				/* Written once more with its final values. */
				s->gone = true;
				m->changed = true;
			}
	free(v);
	return 0;
}

void fsm_metrics_written(struct fsm_metrics *m)
{
	struct fsm_series **h;
	size_t pos = 0, dropped = 0;

	if (!m->acct)
		return;
	while ((h = fsm_acct_next_series(m->acct, &pos))) {
		while (*h) {
			struct fsm_series *s = *h;

			if (!s->gone) {
				h = &s->next;
				continue;
			}
			*h = s->next;
			free(s);
			dropped++;
		}
	}
	m->n -= dropped;
	if (!dropped)
		return;
	/* The next file leaves them out. Out of memory: the empty keys
	 * stay until a later prune. */
	m->changed = true;
	fsm_acct_prune(m->acct);
}

static void labels(struct fsm_buf *b, const struct fsm_series *s)
{
	fsm_buf_printf(b, "{dev=\"%u:%u\",device=\"%s\",fstype=\"%s\",uuid=\"%s\",warning=\"",
		       s->major, s->minor, s->device, s->fstype, s->uuid);
	fsm_format_warning_name(b, s->warning);
	fsm_buf_puts(b, "\"}");
}

static void family(struct fsm_buf *b, const char *name, const char *type,
		   const char *help)
{
	fsm_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Seconds with all nine decimals: exact, and the same bytes every time. */
static void seconds(struct fsm_buf *b, uint64_t ns)
{
	fsm_buf_printf(b, " %llu.%09llu\n", (unsigned long long)(ns / NSEC_PER_SEC),
		       (unsigned long long)(ns % NSEC_PER_SEC));
}

/* The order of the file: device number, warning type, then the labels. */
static int cmp_series(const void *a, const void *b)
{
	const struct fsm_series *x = *(const struct fsm_series *const *)a;
	const struct fsm_series *y = *(const struct fsm_series *const *)b;
	int c = cmp_dev(x->major, x->minor, y->major, y->minor);

	if (c)
		return c;
	if (x->warning != y->warning)
		return x->warning < y->warning ? -1 : 1;
	if ((c = strcmp(x->uuid, y->uuid)))
		return c;
	if ((c = strcmp(x->fstype, y->fstype)))
		return c;
	return strcmp(x->device, y->device);
}

/* The order of the info series: device number, then the labels. */
static int cmp_fs_series(const void *a, const void *b)
{
	const struct fsm_series *x = *(const struct fsm_series *const *)a;
	const struct fsm_series *y = *(const struct fsm_series *const *)b;
	int c = cmp_dev(x->major, x->minor, y->major, y->minor);

	if (c)
		return c;
	if ((c = strcmp(x->uuid, y->uuid)))
		return c;
	if ((c = strcmp(x->fstype, y->fstype)))
		return c;
	return strcmp(x->device, y->device);
}

/* fsmsg_filesystem_info: @v (@n series) is sorted again, by filesystem. */
static void render_info(const struct fsm_metrics *m, struct fsm_buf *b,
			const struct fsm_series **v, size_t n)
{
	family(b, "fsmsg_filesystem_info", "gauge",
	       "Where each filesystem with warnings series is mounted, 1 per mount point; device and mountpoint as node_exporter's node_filesystem_* series have them.");
	if (n)
		qsort(v, n, sizeof(*v), cmp_fs_series);
	for (size_t i = 0; i < n; i++) {
		const struct fsm_series *s = v[i];
		struct fsm_mnts mnt;

		if (s->gone || (i && !cmp_fs_series(&v[i - 1], &v[i])))
			continue;
		fsm_mounts_lookup(m->mounts, s->major, s->minor, &mnt);
		for (size_t j = 0; j < mnt.n; j++) {
			fsm_buf_printf(b, "fsmsg_filesystem_info{dev=\"%u:%u\",device=\"",
				       s->major, s->minor);
			fsm_prom_label_value(b, mnt.source);
			fsm_buf_printf(b, "\",fstype=\"%s\",uuid=\"%s\",mountpoint=\"",
				       s->fstype, s->uuid);
			fsm_prom_label_value(b, mnt.paths[j]);
			fsm_buf_puts(b, "\"} 1\n");
		}
	}
}

int fsm_metrics_render(const struct fsm_metrics *m, struct fsm_buf *b)
{
	const struct fsm_series **v = NULL;
	size_t n = 0;

	if (m->acct && m->n) {
		struct fsm_series **h;
		size_t pos = 0;

		v = calloc(m->n, sizeof(*v));
		if (!v) {
			b->oom = true;
			return -1;
		}
		while ((h = fsm_acct_next_series(m->acct, &pos)))
			for (const struct fsm_series *s = *h; s && n < m->n; s = s->next)
				v[n++] = s;
		qsort(v, n, sizeof(*v), cmp_series);
	}
	family(b, "fsmsg_warnings_total", "counter",
	       "Warnings (out of space, errors, shutdowns) the kernel counted on the filesystem since it was mounted, whether fsmsg received them as messages or not.");
	for (size_t i = 0; i < n; i++) {
		fsm_buf_puts(b, "fsmsg_warnings_total");
		labels(b, v[i]);
		fsm_buf_printf(b, " %llu\n", (unsigned long long)v[i]->count);
	}
	family(b, "fsmsg_last_warning_timestamp_seconds", "gauge",
	       "Time of the latest such warning in seconds since the epoch; no series until there was one.");
	for (size_t i = 0; i < n; i++) {
		if (!v[i]->last_ns)
			continue;
		fsm_buf_puts(b, "fsmsg_last_warning_timestamp_seconds");
		labels(b, v[i]);
		seconds(b, v[i]->last_ns);
	}
	if (m->mounts)
		render_info(m, b, v, n);
	free(v);
	family(b, "fsmsg_missed_warnings_total", "counter",
	       "Warnings fsmsg knows it did not receive as messages (socket overruns, gaps in the counts).");
	fsm_buf_printf(b, "fsmsg_missed_warnings_total %llu\n",
		       (unsigned long long)m->missed);
	family(b, "fsmsg_overruns_total", "counter",
	       "Times the kernel dropped messages because fsmsg's socket receive buffer was full.");
	fsm_buf_printf(b, "fsmsg_overruns_total %llu\n",
		       (unsigned long long)m->overruns);
	family(b, "fsmsg_rejected_messages_total", "counter",
	       "Messages on the FS_MSG sockets that the kernel did not send (netlink port id not 0), ignored.");
	fsm_buf_printf(b, "fsmsg_rejected_messages_total %llu\n",
		       (unsigned long long)m->rejected);
	family(b, "fsmsg_start_time_seconds", "gauge",
	       "Start time of the fsmsg process in seconds since the epoch.");
	fsm_buf_puts(b, "fsmsg_start_time_seconds");
	seconds(b, m->start_ns);
	return b->oom ? -1 : 0;
}

int fsm_write_atomic(const char *path, const void *data, size_t len,
		     const char **stage)
{
	const unsigned char *p = data;
	char *tmp = NULL;
	int fd = -1, saved;

	*stage = "cannot create a temporary file";
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		errno = ENOMEM;
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		free(tmp);
		errno = saved;
		return -1;
	}
	*stage = "cannot write the temporary file";
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			goto fail;
		}
		p += n;
		len -= (size_t)n;
	}
	/* mkstemp made it 0600; node_exporter runs as another user. */
	*stage = "cannot make the temporary file readable";
	if (fchmod(fd, 0644) < 0)
		goto fail;
	*stage = "cannot flush the temporary file to disk";
	if (fsync(fd) < 0)
		goto fail;
	*stage = "cannot close the temporary file";
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	*stage = "cannot rename the temporary file";
	if (rename(tmp, path) < 0)
		goto fail;
	free(tmp);
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = saved;
	return -1;
}

/* The folder of absolute @path, malloc()ed; *base points into @path. */
static char *folder_of(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (!slash)
		return NULL;
	*base = slash + 1;
	dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	return dir;
}

static int check_fail(struct fsm_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int check_fail(struct fsm_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int fsm_textfile_check(const char *path, struct fsm_error *err)
{
	const char *base = NULL;
	char *dir = folder_of(path, &base);
	struct stat st;
	int ret = -1;

	err->msg[0] = '\0';
	if (!dir)
		return check_fail(err, "invalid metrics file '%s'", path);
	if (!*base) {
		check_fail(err, "metrics file '%s' names a folder, not a file", path);
	} else if (stat(dir, &st) < 0) {
		if (errno == ENOENT)
			check_fail(err, "cannot write the metrics file %s: the folder %s does not exist",
				   path, dir);
		else
			check_fail(err, "cannot write the metrics file %s: %s: %s",
				   path, dir, strerror(errno));
	} else if (!S_ISDIR(st.st_mode)) {
		check_fail(err, "cannot write the metrics file %s: %s is not a folder",
			   path, dir);
	} else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		check_fail(err, "metrics file %s is a folder", path);
	} else if (access(dir, W_OK | X_OK) < 0) {
		check_fail(err, "cannot write the metrics file %s: folder %s: %s",
			   path, dir, strerror(errno));
	} else {
		ret = 0;
	}
	free(dir);
	return ret;
}

int fsm_textfile_cleanup(const char *path)
{
	const char *base = NULL;
	char *dir = folder_of(path, &base), *prefix = NULL;
	struct dirent *de;
	size_t plen;
	int removed = 0;
	DIR *d;

	if (!dir || asprintf(&prefix, "%s.tmp.", base) < 0) {
		free(dir);
		return 0;
	}
	plen = strlen(prefix);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		if (!strncmp(de->d_name, prefix, plen) &&
		    strlen(de->d_name) == plen + 6 &&
		    unlinkat(dirfd(d), de->d_name, 0) == 0)
			removed++;
	}
	if (d)
		closedir(d);
	free(prefix);
	free(dir);
	return removed;
}
