// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Exact accounting of FS_MSG warnings per (filesystem, warning type):
 * an open-addressing hash table of last known counts, bounded in size,
 * which also holds each key's metrics series.
 */
#include "accounting.h"

#include <stdlib.h>
#include <string.h>

struct entry {
	struct fsm_key key;
	bool used;
	bool counted;		/* has accounting state (last, ts, severity) */
	struct fsm_series *series;	/* of the metrics, NULL: none */
	uint64_t last;		/* last known cumulative count */
	uint64_t ts;		/* newest warning timestamp known, 0: none */
	uint32_t severity;	/* of the latest message, 0: none seen */
};

struct fsm_acct {
	struct entry *tab;
	size_t cap;		/* power of two, at most half full */
	size_t n;
	size_t max;
	uint64_t untracked;
};

struct fsm_acct *fsm_acct_new(size_t max_keys)
{
	struct fsm_acct *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->max = max_keys ? max_keys : 1;
	a->cap = 16;
	a->tab = calloc(a->cap, sizeof(*a->tab));
	if (!a->tab) {
		free(a);
		return NULL;
	}
	return a;
}

void fsm_acct_free(struct fsm_acct *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->cap; i++) {
		struct fsm_series *s = a->tab[i].series;

		while (s) {
			struct fsm_series *next = s->next;

			free(s);
			s = next;
		}
	}
	free(a->tab);
	free(a);
}

size_t fsm_acct_size(const struct fsm_acct *a)
{
	return a->n;
}

uint64_t fsm_acct_untracked(const struct fsm_acct *a)
{
	return a->untracked;
}

static size_t hash(const struct fsm_key *k)
{
	uint64_t h = k->major;

	h = h * 0x9e3779b97f4a7c15ULL ^ k->minor;
	h = h * 0x9e3779b97f4a7c15ULL ^ k->warning;
	h *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(h >> 32);
}

static bool same(const struct fsm_key *a, const struct fsm_key *b)
{
	return a->major == b->major && a->minor == b->minor &&
	       a->warning == b->warning;
}

