// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * promcheck FILE: check a metrics file with the tests' strict parser of
 * the Prometheus text exposition format (promcheck.h). The guest has no
 * promtool; this is what its fleet test validates fsmsg's file with.
 *
 * Exit status: 0 valid, 1 invalid (the reason on stderr), 2 usage or I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "promcheck.h"

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "re");
	size_t len = 0, cap = 4096, n;
	char *buf = NULL, *p;

	if (!fp)
		return NULL;
	for (;;) {
		p = realloc(buf, cap + 1);
		if (!p)
			goto fail;
		buf = p;
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
		if (len < cap)
			break;
		cap *= 2;
	}
	if (ferror(fp))
		goto fail;
	if (memchr(buf, '\0', len)) {
		errno = EINVAL;
		goto fail;
	}
	buf[len] = '\0';
	fclose(fp);
	return buf;
fail:
	n = (size_t)errno;
	free(buf);
	fclose(fp);
	errno = (int)n;
	return NULL;
}

int main(int argc, char **argv)
{
	struct promcheck pc;
	char *text;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: promcheck FILE\n");
		return 2;
	}
	text = slurp(argv[1]);
	if (!text) {
		fprintf(stderr, "promcheck: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	rc = promcheck(&pc, text);
	free(text);
	if (rc < 0) {
		fprintf(stderr, "promcheck: %s: %s\n", argv[1], pc.err);
		return 1;
	}
	printf("promcheck: %s: %zu families, %zu samples\n", argv[1], pc.families,
	       pc.samples);
	return 0;
}
