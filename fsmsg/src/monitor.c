// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What fsmsg does with the messages it receives, independent of sockets.
 */
#include "monitor.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#define PREFIX "fsmsg: "

void fsm_fs_list_free(struct fsm_fs_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		fsm_fs_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int fsm_fs_list_add(struct fsm_fs_list *l, const void *buf, size_t len,
		    int family, struct fsm_error *err)
{
	struct fsm_fs fs;
	int ret = fsm_fs_parse(buf, len, family, &fs, err);

	if (ret != FSM_PARSE_OK)
		return ret == FSM_PARSE_IGNORED ? 0 : ret;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct fsm_fs *v;

		if (cap > SIZE_MAX / sizeof(*v))
			return -2;
		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -2;
		l->v = v;
		l->cap = cap;
	}
	if (fsm_fs_clone(&l->v[l->n], &fs) < 0)
		return -2;
	l->n++;
	return 0;
}

int fsm_monitor_init(struct fsm_monitor *m)
{
	fsm_buf_init(&m->buf);
	fsm_fields_init(&m->fields);
	m->events = m->summaries = m->invalid = m->missed = m->overruns = 0;
	m->rejected = m->rejected_unsaid = m->rejected_said_ns = 0;
	m->rejected_port = 0;
	m->done = m->acct_full_reported = m->metrics_full_reported = false;
	m->write_errno = 0;
	m->acct = fsm_acct_new(FSM_ACCT_DEFAULT_MAX_KEYS);
	return m->acct ? 0 : -1;
}

void fsm_monitor_fini(struct fsm_monitor *m)
{
	fsm_acct_free(m->acct);
	m->acct = NULL;
	fsm_buf_free(&m->buf);
	fsm_fields_free(&m->fields);
}

/* A line to syslog and to the journal, whichever are set. */
static void log_text(struct fsm_monitor *m, int prio, const char *line)
{
	if (m->log)
		m->log(m->log_arg, prio, line);
	if (m->sink && fsm_journal_text(&m->fields, prio, line) == 0)
		m->sink(m->sink_arg, &m->fields);
}

static void vreport(struct fsm_monitor *m, int prio, bool terminal,
		    const char *fmt, va_list ap)
{
	char line[512];

	/* Diagnostics are short; a cut one is still a diagnostic. */
	vsnprintf(line, sizeof(line), fmt, ap);
	if (terminal && m->err) {
		fprintf(m->err, PREFIX "%s\n", line);
		fflush(m->err);
	}
	log_text(m, prio, line);
}

void fsm_monitor_report(struct fsm_monitor *m, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(m, prio, true, fmt, ap);
	va_end(ap);
}

void fsm_monitor_log(struct fsm_monitor *m, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(m, prio, false, fmt, ap);
	va_end(ap);
}

static void metrics_full(struct fsm_monitor *m)
{
	if (m->metrics_full_reported)
		return;
	m->metrics_full_reported = true;
	if (m->metrics->n >= m->metrics->max)
		fsm_monitor_report(m, LOG_WARNING,
				   "the metrics file holds %zu series already: further filesystems and warning types are left out of it",
				   m->metrics->n);
	else
		fsm_monitor_report(m, LOG_ERR,
				   "out of memory: a series is missing from the metrics file");
}

/* The metrics, their series in the accounting's table; NULL: none. */
static struct fsm_metrics *metrics(struct fsm_monitor *m)
{
	if (m->metrics)
		fsm_metrics_share(m->metrics, m->acct);
	return m->metrics;
}

static void observe(struct fsm_monitor *m, const struct fsm_labels *l,
		    uint64_t count, uint64_t ts_ns)
{
	if (metrics(m) && fsm_metrics_observe(m->metrics, l, count, ts_ns) < 0)
		metrics_full(m);
}

