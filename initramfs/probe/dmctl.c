// SPDX-License-Identifier: GPL-2.0
/*
 * dmctl: a small device-mapper tool for the guest tests, which have no
 * dmsetup (and no udev: /dev/dm-N comes from devtmpfs).
 *
 *   dmctl create NAME TABLE-LINE...   create NAME, load one target per
 *                                     "START LENGTH TARGET ARGS" line and
 *                                     resume it; prints "MAJ:MIN /dev/dm-N"
 *   dmctl load NAME TABLE-LINE...     load a new table into NAME's inactive
 *                                     slot; a suspend and resume make it
 *                                     live (dmsetup reload)
 *   dmctl suspend [--noflush] [--nolockfs] NAME
 *   dmctl resume NAME
 *   dmctl message NAME SECTOR MESSAGE...
 *                                     DM_TARGET_MSG; prints the target's
 *                                     answer, if any
 *   dmctl status NAME                 DM_TABLE_STATUS: one line per target,
 *                                     "START LENGTH TARGET STATUS"
 *   dmctl remove NAME
 *
 * Exit status: 0 done, 1 usage error (a malformed table line too), 2 the
 * kernel refused (the ioctl and its error are printed; a device that
 * create could not finish is removed again).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <linux/dm-ioctl.h>

#define CONTROL		"/dev/mapper/control"
#define BUF_SIZE	16384
#define BUF_MAX		(1 << 20)

static int control = -1;

static void usage(void)
{
	fprintf(stderr,
		"usage: dmctl create NAME 'START LENGTH TARGET ARGS'...\n"
		"       dmctl load NAME 'START LENGTH TARGET ARGS'...\n"
		"       dmctl suspend [--noflush] [--nolockfs] NAME\n"
		"       dmctl resume NAME\n"
		"       dmctl message NAME SECTOR MESSAGE...\n"
		"       dmctl status NAME\n"
		"       dmctl remove NAME\n");
	exit(1);
}

static void open_control(void)
{
	control = open(CONTROL, O_RDWR | O_CLOEXEC);
	if (control < 0) {
		fprintf(stderr, "dmctl: %s: %s (CONFIG_BLK_DEV_DM, devtmpfs?)\n",
			CONTROL, strerror(errno));
		exit(2);
	}
}

/* A zeroed ioctl buffer of SIZE bytes with the header filled in. */
static struct dm_ioctl *dm_new(size_t size, const char *name)
{
	struct dm_ioctl *dmi = calloc(1, size);

	if (!dmi) {
		fprintf(stderr, "dmctl: out of memory\n");
		exit(2);
	}
	dmi->version[0] = DM_VERSION_MAJOR;
	dmi->version[1] = 0;
	dmi->version[2] = 0;
	dmi->data_size = size;
	dmi->data_start = sizeof(*dmi);
	if (name) {
		if (strlen(name) >= sizeof(dmi->name)) {
			fprintf(stderr, "dmctl: name '%s' is longer than %zu bytes\n",
				name, sizeof(dmi->name) - 1);
			exit(1);
		}
		strcpy(dmi->name, name);
	}
	return dmi;
}

/* Run one ioctl; on failure say which and why, and return -1. */
static int dm_ioctl(unsigned long cmd, const char *what, struct dm_ioctl *dmi)
{
	if (ioctl(control, cmd, dmi) == 0)
		return 0;
	fprintf(stderr, "dmctl: %s %s: %s\n", what, dmi->name, strerror(errno));
	return -1;
}

static void print_dev(struct dm_ioctl *dmi)
{
	dev_t dev = (dev_t)dmi->dev;

	printf("%u:%u /dev/dm-%u\n", major(dev), minor(dev), minor(dev));
}

static int dev_remove(const char *name, int quiet)
{
	struct dm_ioctl *dmi;
	int tries, ret = -1;

	/* EBUSY right after the last close is transient: a few tries. */
	for (tries = 0; tries < 20; tries++) {
		dmi = dm_new(sizeof(*dmi), name);
		if (ioctl(control, DM_DEV_REMOVE, dmi) == 0) {
			free(dmi);
			return 0;
		}
		free(dmi);
		if (errno != EBUSY)
			break;
		usleep(100000);
	}
	if (!quiet)
		fprintf(stderr, "dmctl: DM_DEV_REMOVE %s: %s\n", name, strerror(errno));
	return ret;
}

