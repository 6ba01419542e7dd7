/*-------------------------------------------------------------------------
 *
 * settings.c
 *	  The variables behind every srmsort.* setting.
 *
 * Each variable starts at its setting's default, so that code which runs
 * before srmsort.c registers the settings (or in a process that never
 * registers them, such as test/unit's module) sees the defaults; the unit
 * test "settings" compares every initial value here with the default the
 * server holds.  A string setting starts at NULL, as PostgreSQL's own do:
 * the server gives it its default when registering it.  The README's
 * settings table says what each one means.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/base/settings.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "base/settings.h"

bool		srmsort_enabled = true;
char	   *srmsort_tablespaces = NULL;
char	   *srmsort_partitions_string = NULL;
int			srmsort_partitions = 0;	/* auto */
int			srmsort_block_size = 256;	/* kB */
int			srmsort_min_input_size = 64;	/* kB; -1 = the sort's budget */
int			srmsort_min_work_mem = SRM_MIN_BUDGET_KB;	/* kB */
int			srmsort_io_method = SRM_IO_METHOD_IO_URING;
int			srmsort_direct_io = SRM_DIRECT_IO_OFF;
char	   *srmsort_disk_weights = NULL;
int			srmsort_merge_strategy = SRM_MERGE_SRM;
int			srmsort_max_merge_order = 1024;
int			srmsort_random_seed = -1;
bool		srmsort_trace = false;
bool		srmsort_create_index = true;
bool		srmsort_parallel_build = true;
bool		srmsort_cluster = true;
bool		srmsort_parallel_sort = true;
bool		srmsort_huge_pages = false;

bool		srmsort_debug_fail_io_uring = false;
bool		srmsort_debug_no_slot_reuse = false;
int			srmsort_debug_merge_pause = 0;	/* ms */
int			srmsort_debug_icu_table_after = SRM_ICU_TABLE_AFTER;
char	   *srmsort_debug_slow_disk = NULL;
int			srmsort_debug_sorter_misuse = SRM_MISUSE_OFF;
int			srmsort_debug_participant_mem = 0;	/* kB */
int			srmsort_debug_load_part = 0;	/* kB; 0: SRM_LOAD_PART */
int			srmsort_debug_load_cap = 0;	/* kB; 0: SRM_LOAD_CAP */
int			srmsort_debug_gist_split_fail = 0;
bool		srmsort_debug_scan_barrier = false;