/* Every counter of the dump rows that passes the filters, to the metrics. */
static void observe_rows(struct fsm_monitor *m, const struct fsm_fs_list *l)
{
	if (!m->metrics)
		return;
	for (size_t i = 0; i < l->n; i++) {
		const struct fsm_fs *fs = &l->v[i];
		struct fsm_labels lab = {
			.major = fs->major, .minor = fs->minor,
			.fstype = fs->fstype, .device = fs->device,
			.has_uuid = fs->has_uuid,
		};

		if (!fsm_filter_fs(m->filter, fs->major, fs->minor, fs->fstype,
				   fs->has_uuid ? fs->uuid : NULL))
			continue;
		memcpy(lab.uuid, fs->uuid, sizeof(lab.uuid));
		for (size_t j = 0; j < fs->ncounters; j++) {
			const struct fsm_counter *c = &fs->counters[j];

			if (!fsm_filter_warning(m->filter, c->warning))
				continue;
			lab.warning = c->warning;
			observe(m, &lab, c->count, c->last_ns);
		}
	}
}

/* Write the line in m->buf to the output; flushed per line for pipes. */
static int emit(struct fsm_monitor *m)
{
	if (m->buf.oom) {
		fsm_monitor_report(m, LOG_ERR, "out of memory formatting an event");
		return 0;
	}
	if (!m->out)
		return 0;
	errno = 0;
	if (fwrite(fsm_buf_str(&m->buf), 1, m->buf.len, m->out) != m->buf.len ||
	    fflush(m->out) != 0) {
		m->write_errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

/* The buffer's line without its newline, to syslog. */
static void log_line(struct fsm_monitor *m, int prio, size_t skip)
{
	if (!m->log || m->buf.oom || m->buf.len <= skip)
		return;
	if (m->buf.data[m->buf.len - 1] == '\n')
		m->buf.data[--m->buf.len] = '\0';
	m->log(m->log_arg, prio, m->buf.data + skip);
}

/* Fills in ms->mnt: the lookup only for the reports that pass the filters. */
static int report_missed(struct fsm_monitor *m, struct fsm_missed *ms,
			 uint64_t now_ns)
{
	int ret = 0;

	struct fsm_key key = { ms->major, ms->minor, ms->warning };
	uint32_t sev = fsm_acct_severity(m->acct, &key);

	if (!fsm_filter_warning(m->filter, ms->warning) ||
	    !fsm_filter_fs(m->filter, ms->major, ms->minor, ms->fstype,
			   ms->has_uuid ? ms->uuid : NULL))
		return 0;
	/* --severity: as the key's messages, those of a key never seen
	 * counting as warnings (the kernel's filter may keep them away). */
	if ((sev ? sev : FS_MSG_SEVERITY_WARNING) < m->filter->min_severity)
		return 0;
	if (m->mounts)
		fsm_mounts_find(m->mounts, ms->major, ms->minor, now_ns, &ms->mnt);
	m->missed += ms->missed;
	if (m->metrics) {
		m->metrics->missed += ms->missed;
		m->metrics->changed = true;
	}
	/* JSON: on stdout too, and syslog gets what stdout gets. */
	if (m->json) {
		fsm_buf_reset(&m->buf);
		fsm_format_missed_json(&m->buf, ms, now_ns);
		ret = emit(m);
		log_line(m, LOG_ERR, 0);
	}
	fsm_buf_reset(&m->buf);
	fsm_format_missed_text(&m->buf, ms);
	if (m->err && !m->buf.oom) {
		fputs(fsm_buf_str(&m->buf), m->err);
		fflush(m->err);
	}
	if (!m->json)
		log_line(m, LOG_ERR, strlen(PREFIX));
	if (m->sink && fsm_journal_missed(&m->fields, ms) == 0)
		m->sink(m->sink_arg, &m->fields);
	return ret;
}

static void acct_full(struct fsm_monitor *m)
{
	if (m->acct_full_reported)
		return;
	m->acct_full_reported = true;
	fsm_monitor_report(m, LOG_WARNING,
			   "tracking %zu filesystem warning types already: missed warnings on further ones will not be counted",
			   fsm_acct_size(m->acct));
}

int fsm_monitor_message(struct fsm_monitor *m, const void *buf, size_t len,
			uint64_t now_ns)
{
	struct fsm_event ev;
	struct fsm_error err;
	struct fsm_key key;
	uint64_t missed = 0;
	int ret;

	ret = fsm_event_parse(buf, len, m->family, &ev, &err);
	if (ret == FSM_PARSE_IGNORED)
		return 0;
	if (ret != FSM_PARSE_OK) {
		m->invalid++;
		fsm_monitor_report(m, LOG_WARNING,
				   "skipped an invalid FS_MSG message: %s", err.msg);
		return 0;
	}

	key = (struct fsm_key){ ev.major, ev.minor, ev.warning };
	if ((ev.summary ? fsm_acct_summary : fsm_acct_event)(m->acct, &key,
			ev.count, ev.has_suppressed ? ev.suppressed : 0,
			ev.has_timestamp ? ev.timestamp_ns : 0, &missed) < 0)
		acct_full(m);
	fsm_acct_set_severity(m->acct, &key, ev.severity);
	if (missed) {
		struct fsm_missed ms = {
			.major = ev.major, .minor = ev.minor,
			.warning = ev.warning, .missed = missed,
			.fstype = ev.fstype, .device = ev.device,
			.has_uuid = ev.has_uuid,
		};

		memcpy(ms.uuid, ev.uuid, sizeof(ms.uuid));
		if (report_missed(m, &ms, now_ns) < 0)
			return -1;
	}

	if (!fsm_filter_event(m->filter, &ev))
		return 0;
	if (m->metrics) {
		struct fsm_labels lab = {
			.major = ev.major, .minor = ev.minor,
			.warning = ev.warning, .fstype = ev.fstype,
			.device = ev.device, .has_uuid = ev.has_uuid,
		};

		memcpy(lab.uuid, ev.uuid, sizeof(lab.uuid));
		observe(m, &lab, ev.count, ev.has_timestamp ? ev.timestamp_ns : 0);
	}
	if (m->mounts)
		fsm_mounts_find(m->mounts, ev.major, ev.minor, now_ns, &ev.mnt);
	fsm_buf_reset(&m->buf);
	if (m->json)
		fsm_format_event_json(&m->buf, &ev, now_ns, m->received);
	else
		fsm_format_event_text(&m->buf, &ev, now_ns, m->received);
	if (emit(m) < 0)
		return -1;
	log_line(m, fsm_severity_priority(ev.severity), 0);
	if (m->sink && fsm_journal_event(&m->fields, &ev, now_ns, m->received) == 0)
		m->sink(m->sink_arg, &m->fields);
	if (ev.summary) {
		m->summaries++;
		return 0;
	}
	m->events++;
	if (m->max_events && m->events >= m->max_events)
		m->done = true;
	return 0;
}

static void say_rejected(struct fsm_monitor *m)
{
	uint64_t n = m->rejected_unsaid;

	if (!n)
		return;
	m->rejected_unsaid = 0;
	if (n == m->rejected)
		fsm_monitor_report(m, LOG_WARNING,
				   "ignored %llu message%s not sent by the kernel (port id %u): only the kernel's, from port id 0, are FS_MSG warnings",
				   (unsigned long long)n, n == 1 ? "" : "s",
				   m->rejected_port);
	else
		fsm_monitor_report(m, LOG_WARNING,
				   "ignored %llu more message%s not sent by the kernel (the last from port id %u), %llu in all",
				   (unsigned long long)n, n == 1 ? "" : "s",
				   m->rejected_port, (unsigned long long)m->rejected);
}

bool fsm_monitor_from_kernel(struct fsm_monitor *m, uint32_t portid,
			     uint64_t now_ns)
{
	if (portid == 0)
		return true;
	m->rejected++;
	m->rejected_unsaid++;
	m->rejected_port = portid;
	if (m->metrics) {
		m->metrics->rejected++;
		m->metrics->changed = true;
	}
	/* The first at once; then a tally at most once a minute. A clock
	 * that went back counts as time passed. */
	if (m->rejected == 1 || now_ns < m->rejected_said_ns ||
	    now_ns - m->rejected_said_ns >= FSM_REJECTED_REPORT_NS) {
		m->rejected_said_ns = now_ns;
		say_rejected(m);
	}
	return false;
}

void fsm_monitor_rejected_flush(struct fsm_monitor *m)
{
	say_rejected(m);
}

void fsm_monitor_seed(struct fsm_monitor *m, const struct fsm_fs_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct fsm_fs *fs = &l->v[i];

		for (size_t j = 0; j < fs->ncounters; j++) {
			const struct fsm_counter *c = &fs->counters[j];
			struct fsm_key key = { fs->major, fs->minor, c->warning };

			if (fsm_acct_seed(m->acct, &key, c->count, c->last_ns) < 0)
				acct_full(m);
		}
	}
	observe_rows(m, l);
}

void fsm_monitor_refresh(struct fsm_monitor *m, const struct fsm_fs_list *l)
{
	observe_rows(m, l);
	if (metrics(m) && fsm_metrics_mounted(m->metrics, l->v, l->n) < 0)
		fsm_monitor_report(m, LOG_ERR,
				   "out of memory: the series of unmounted filesystems stay in the metrics file for now");
}

void fsm_monitor_overrun(struct fsm_monitor *m)
{
	m->overruns++;
	if (m->metrics) {
		m->metrics->overruns++;
		m->metrics->changed = true;
	}
	fsm_monitor_report(m, LOG_ERR,
			   "overrun: events were dropped because the socket receive buffer was full; counting the missed warnings from the kernel's counters");
}

int fsm_monitor_resync(struct fsm_monitor *m, const struct fsm_fs_list *l,
		       uint64_t now_ns)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct fsm_fs *fs = &l->v[i];

		for (size_t j = 0; j < fs->ncounters; j++) {
			const struct fsm_counter *c = &fs->counters[j];
			struct fsm_key key = { fs->major, fs->minor, c->warning };
			struct fsm_missed ms;
			uint64_t missed;

			if (fsm_acct_sync(m->acct, &key, c->count, c->last_ns,
					  &missed) < 0) {
				acct_full(m);
				continue;
			}
			if (!missed)
				continue;
			ms = (struct fsm_missed){
				.major = fs->major, .minor = fs->minor,
				.warning = c->warning, .missed = missed,
				.fstype = fs->fstype, .device = fs->device,
				.has_uuid = fs->has_uuid,
			};
			memcpy(ms.uuid, fs->uuid, sizeof(ms.uuid));
			if (report_missed(m, &ms, now_ns) < 0)
				return -1;
		}
	}
	observe_rows(m, l);
	return 0;
}