/* Append "START LENGTH TARGET ARGS" as one dm_target_spec at *off. */
static int put_target(struct dm_ioctl *dmi, size_t *off, const char *line)
{
	struct dm_target_spec *spec = (struct dm_target_spec *)((char *)dmi + *off);
	unsigned long long start, length;
	char type[DM_MAX_TYPE_NAME];
	const char *params;
	size_t len, next;
	int end = 0, n = 0;

	if (sscanf(line, " %llu %llu %15s%n %n", &start, &length, type, &end, &n) != 3 ||
	    !n || (line[end] && line[end] != ' ' && line[end] != '\t')) {
		fprintf(stderr, "dmctl: table line '%s' is not 'START LENGTH TARGET [ARGS]'"
			" (target names have at most %d characters)\n",
			line, DM_MAX_TYPE_NAME - 1);
		return -1;
	}
	params = line + n;
	len = strlen(params) + 1;
	next = (sizeof(*spec) + len + 7) & ~(size_t)7;
	if (*off + next > dmi->data_size) {
		fprintf(stderr, "dmctl: table too large\n");
		return -1;
	}
	spec->sector_start = start;
	spec->length = length;
	spec->status = 0;
	spec->next = next;
	/* sscanf took at most 15 characters: the type fits with its NUL. */
	memcpy(spec->target_type, type, strlen(type) + 1);
	memcpy((char *)(spec + 1), params, len);
	*off += next;
	return 0;
}

/* A DM_TABLE_LOAD request for NAME, or NULL for a bad (usage) line. */
static struct dm_ioctl *new_table(const char *name, int nlines, char **lines)
{
	struct dm_ioctl *table = dm_new(BUF_SIZE, name);
	size_t off = sizeof(*table);
	int i;

	for (i = 0; i < nlines; i++) {
		if (put_target(table, &off, lines[i])) {
			free(table);
			return NULL;
		}
	}
	table->target_count = nlines;
	return table;
}

static int cmd_load(const char *name, int nlines, char **lines)
{
	struct dm_ioctl *table = new_table(name, nlines, lines);
	int ret;

	if (!table)
		return 1;
	open_control();
	ret = dm_ioctl(DM_TABLE_LOAD, "DM_TABLE_LOAD", table);
	free(table);
	return ret ? 2 : 0;
}

static int cmd_create(const char *name, int nlines, char **lines)
{
	struct dm_ioctl *dmi, *table;

	/* A bad table line is a usage error: check them all first. */
	table = new_table(name, nlines, lines);
	if (!table)
		return 1;

	open_control();
	dmi = dm_new(sizeof(*dmi), name);
	if (dm_ioctl(DM_DEV_CREATE, "DM_DEV_CREATE", dmi)) {
		free(dmi);
		free(table);
		return 2;
	}
	free(dmi);

	if (dm_ioctl(DM_TABLE_LOAD, "DM_TABLE_LOAD", table)) {
		free(table);
		goto undo;
	}
	free(table);

	/* DM_DEV_SUSPEND without DM_SUSPEND_FLAG: resume, the table goes live. */
	dmi = dm_new(sizeof(*dmi), name);
	if (dm_ioctl(DM_DEV_SUSPEND, "DM_DEV_SUSPEND (resume)", dmi)) {
		free(dmi);
		goto undo;
	}
	print_dev(dmi);
	free(dmi);
	return 0;

undo:
	/* Leave no half-made device behind. */
	dev_remove(name, 1);
	return 2;
}

static int cmd_suspend(const char *name, uint32_t flags)
{
	struct dm_ioctl *dmi = dm_new(sizeof(*dmi), name);
	int ret;

	dmi->flags = flags;
	ret = dm_ioctl(DM_DEV_SUSPEND, flags & DM_SUSPEND_FLAG ?
		       "DM_DEV_SUSPEND" : "DM_DEV_SUSPEND (resume)", dmi);
	free(dmi);
	return ret ? 2 : 0;
}

/* Run CMD with a buffer that grows until the kernel's answer fits. */
static struct dm_ioctl *dm_ioctl_out(unsigned long cmd, const char *what,
				     const char *name,
				     void (*fill)(struct dm_ioctl *, void *),
				     void *arg)
{
	struct dm_ioctl *dmi;
	size_t size;

	for (size = BUF_SIZE; size <= BUF_MAX; size *= 2) {
		dmi = dm_new(size, name);
		if (fill)
			fill(dmi, arg);
		if (dm_ioctl(cmd, what, dmi)) {
			free(dmi);
			return NULL;
		}
		if (!(dmi->flags & DM_BUFFER_FULL_FLAG))
			return dmi;
		free(dmi);
	}
	fprintf(stderr, "dmctl: %s %s: answer larger than %d bytes\n", what, name,
		BUF_MAX);
	return NULL;
}