static struct entry *slot(struct entry *tab, size_t cap,
			  const struct fsm_key *k)
{
	size_t i = hash(k) & (cap - 1);

	while (tab[i].used && !same(&tab[i].key, k))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int grow(struct fsm_acct *a)
{
	size_t cap = a->cap * 2;
	struct entry *tab = calloc(cap, sizeof(*tab));

	if (!tab)
		return -1;
	for (size_t i = 0; i < a->cap; i++)
		if (a->tab[i].used)
			*slot(tab, cap, &a->tab[i].key) = a->tab[i];
	free(a->tab);
	a->tab = tab;
	a->cap = cap;
	return 0;
}

static struct entry *find(const struct fsm_acct *a, const struct fsm_key *k)
{
	struct entry *e = slot(a->tab, a->cap, k);

	return e->used ? e : NULL;
}

/* A new entry for @k, all zero; NULL when full or out of memory. */
static struct entry *add(struct fsm_acct *a, const struct fsm_key *k)
{
	struct entry *e;

	if (a->n >= a->max)
		return NULL;
	if ((a->n + 1) * 2 > a->cap && grow(a) < 0)
		return NULL;
	e = slot(a->tab, a->cap, k);
	memset(e, 0, sizeof(*e));
	e->key = *k;
	e->used = true;
	a->n++;
	return e;
}

/*
 * The entry of @k with accounting state, created with a zero count;
 * *fresh says the state is new (the key was not tracked, or had only
 * series of the metrics).
 */
static struct entry *get(struct fsm_acct *a, const struct fsm_key *k,
			 bool *fresh)
{
	struct entry *e = find(a, k);

	*fresh = false;
	if (!e) {
		if (a->n >= a->max)
			a->untracked++;
		e = add(a, k);
		if (!e)
			return NULL;
	}
	if (!e->counted) {
		e->counted = true;
		e->last = 0;
		e->ts = 0;
		e->severity = 0;
		*fresh = true;
	}
	return e;
}

struct fsm_series **fsm_acct_series(struct fsm_acct *a,
				    const struct fsm_key *k, bool create)
{
	struct entry *e = find(a, k);

	if (!e && create)
		e = add(a, k);
	return e ? &e->series : NULL;
}

struct fsm_series **fsm_acct_next_series(struct fsm_acct *a, size_t *pos)
{
	while (*pos < a->cap) {
		struct entry *e = &a->tab[(*pos)++];

		if (e->used && e->series)
			return &e->series;
	}
	return NULL;
}

int fsm_acct_prune(struct fsm_acct *a)
{
	size_t keep = 0, cap = 16;
	struct entry *tab;

	for (size_t i = 0; i < a->cap; i++)
		if (a->tab[i].used && (a->tab[i].counted || a->tab[i].series))
			keep++;
	if (keep == a->n)
		return 0;
	/* At most half full, as grow() keeps it. */
	while (keep * 2 > cap)
		cap *= 2;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -1;
	for (size_t i = 0; i < a->cap; i++) {
		const struct entry *e = &a->tab[i];

		if (e->used && (e->counted || e->series))
			*slot(tab, cap, &e->key) = *e;
	}
	free(a->tab);
	a->tab = tab;
	a->cap = cap;
	a->n = keep;
	return 0;
}

bool fsm_acct_get(const struct fsm_acct *a, const struct fsm_key *k,
		  uint64_t *count)
{
	const struct entry *e = find(a, k);

	if (!e || !e->counted)
		return false;
	*count = e->last;
	return true;
}

void fsm_acct_set_severity(struct fsm_acct *a, const struct fsm_key *k,
			   uint32_t severity)
{
	struct entry *e = find(a, k);

	if (e && e->counted)
		e->severity = severity;
}

uint32_t fsm_acct_severity(const struct fsm_acct *a, const struct fsm_key *k)
{
	const struct entry *e = find(a, k);

	return e ? e->severity : 0;
}

bool fsm_remounted(uint64_t ts_ns, uint64_t known_ns)
{
	return ts_ns && known_ns && ts_ns > known_ns &&
	       ts_ns - known_ns > FSM_REMOUNT_MARGIN_NS;
}

static bool newer(uint64_t ts, const struct entry *e)
{
	return fsm_remounted(ts, e->ts);
}

/*
 * Warnings between @from and @count that no message accounted for; @own
 * is 1 for a warning (it counts itself), 0 for a summary.
 */
static uint64_t gap(uint64_t from, uint64_t suppressed, uint64_t own,
		    uint64_t count)
{
	uint64_t expected = from;

	/* Saturating from + suppressed + own: the kernel's numbers are data. */
	expected = suppressed > UINT64_MAX - expected ? UINT64_MAX
						      : expected + suppressed;
	expected = expected > UINT64_MAX - own ? UINT64_MAX : expected + own;
	return count > expected ? count - expected : 0;
}

int fsm_acct_seed(struct fsm_acct *a, const struct fsm_key *k,
		  uint64_t count, uint64_t last_ns)
{
	bool fresh;
	struct entry *e = get(a, k, &fresh);

	if (!e)
		return -1;
	e->last = count;
	e->ts = last_ns;
	return 0;
}

int fsm_acct_sync(struct fsm_acct *a, const struct fsm_key *k,
		  uint64_t count, uint64_t last_ns, uint64_t *missed)
{
	bool fresh;
	struct entry *e = get(a, k, &fresh);

	*missed = 0;
	if (!e)
		return -1;
	if (count > e->last) {
		*missed = count - e->last;
		e->last = count;
		if (last_ns > e->ts)
			e->ts = last_ns;
	} else if (count < e->last && newer(last_ns, e)) {
		/*
		 * A lower count with a newer warning: mounted again since,
		 * and none of the new mount's messages got through. (A
		 * lower count alone is normal: messages newer than the dump
		 * may have been read after it.)
		 */
		*missed = count;
		e->last = count;
		e->ts = last_ns;
	}
	return 0;
}

static int account(struct fsm_acct *a, const struct fsm_key *k,
		   uint64_t count, uint64_t suppressed, uint64_t own,
		   uint64_t ts_ns, uint64_t *missed)
{
	bool fresh;
	struct entry *e = get(a, k, &fresh);

	*missed = 0;
	if (!e)
		return -1;
	if (!fresh && count <= e->last) {
		if (!newer(ts_ns, e))
			return 0;	/* already counted */
		/* Remounted: counting restarted from zero. */
		e->last = 0;
		e->ts = 0;
	}
	/* A fresh key belongs to a filesystem that appeared after the seed
	 * dump: every one of its warnings happened while fsmsg listened. */
	*missed = gap(e->last, suppressed, own, count);
	e->last = count;
	if (ts_ns > e->ts)
		e->ts = ts_ns;
	return 0;
}

int fsm_acct_event(struct fsm_acct *a, const struct fsm_key *k,
		   uint64_t count, uint64_t suppressed, uint64_t ts_ns,
		   uint64_t *missed)
{
	return account(a, k, count, suppressed, 1, ts_ns, missed);
}

int fsm_acct_summary(struct fsm_acct *a, const struct fsm_key *k,
		     uint64_t count, uint64_t suppressed, uint64_t ts_ns,
		     uint64_t *missed)
{
	return account(a, k, count, suppressed, 0, ts_ns, missed);
}