static int cmp_fs(const void *a, const void *b)
{
	const struct fsm_fs *x = a, *y = b;

	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return 0;
}

int fsm_monitor_list(struct fsm_monitor *m, const struct fsm_fs_list *l)
{
	struct fsm_fs *rows = NULL;
	uint32_t *cols = NULL;
	size_t n = 0;
	long ncols;
	int ret = -1;

	/* Shallow copies: the strings stay owned by @l. */
	if (l->n && !(rows = calloc(l->n, sizeof(*rows))))
		goto oom;
	for (size_t i = 0; i < l->n; i++) {
		const struct fsm_fs *fs = &l->v[i];

		if (fsm_filter_fs(m->filter, fs->major, fs->minor, fs->fstype,
				  fs->has_uuid ? fs->uuid : NULL)) {
			rows[n] = *fs;
			if (m->mounts)
				fsm_mounts_find(m->mounts, fs->major, fs->minor,
						0, &rows[n].mnt);
			n++;
		}
	}
	/* A row not in the table may have re-read it, which moves the
	 * strings of the rows before: look them all up again as it is now. */
	if (m->mounts)
		for (size_t i = 0; i < n; i++)
			fsm_mounts_lookup(m->mounts, rows[i].major,
					  rows[i].minor, &rows[i].mnt);
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_fs);
	ncols = fsm_filter_columns(m->filter, rows, n, &cols);
	if (ncols < 0)
		goto oom;

	fsm_buf_reset(&m->buf);
	if (m->json) {
		for (size_t i = 0; i < n; i++)
			fsm_format_fs_json(&m->buf, &rows[i], cols, (size_t)ncols);
	} else {
		fsm_format_fs_table(&m->buf, rows, n, cols, (size_t)ncols);
	}
	if (m->buf.oom)
		goto oom;
	ret = emit(m);
	goto out;
oom:
	fsm_monitor_report(m, LOG_ERR, "out of memory listing filesystems");
	m->write_errno = ENOMEM;
out:
	free(rows);
	free(cols);
	return ret;
}