struct msg {
	uint64_t sector;
	const char *text;
};

static void fill_msg(struct dm_ioctl *dmi, void *arg)
{
	struct msg *m = arg;
	struct dm_target_msg *tm = (struct dm_target_msg *)(dmi + 1);
	char *text = (char *)dmi + sizeof(*dmi) + sizeof(*tm);

	tm->sector = m->sector;
	memcpy(text, m->text, strlen(m->text) + 1);
}

static int cmd_message(const char *name, const char *sector, int nwords,
		       char **words)
{
	struct dm_ioctl *dmi;
	struct msg m;
	size_t len = 0;
	char *text, *end;
	int i;

	errno = 0;
	m.sector = strtoull(sector, &end, 10);
	if (errno || end == sector || *end) {
		fprintf(stderr, "dmctl: sector '%s' is not a number\n", sector);
		return 1;
	}
	for (i = 0; i < nwords; i++)
		len += strlen(words[i]) + 1;
	if (sizeof(struct dm_ioctl) + sizeof(struct dm_target_msg) + len > BUF_SIZE) {
		fprintf(stderr, "dmctl: message too long\n");
		return 1;
	}
	text = calloc(1, len + 1);
	if (!text)
		return 2;
	for (i = 0; i < nwords; i++) {
		if (i)
			strcat(text, " ");
		strcat(text, words[i]);
	}
	m.text = text;
	dmi = dm_ioctl_out(DM_TARGET_MSG, "DM_TARGET_MSG", name, fill_msg, &m);
	free(text);
	if (!dmi)
		return 2;
	if ((dmi->flags & DM_DATA_OUT_FLAG) && dmi->data_start < dmi->data_size) {
		const char *out = (const char *)dmi + dmi->data_start;

		if (*out)
			printf("%s\n", out);
	}
	free(dmi);
	return 0;
}

static int cmd_status(const char *name)
{
	struct dm_target_spec *spec;
	struct dm_ioctl *dmi;
	size_t off;
	uint32_t i;

	dmi = dm_ioctl_out(DM_TABLE_STATUS, "DM_TABLE_STATUS", name, NULL, NULL);
	if (!dmi)
		return 2;
	off = dmi->data_start;
	for (i = 0; i < dmi->target_count; i++) {
		if (off + sizeof(*spec) > dmi->data_size)
			break;
		spec = (struct dm_target_spec *)((char *)dmi + off);
		printf("%llu %llu %.*s %s\n", (unsigned long long)spec->sector_start,
		       (unsigned long long)spec->length,
		       (int)sizeof(spec->target_type), spec->target_type,
		       (const char *)(spec + 1));
		/* For status, next is the offset from the start of the data. */
		off = dmi->data_start + spec->next;
	}
	if (dmi->flags & DM_SUSPEND_FLAG)
		printf("suspended\n");
	free(dmi);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t flags = DM_SUSPEND_FLAG;
	int i;

	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "create")) {
		if (argc < 4)
			usage();
		return cmd_create(argv[2], argc - 3, argv + 3);
	}
	if (!strcmp(argv[1], "load")) {
		if (argc < 4)
			usage();
		return cmd_load(argv[2], argc - 3, argv + 3);
	}
	if (!strcmp(argv[1], "suspend")) {
		for (i = 2; i < argc - 1; i++) {
			if (!strcmp(argv[i], "--noflush"))
				flags |= DM_NOFLUSH_FLAG;
			else if (!strcmp(argv[i], "--nolockfs"))
				flags |= DM_SKIP_LOCKFS_FLAG;
			else
				usage();
		}
		if (argv[argc - 1][0] == '-')
			usage();
		open_control();
		return cmd_suspend(argv[argc - 1], flags);
	}
	if (!strcmp(argv[1], "resume") && argc == 3) {
		open_control();
		return cmd_suspend(argv[2], 0);
	}
	if (!strcmp(argv[1], "message") && argc >= 5) {
		open_control();
		return cmd_message(argv[2], argv[3], argc - 4, argv + 4);
	}
	if (!strcmp(argv[1], "status") && argc == 3) {
		open_control();
		return cmd_status(argv[2]);
	}
	if (!strcmp(argv[1], "remove") && argc == 3) {
		open_control();
		return dev_remove(argv[2], 0) ? 2 : 0;
	}
	usage();
	return 1;
}
