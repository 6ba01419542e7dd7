/*-------------------------------------------------------------------------
 *
 * settings.h
 *	  Settings and constants shared by the srmsort modules.
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

typedef enum SrmMergeStrategy
{
	SRM_MERGE_SRM = 0,
	SRM_MERGE_DSM
} SrmMergeStrategy;

extern PGDLLIMPORT bool srmsort_enabled;
extern PGDLLIMPORT int srmsort_block_size;
extern PGDLLIMPORT int srmsort_min_input_size;
extern PGDLLIMPORT int srmsort_min_work_mem;
extern PGDLLIMPORT int srmsort_merge_strategy;
extern PGDLLIMPORT int srmsort_max_merge_order;
extern PGDLLIMPORT int srmsort_random_seed;
extern PGDLLIMPORT bool srmsort_trace;
extern PGDLLIMPORT bool srmsort_create_index;
extern PGDLLIMPORT bool srmsort_parallel_build;
extern PGDLLIMPORT bool srmsort_cluster;
extern PGDLLIMPORT bool srmsort_parallel_sort;

/* developer options, for the fault tests (srmsort.debug_*) */
extern PGDLLIMPORT bool srmsort_debug_fail_io_uring;
extern PGDLLIMPORT bool srmsort_debug_no_slot_reuse;
extern PGDLLIMPORT int srmsort_debug_merge_pause;
extern PGDLLIMPORT int srmsort_debug_icu_table_after;
extern PGDLLIMPORT char *srmsort_debug_slow_disk;

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

extern PGDLLIMPORT int srmsort_debug_sorter_misuse;

#endif							/* SRM_SETTINGS_H */
