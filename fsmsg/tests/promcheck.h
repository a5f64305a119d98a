/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A strict parser of the Prometheus text exposition format (0.0.4), for
 * the tests and the fuzzer: what node_exporter's textfile collector and
 * `promtool check metrics` accept, and a bit more strict than both, so
 * that the metrics file's format stays tidy:
 *
 *   - every line ends with a newline; no empty lines, no other comments;
 *   - "# HELP name text" then "# TYPE name counter|gauge" once per family,
 *     before its samples; a family's samples are contiguous;
 *   - names [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*,
 *     no label twice in a sample, no "__" prefix;
 *   - label values quoted, only \\ \" \n as escapes, valid UTF-8;
 *   - HELP text escapes only \\ and \n;
 *   - a value strtod() takes whole, no timestamp (the textfile collector
 *     refuses them); counters end in _total and are not negative;
 *   - no series twice.
 */
#ifndef FSMSG_PROMCHECK_H
#define FSMSG_PROMCHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

struct promcheck {
	char err[256];		/* why it failed, with the line number */
	size_t samples;
	size_t families;
};

static inline int pc_fail(struct promcheck *pc, size_t line, const char *fmt,
			  ...) __attribute__((format(printf, 3, 4)));

static inline int pc_fail(struct promcheck *pc, size_t line, const char *fmt,
			  ...)
{
	va_list ap;
	int n = snprintf(pc->err, sizeof(pc->err), "line %zu: ", line);

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(pc->err))
		vsnprintf(pc->err + n, sizeof(pc->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static inline bool pc_name_char(char c, bool first, bool colon)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (colon && c == ':') || (!first && c >= '0' && c <= '9');
}

/* Length of the name at @s, 0 if there is none. */
static inline size_t pc_name(const char *s, bool colon)
{
	size_t n = 0;

	while (s[n] && pc_name_char(s[n], n == 0, colon))
		n++;
	return n;
}

/* A quoted label value at @s (after the opening quote): its length up to
 * the closing quote, or 0 with pc->err set. */
static inline size_t pc_label_value(struct promcheck *pc, size_t line,
				    const char *s)
{
	size_t i = 0;

	while (s[i] != '"') {
		if (!s[i] || s[i] == '\n') {
			pc_fail(pc, line, "unterminated label value");
			return 0;
		}
		if (s[i] == '\\') {
			if (s[i + 1] != '\\' && s[i + 1] != '"' && s[i + 1] != 'n') {
				pc_fail(pc, line, "invalid escape \\%c in a label value",
					s[i + 1]);
				return 0;
			}
			i += 2;
			continue;
		}
		{
			size_t n = fsm_utf8_seq((const unsigned char *)s + i);

			if (!n) {
				pc_fail(pc, line, "label value is not UTF-8");
				return 0;
			}
			i += n;
		}
	}
	return i + 1;
}

struct pc_family {
	char name[128];
	char type[16];
	bool help, typed, sampled;
};

static inline struct pc_family *pc_find(struct pc_family *f, size_t n,
					const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(f[i].name) == len && !strncmp(f[i].name, name, len))
			return &f[i];
	return NULL;
}

/* 0 if @text (NUL-terminated) is a valid file, else -1 and pc->err. */
static inline int promcheck(struct promcheck *pc, const char *text)
{
	struct pc_family fam[32];
	char **series = NULL;
	size_t nfam = 0, nseries = 0, line = 0;
	struct pc_family *cur = NULL;
	const char *p = text;
	int ret = -1;

	memset(pc, 0, sizeof(*pc));
	if (!*text)
		return pc_fail(pc, 0, "empty file");
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n;

		line++;
		if (!eol) {
			pc_fail(pc, line, "no newline at the end");
			goto out;
		}
		if (eol == p) {
			pc_fail(pc, line, "empty line");
			goto out;
		}
		if (*p == '#') {
			bool help = !strncmp(p, "# HELP ", 7);
			bool type = !strncmp(p, "# TYPE ", 7);
			const char *name = p + 7, *rest;
			struct pc_family *f;

			if (!help && !type) {
				pc_fail(pc, line, "a comment other than HELP or TYPE");
				goto out;
			}
			n = pc_name(name, true);
			if (!n || name[n] != ' ' || n >= sizeof(fam[0].name)) {
				pc_fail(pc, line, "bad metric name in %s", help ? "HELP" : "TYPE");
				goto out;
			}
			rest = name + n + 1;
			f = pc_find(fam, nfam, name, n);
			if (!f) {
				if (nfam == sizeof(fam) / sizeof(fam[0])) {
					pc_fail(pc, line, "too many families");
					goto out;
				}
				f = &fam[nfam++];
				memset(f, 0, sizeof(*f));
				memcpy(f->name, name, n);
				cur = f;
			} else if (f != cur || f->sampled) {
				pc_fail(pc, line, "%s of %s after its samples or another family",
					help ? "HELP" : "TYPE", f->name);
				goto out;
			}
			if (help) {
				if (f->help) {
					pc_fail(pc, line, "second HELP for %s", f->name);
					goto out;
				}
				f->help = true;
				for (const char *c = rest; c < eol; c++) {
					if (*c == '\\' && c[1] != '\\' && c[1] != 'n') {
						pc_fail(pc, line, "invalid escape in HELP");
						goto out;
					}
					if (*c == '\\')
						c++;
				}
			} else {
				size_t tl = (size_t)(eol - rest);

				if (f->typed) {
					pc_fail(pc, line, "second TYPE for %s", f->name);
					goto out;
				}
				if (!((tl == 7 && !strncmp(rest, "counter", 7)) ||
				      (tl == 5 && !strncmp(rest, "gauge", 5)))) {
					pc_fail(pc, line, "type '%.*s' is not counter or gauge",
						(int)tl, rest);
					goto out;
				}
				memcpy(f->type, rest, tl);
				f->typed = true;
			}
		} else {
			const char *s = p;
			char lnames[16][64];
			size_t nl = 0;
			char *end, **grown;
			double v;

			n = pc_name(s, true);
			if (!n) {
				pc_fail(pc, line, "no metric name");
				goto out;
			}
			if (!cur || strlen(cur->name) != n || strncmp(cur->name, s, n)) {
				pc_fail(pc, line, "sample of '%.*s' outside its family",
					(int)n, s);
				goto out;
			}
			if (!cur->help || !cur->typed) {
				pc_fail(pc, line, "%s has no HELP or TYPE before its samples",
					cur->name);
				goto out;
			}
			cur->sampled = true;
			s += n;
			if (*s == '{') {
				s++;
				while (*s != '}') {
					size_t ln = pc_name(s, false), vl;

					if (!ln || s[ln] != '=' || s[ln + 1] != '"' ||
					    ln >= sizeof(lnames[0])) {
						pc_fail(pc, line, "bad label");
						goto out;
					}
					if (ln >= 2 && s[0] == '_' && s[1] == '_') {
						pc_fail(pc, line, "reserved label name");
						goto out;
					}
					for (size_t i = 0; i < nl; i++) {
						if (strlen(lnames[i]) == ln &&
						    !strncmp(lnames[i], s, ln)) {
							pc_fail(pc, line, "label %.*s twice",
								(int)ln, s);
							goto out;
						}
					}
					if (nl == sizeof(lnames) / sizeof(lnames[0])) {
						pc_fail(pc, line, "too many labels");
						goto out;
					}
					memcpy(lnames[nl], s, ln);
					lnames[nl++][ln] = '\0';
					s += ln + 2;
					vl = pc_label_value(pc, line, s);
					if (!vl)
						goto out;
					s += vl;
					if (*s == ',')
						s++;
					else if (*s != '}') {
						pc_fail(pc, line, "expected , or } after a label");
						goto out;
					}
				}
				s++;
			}
			if (*s != ' ') {
				pc_fail(pc, line, "expected a space before the value");
				goto out;
			}
			s++;
			if (s == eol || *s == ' ') {
				pc_fail(pc, line, "no value");
				goto out;
			}
			v = strtod(s, &end);
			if (end != eol) {
				pc_fail(pc, line, "value '%.*s' is not a number alone (timestamp?)",
					(int)(eol - s), s);
				goto out;
			}
			if (!strcmp(cur->type, "counter")) {
				if (n < 6 || strncmp(cur->name + n - 6, "_total", 6)) {
					pc_fail(pc, line, "counter %s does not end in _total",
						cur->name);
					goto out;
				}
				if (!(v >= 0)) {
					pc_fail(pc, line, "counter %s is negative or NaN",
						cur->name);
					goto out;
				}
			}
			/* name{labels} must be new. */
			{
				size_t kl = (size_t)(s - 1 - p);

				for (size_t i = 0; i < nseries; i++) {
					if (strlen(series[i]) == kl &&
					    !strncmp(series[i], p, kl)) {
						pc_fail(pc, line, "series %.*s twice", (int)kl, p);
						goto out;
					}
				}
				grown = realloc(series, (nseries + 1) * sizeof(*series));
				if (!grown) {
					pc_fail(pc, line, "out of memory");
					goto out;
				}
				series = grown;
				series[nseries] = strndup(p, kl);
				if (!series[nseries]) {
					pc_fail(pc, line, "out of memory");
					goto out;
				}
				nseries++;
			}
			pc->samples++;
		}
		p = eol + 1;
	}
	for (size_t i = 0; i < nfam; i++) {
		if (!fam[i].help || !fam[i].typed) {
			pc_fail(pc, line, "%s lacks HELP or TYPE", fam[i].name);
			goto out;
		}
	}
	pc->families = nfam;
	ret = 0;
out:
	for (size_t i = 0; i < nseries; i++)
		free(series[i]);
	free(series);
	return ret;
}

#endif
