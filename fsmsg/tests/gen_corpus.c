// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writes the fuzzer's seed corpus: valid messages of every kind the kernel
 * sends, one receive buffer per file. Run by `make corpus`; the output is
 * checked in under tests/corpus/.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nlbuild.h"

static int save(const char *dir, const char *name, struct raw *r)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	if (!fp || fwrite(r->buf, 1, r->len, fp) != r->len || fclose(fp) != 0) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
		return -1;
	}
	raw_free(r);
	return 0;
}

static void minimal(struct raw *r, uint32_t warning, uint64_t count)
{
	raw_begin(r, FS_MSG_CMD_WARNING);
	raw_u32(r, FS_MSG_A_WARNING, warning);
	raw_u32(r, FS_MSG_A_DEV_MAJOR, 8);
	raw_u32(r, FS_MSG_A_DEV_MINOR, 1);
	raw_uint(r, FS_MSG_A_COUNT, count);
	raw_end(r);
}

int main(int argc, char **argv)
{
	static const uint64_t counts[3] = { 4, 17, 0 };
	static const uint64_t supp[3] = { 1, 0, 0 };
	static const uint64_t lasts[3] = { 1796283771000000000ULL,
					   1796283772000000000ULL, 0 };
	struct raw r = { 0 };
	int err = 0;

	if (argc != 2) {
		fputs("usage: gen_corpus DIR\n", stderr);
		return 1;
	}

	raw_full_event(&r, FS_MSG_WARN_ENOSPC, 5, 2, "alloc_test");
	err |= save(argv[1], "event-enospc-full", &r);
	raw_full_event(&r, FS_MSG_WARN_META_ENOSPC, 1, 0, "kworker/u8:1");
	err |= save(argv[1], "event-meta-full", &r);
	raw_full_event(&r, FS_MSG_WARN_INODE_ENOSPC, 99, 1000,
		       "we\"ird\\na\nme\x01\xff");
	err |= save(argv[1], "event-inode-escapes", &r);
	minimal(&r, FS_MSG_WARN_ENOSPC, 1);
	err |= save(argv[1], "event-minimal", &r);
	minimal(&r, 9, 3);
	err |= save(argv[1], "event-unknown-warning", &r);

	/* A burst in one buffer, with a gap for the accounting. */
	minimal(&r, FS_MSG_WARN_ENOSPC, 1);
	minimal(&r, FS_MSG_WARN_ENOSPC, 2);
	minimal(&r, FS_MSG_WARN_ENOSPC, 7);
	raw_full_event(&r, FS_MSG_WARN_META_ENOSPC, 3, 0, "dd");
	err |= save(argv[1], "events-burst", &r);

	/* A dump: two filesystems and NLMSG_DONE. */
	raw_fs_row(&r, 254, 16, "ext4", "vdb", test_uuid, counts, lasts);
	raw_fs_row(&r, 0, 45, "btrfs", "vdc", NULL, counts, lasts);
	raw_begin_type(&r, NLMSG_DONE, 0, NLM_F_MULTI);
	raw_end(&r);
	err |= save(argv[1], "dump-two-fs", &r);

	/* A dump with the warnings held back since the last message. */
	raw_fs_row_supp(&r, 254, 16, "ext4", "vdb", test_uuid, counts, lasts,
			supp);
	raw_begin_type(&r, NLMSG_DONE, 0, NLM_F_MULTI);
	raw_end(&r);
	err |= save(argv[1], "dump-suppressed", &r);

	/* Numbers past 32 bits: 8-byte NLA_UINTs (SB_ID, counts, LAST). */
	{
		static const uint64_t big[3] = { 5000000000ULL, 1, 0 };
		const uint64_t sb = 0x100000007ULL;

		raw_begin(&r, FS_MSG_CMD_WARNING);
		raw_u32(&r, FS_MSG_A_WARNING, FS_MSG_WARN_ENOSPC);
		raw_u32(&r, FS_MSG_A_DEV_MAJOR, 0);
		raw_u32(&r, FS_MSG_A_DEV_MINOR, 45);
		raw_uint(&r, FS_MSG_A_CAUSED_ID, 4294967294ULL);
		raw_str(&r, FS_MSG_A_FSTYPE, "btrfs");
		raw_uint(&r, FS_MSG_A_COUNT, 5000000001ULL);
		raw_uint(&r, FS_MSG_A_SUPPRESSED, 1ULL << 32);
		raw_uint(&r, FS_MSG_A_SB_ID, sb);
		raw_uint(&r, FS_MSG_A_BOOTTIME, 3);
		raw_end(&r);
		err |= save(argv[1], "event-wide-values", &r);
		raw_fs_row_full(&r, 0, 45, "btrfs", "vdc", NULL, big, lasts, big,
				&sb);
		raw_begin_type(&r, NLMSG_DONE, 0, NLM_F_MULTI);
		raw_end(&r);
		err |= save(argv[1], "dump-wide-values", &r);
	}

	/* A dump then events about those filesystems. */
	raw_fs_row(&r, 254, 32, "xfs", "vdd", test_uuid, counts, lasts);
	raw_full_event(&r, FS_MSG_WARN_META_ENOSPC, 20, 1, "cp");
	err |= save(argv[1], "dump-then-event", &r);

	/* Summaries: held-back warnings, no task; one with a label. */
	raw_summary(&r, FS_MSG_WARN_ENOSPC, 120, 37, FS_MSG_SEVERITY_WARNING, NULL);
	err |= save(argv[1], "summary", &r);
	raw_full_event(&r, FS_MSG_WARN_META_ENOSPC, 4, 0, "a");
	raw_summary(&r, FS_MSG_WARN_META_ENOSPC, 9, 5, FS_MSG_SEVERITY_ERROR,
		    "my vol: \"x\"\\\x01\xc3\xa9\xff");
	raw_full_event(&r, FS_MSG_WARN_META_ENOSPC, 10, 0, "b");
	err |= save(argv[1], "event-summary-event-label", &r);

	/* An event of every severity, labelled; a dump reply with a label. */
	{
		static const uint64_t sb = 3;

		for (uint32_t sev = 1; sev <= 5; sev++) {
			raw_begin(&r, FS_MSG_CMD_WARNING);
			raw_u32(&r, FS_MSG_A_WARNING, FS_MSG_WARN_ENOSPC);
			raw_u32(&r, FS_MSG_A_DEV_MAJOR, 254);
			raw_u32(&r, FS_MSG_A_DEV_MINOR, 16);
			raw_uint(&r, FS_MSG_A_COUNT, sev);
			raw_u32(&r, FS_MSG_A_SEVERITY, sev);
			raw_str(&r, FS_MSG_A_LABEL, "data");
			raw_end(&r);
		}
		err |= save(argv[1], "events-severities-label", &r);
		raw_fs_row_label(&r, 254, 16, "ext4", "vdb", test_uuid, counts,
				 lasts, NULL, &sb, "my data");
		raw_begin_type(&r, NLMSG_DONE, 0, NLM_F_MULTI);
		raw_end(&r);
		err |= save(argv[1], "dump-label", &r);
	}

	/* fs-error and shutdown with their details; an unknown reason and
	 * wide INODE and BLOCK; a dump with the five counters. */
	{
		static const uint64_t counts5[5] = { 4, 17, 0, 3, 1 };
		static const uint64_t lasts5[5] = { 1796283771000000000ULL,
						    1796283772000000000ULL, 0,
						    1796283773000000000ULL,
						    1796283774000000000ULL };
		static const uint64_t sb = 7;

		raw_fs_error_event(&r, 3);
		err |= save(argv[1], "event-fs-error", &r);
		raw_shutdown_event(&r, 1);
		err |= save(argv[1], "event-shutdown", &r);
		raw_begin(&r, FS_MSG_CMD_WARNING);
		raw_u32(&r, FS_MSG_A_WARNING, FS_MSG_WARN_SHUTDOWN);
		raw_u32(&r, FS_MSG_A_DEV_MAJOR, 8);
		raw_u32(&r, FS_MSG_A_DEV_MINOR, 1);
		raw_uint(&r, FS_MSG_A_COUNT, 1);
		raw_u32(&r, FS_MSG_A_REASON, 99);
		raw_u32(&r, FS_MSG_A_FS_FLAGS, 0x80000001);
		raw_uint(&r, FS_MSG_A_INODE, 1ULL << 40);
		raw_uint(&r, FS_MSG_A_BLOCK, 1ULL << 35);
		raw_str(&r, FS_MSG_A_FUNCTION, "xfs_do_force_shutdown");
		raw_end(&r);
		err |= save(argv[1], "event-shutdown-wide", &r);
		raw_data_lost_event(&r, 1);
		err |= save(argv[1], "event-data-lost", &r);
		raw_fs_row_n(&r, 254, 16, "ext4", "vdb", test_uuid, counts5,
			     lasts5, NULL, &sb, NULL, 5);
		raw_begin_type(&r, NLMSG_DONE, 0, NLM_F_MULTI);
		raw_end(&r);
		err |= save(argv[1], "dump-five-types", &r);
	}

	return err ? 1 : 0;
}
