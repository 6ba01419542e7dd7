/*-------------------------------------------------------------------------
 *
 * settings.h
 *	  Every srmsort.* setting's variable, with its enums and limits.
 *
 * The variables are defined in settings.c, each with its setting's
 * default as its C initial value (test/unit checks that they agree);
 * srmsort.c registers them with the server and their check and assign
 * hooks live with the code that understands their values.  Any floor may
 * read a setting; none but the hooks writes one.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/base/settings.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SETTINGS_H
#define SRM_SETTINGS_H

#define SRM_MIN_BLOCK_KB	32	/* srmsort.block_size's limits (the */
#define SRM_MAX_BLOCK_KB	(16 * 1024) /* automatic choice: mergeplan.h) */

/*
 * srmsort.min_work_mem's default: sorts with a smaller budget merge in many
 * passes of small blocks, where PostgreSQL's sort is as fast or faster
 * (bench/results/small_budget).
 */
#define SRM_MIN_BUDGET_KB	512

/*
 * srmsort.debug_icu_table_after's default: the keys a backend makes
 * through ICU for a collation before it builds the collation's table,
 * which costs about as much as that many keys from ICU (icukey.c).
 */
#define SRM_ICU_TABLE_AFTER		20000

/* srmsort.io_method */
typedef enum SrmIoMethod
{
	SRM_IO_METHOD_IO_URING = 0,
	SRM_IO_METHOD_SYNC
} SrmIoMethod;

/* srmsort.direct_io */
typedef enum SrmDirectIo
{
	SRM_DIRECT_IO_OFF = 0,
	SRM_DIRECT_IO_ON,
	SRM_DIRECT_IO_AUTO
} SrmDirectIo;

/* srmsort.merge_strategy */
typedef enum SrmMergeStrategy
{
	SRM_MERGE_SRM = 0,
	SRM_MERGE_DSM
} SrmMergeStrategy;

/* srmsort.debug_sorter_misuse: the sorter call SRMSort makes out of order */
typedef enum SrmSorterMisuse
{
	SRM_MISUSE_OFF = 0,
	SRM_MISUSE_GET_BEFORE_PERFORM,
	SRM_MISUSE_PUT_AFTER_PERFORM,
	SRM_MISUSE_PERFORM_TWICE,
	SRM_MISUSE_FINISH_RUNS,
	SRM_MISUSE_EXPORT_RUNS,
	SRM_MISUSE_ADOPT_RUNS,
	SRM_MISUSE_RESCAN,
	SRM_MISUSE_MARKPOS,
	SRM_MISUSE_RESTOREPOS
} SrmSorterMisuse;

extern PGDLLIMPORT bool srmsort_enabled;
extern PGDLLIMPORT char *srmsort_tablespaces;
extern PGDLLIMPORT char *srmsort_partitions_string;
extern PGDLLIMPORT int srmsort_partitions;	/* srmsort.partitions parsed: 0
											 * is auto */
extern PGDLLIMPORT int srmsort_block_size;
extern PGDLLIMPORT int srmsort_min_input_size;
extern PGDLLIMPORT int srmsort_min_work_mem;
extern PGDLLIMPORT int srmsort_io_method;
extern PGDLLIMPORT int srmsort_direct_io;
extern PGDLLIMPORT char *srmsort_disk_weights;	/* its parsed form is the
												 * GUC's extra */
extern PGDLLIMPORT int srmsort_merge_strategy;
extern PGDLLIMPORT int srmsort_max_merge_order;
extern PGDLLIMPORT int srmsort_random_seed;
extern PGDLLIMPORT bool srmsort_trace;
extern PGDLLIMPORT bool srmsort_create_index;
extern PGDLLIMPORT bool srmsort_parallel_build;
extern PGDLLIMPORT bool srmsort_cluster;
extern PGDLLIMPORT bool srmsort_parallel_sort;
extern PGDLLIMPORT bool srmsort_huge_pages;

/* developer options, for the fault tests (srmsort.debug_*) */
extern PGDLLIMPORT bool srmsort_debug_fail_io_uring;
extern PGDLLIMPORT bool srmsort_debug_no_slot_reuse;
extern PGDLLIMPORT int srmsort_debug_merge_pause;
extern PGDLLIMPORT int srmsort_debug_icu_table_after;
extern PGDLLIMPORT char *srmsort_debug_slow_disk;
extern PGDLLIMPORT int srmsort_debug_sorter_misuse;
extern PGDLLIMPORT int srmsort_debug_participant_mem;
extern PGDLLIMPORT int srmsort_debug_load_part;
extern PGDLLIMPORT int srmsort_debug_load_cap;
extern PGDLLIMPORT int srmsort_debug_gist_split_fail;
extern PGDLLIMPORT bool srmsort_debug_scan_barrier;

#endif							/* SRM_SETTINGS_H */
