/*-------------------------------------------------------------------------
 *
 * srmsort.c
 *	  Module entry point: settings, hooks and the shared memory request.
 *
 * srmsort replaces PostgreSQL's external sorts (Sort plan nodes and the
 * sort inside btree CREATE INDEX) with a parallel-disk mergesort after
 * Barve and Vitter's Simple Randomized Mergesort.  This file only wires the
 * pieces into the server; the design lives in the modules it registers
 * (src/README.md draws the floors; docs/design.md teaches the design).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/srmsort.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "base/compat.h"
#include "base/settings.h"
#include "base/shmem.h"
#include "builds/utility.h"
#include "io/aio.h"
#include "io/disks.h"
#include "io/placement.h"
#include "keys/icukey.h"
#include "query/node.h"
#include "query/plan.h"
#include "query/workerstats.h"

PG_MODULE_MAGIC;

static const struct config_enum_entry srm_io_method_options[] = {
	{"io_uring", SRM_IO_METHOD_IO_URING, false},
	{"sync", SRM_IO_METHOD_SYNC, false},
	{NULL, 0, false}
};

/* on and off, and their usual spellings, as for a boolean */
static const struct config_enum_entry direct_io_options[] = {
	{"auto", SRM_DIRECT_IO_AUTO, false},
	{"on", SRM_DIRECT_IO_ON, false},
	{"off", SRM_DIRECT_IO_OFF, false},
	{"true", SRM_DIRECT_IO_ON, true},
	{"false", SRM_DIRECT_IO_OFF, true},
	{"yes", SRM_DIRECT_IO_ON, true},
	{"no", SRM_DIRECT_IO_OFF, true},
	{"1", SRM_DIRECT_IO_ON, true},
	{"0", SRM_DIRECT_IO_OFF, true},
	{NULL, 0, false}
};

static const struct config_enum_entry merge_strategy_options[] = {
	{"srm", SRM_MERGE_SRM, false},
	{"dsm", SRM_MERGE_DSM, false},
	{NULL, 0, false}
};

static const struct config_enum_entry sorter_misuse_options[] = {
	{"off", SRM_MISUSE_OFF, false},
	{"get_before_perform", SRM_MISUSE_GET_BEFORE_PERFORM, false},
	{"put_after_perform", SRM_MISUSE_PUT_AFTER_PERFORM, false},
	{"perform_twice", SRM_MISUSE_PERFORM_TWICE, false},
	{"finish_runs", SRM_MISUSE_FINISH_RUNS, false},
	{"export_runs", SRM_MISUSE_EXPORT_RUNS, false},
	{"adopt_runs", SRM_MISUSE_ADOPT_RUNS, false},
	{"rescan", SRM_MISUSE_RESCAN, false},
	{"markpos", SRM_MISUSE_MARKPOS, false},
	{"restorepos", SRM_MISUSE_RESTOREPOS, false},
	{NULL, 0, false}
};

/* the flags of the developer options */
#define SRM_DEBUG_GUC_FLAGS \
	(GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL)

static bool check_block_size(int *newval, void **extra, GucSource source);
static bool check_partitions(char **newval, void **extra, GucSource source);
static void assign_partitions(const char *newval, void *extra);
static void define_settings(void);

void		_PG_init(void);

PG_FUNCTION_INFO_V1(srmsort_version);

/*
 * _PG_init
 *		Define settings and install hooks.  Runs in the postmaster when
 *		preloaded, and in every backend or parallel worker that loads us.
 */
void
_PG_init(void)
{
	define_settings();
	MarkGUCPrefixReserved("srmsort");
	SrmShmemInit();
	SrmWorkerStatsInit();
	SrmNodeInit();
	SrmPlannerInit();
	SrmUtilityInit();
}

/*
 * define_settings
 *		The srmsort.* settings.  The srmsort.debug_* ones are developer
 *		options for the fault tests, like PostgreSQL's debug_* settings
 *		superuser-only and in no sample file; besides, hidden from SHOW ALL
 *		and pg_settings (RESET ALL resets them as any other).  Reading one
 *		costs a load.
 */
static void
define_settings(void)
{
	DefineCustomBoolVariable("srmsort.enabled",
							 "Enables srmsort for large sorts.",
							 "When off, every sort runs through PostgreSQL's own sort, "
							 "also in plans cached while it was on.",
							 &srmsort_enabled, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("srmsort.create_index",
							 "Builds large btree and sorted GiST indexes through srmsort.",
							 "Applies to the btree builds (and the GiST builds PostgreSQL "
							 "sorts, not CONCURRENTLY) of CREATE INDEX and REINDEX (also "
							 "CONCURRENTLY; not REINDEX SYSTEM), ALTER TABLE, and the index "
							 "rebuilds after CLUSTER, VACUUM FULL and REFRESH MATERIALIZED "
							 "VIEW, on plain tables whose sort would reach "
							 "srmsort.min_input_size.",
							 &srmsort_create_index, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("srmsort.cluster",
							 "Sorts the table of CLUSTER through srmsort.",
							 "When PostgreSQL's CLUSTER rewrites a table by a sequential "
							 "scan and a sort, srmsort sorts it, for tables of at least "
							 "srmsort.min_input_size.  The index rebuilds that follow are "
							 "governed by srmsort.create_index.",
							 &srmsort_cluster, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("srmsort.parallel_build",
							 "Lets srmsort's index builds use parallel workers.",
							 "When PostgreSQL would build a btree index with parallel workers "
							 "(max_parallel_maintenance_workers), srmsort's build launches them "
							 "too; off builds serially.",
							 &srmsort_parallel_build, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("srmsort.parallel_sort",
							 "Lets large sorts form their runs in parallel workers.",
							 "A sort of a whole table that PostgreSQL would scan in parallel "
							 "(max_parallel_workers_per_gather, min_parallel_table_scan_size) "
							 "but sort in one process: the workers and the leader sort their "
							 "shares of the scan into runs and the leader merges them once; "
							 "off leaves such sorts to one process.",
							 &srmsort_parallel_sort, true, PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomStringVariable("srmsort.tablespaces",
							   "Tablespaces used as srmsort's workfile disks.",
							   "A comma-separated list of tablespace names, one workfile "
							   "disk each.  Empty means temp_tablespaces, and if that is "
							   "empty too, the database's default tablespace.  The user "
							   "needs CREATE permission on each.",
							   &srmsort_tablespaces, "", PGC_USERSET,
							   GUC_LIST_INPUT,
							   SrmCheckTablespaces, NULL, NULL);

	DefineCustomIntVariable("srmsort.block_size",
							"Size of the blocks runs are striped in.",
							"A power of two between 32kB and 16MB.  Smaller blocks are "
							"used when the sort's memory is too small for this size.",
							&srmsort_block_size, 256, SRM_MIN_BLOCK_KB, SRM_MAX_BLOCK_KB,
							PGC_USERSET, GUC_UNIT_KB,
							check_block_size, NULL, NULL);

	DefineCustomIntVariable("srmsort.min_input_size",
							"Smallest sort that srmsort takes.",
							"Measured as the memory PostgreSQL's own sort would need by "
							"the planner's estimates; smaller sorts stay with PostgreSQL's "
							"sort.  -1 means the sort's memory budget (work_mem, or "
							"maintenance_work_mem for CREATE INDEX), so that only sorts "
							"PostgreSQL would spill are taken.",
							&srmsort_min_input_size, 64, -1, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("srmsort.min_work_mem",
							"Smallest sort budget with which srmsort takes a sort.",
							"Sorts whose work_mem is below this are left to PostgreSQL's "
							"own sort, which is as fast or faster with so little memory.  "
							"Also in plans cached when work_mem was larger.",
							&srmsort_min_work_mem, SRM_MIN_BUDGET_KB, 64, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("srmsort.huge_pages",
							 "Offers in-memory sort arenas of 32MB budgets and up to transparent huge pages.",
							 "Fewer TLB misses when a sort visits its tuples in sorted order, "
							 "but on virtual machines whose host takes free memory back, "
							 "fresh huge pages can cost more to fault in than they save.",
							 &srmsort_huge_pages, false, PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("srmsort.io_method",
							 "How workfile I/O is issued.",
							 "io_uring submits the reads of all disks at once; sync uses "
							 "pread/pwrite.  If io_uring cannot be set up, sync is used.",
							 &srmsort_io_method, SRM_IO_METHOD_IO_URING, srm_io_method_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);

	DefineCustomEnumVariable("srmsort.direct_io",
							 "Uses O_DIRECT for workfile I/O.",
							 "on bypasses the page cache for run blocks, off goes through "
							 "it; auto chooses per sort: direct when the sort's workfiles "
							 "would not fit in its share of the page cache the server "
							 "can use, buffered otherwise.",
							 &srmsort_direct_io, SRM_DIRECT_IO_OFF, direct_io_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);

	DefineCustomStringVariable("srmsort.disk_weights",
							   "Relative speeds of the workfile disks, for striping by weight.",
							   "auto measures each tablespace's bandwidth the first time it is "
							   "used and learns from sorts with direct I/O (needs "
							   "shared_preload_libraries); equal stripes round robin; a list "
							   "'tablespace:weight, ...' gives weights (unlisted tablespaces "
							   "weigh 1).  Each disk gets blocks in proportion to its weight.",
							   &srmsort_disk_weights, "auto", PGC_USERSET, GUC_LIST_INPUT,
							   SrmCheckDiskWeights, SrmAssignDiskWeights, NULL);

	DefineCustomEnumVariable("srmsort.merge_strategy",
							 "Merge algorithm for external sorts.",
							 "srm is Simple Randomized Mergesort with forecasting; dsm is "
							 "the disk-striped mergesort baseline, for comparison.",
							 &srmsort_merge_strategy, SRM_MERGE_SRM, merge_strategy_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("srmsort.max_merge_order",
							"Largest number of runs merged at once.",
							NULL,
							&srmsort_max_merge_order, 1024, 2, 65536,
							PGC_USERSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("srmsort.random_seed",
							"Seed for the random start disk of each run.",
							"-1 draws a new seed for every sort; other values make the "
							"placement of blocks reproducible (for tests).",
							&srmsort_random_seed, -1, -1, INT_MAX,
							PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);

	DefineCustomStringVariable("srmsort.partitions",
							   "Number of logical partitions of the workfile disks.",
							   "An integer P from 1 to 64: the disks are split into P groups "
							   "as evenly as possible and each sort takes the least-loaded "
							   "group.  auto uses one partition at light load and more as "
							   "concurrent sorts grow.  Needs shared_preload_libraries.",
							   &srmsort_partitions_string, "auto", PGC_USERSET, 0,
							   check_partitions, assign_partitions, NULL);

	DefineCustomBoolVariable("srmsort.trace",
							 "Logs the facts of every srmsort sort.",
							 NULL,
							 &srmsort_trace, false, PGC_SUSET, 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("srmsort.debug_fail_io_uring",
							 "Developer option: makes setting up io_uring fail, as a kernel that forbids it does.",
							 "A backend without a ring yet then warns once and uses "
							 "synchronous I/O.  For the fault tests.",
							 &srmsort_debug_fail_io_uring, false, PGC_SUSET,
							 SRM_DEBUG_GUC_FLAGS, NULL, NULL, NULL);

	DefineCustomBoolVariable("srmsort.debug_no_slot_reuse",
							 "Developer option: makes merges write to new workfile space, not to the slots their reads freed.",
							 "A merge's writes then reach a disk that filled up after "
							 "run formation.  For the disk-full tests.",
							 &srmsort_debug_no_slot_reuse, false, PGC_SUSET,
							 SRM_DEBUG_GUC_FLAGS, NULL, NULL, NULL);

	DefineCustomIntVariable("srmsort.debug_merge_pause",
							"Developer option: makes an external sort wait this long before its merges.",
							"The wait can be canceled; 0 means no wait.  For tests "
							"that act on the sort meanwhile (fill a disk, watch "
							"its progress, cancel it).",
							&srmsort_debug_merge_pause, 0, 0, INT_MAX,
							PGC_SUSET, SRM_DEBUG_GUC_FLAGS | GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomIntVariable("srmsort.debug_participant_mem",
							"Developer option: the memory of each participant of a parallel index build, in place of its share of maintenance_work_mem.",
							"0 means the share.  The leader still merges with "
							"maintenance_work_mem, so a participant writes its runs "
							"with another budget than the one that reads them.  For "
							"the tests.",
							&srmsort_debug_participant_mem, 0, 0, MAX_KILOBYTES,
							PGC_SUSET, SRM_DEBUG_GUC_FLAGS | GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("srmsort.debug_load_part",
							"Developer option: the size of the parts an external sort's memory loads are sorted and written in.",
							"0 means the built-in size (16MB).  Smaller parts make "
							"small sorts split their loads.  For the tests.",
							&srmsort_debug_load_part, 0, 0, MAX_KILOBYTES,
							PGC_SUSET, SRM_DEBUG_GUC_FLAGS | GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("srmsort.debug_load_cap",
							"Developer option: the most a memory load takes of a large budget when the sort is expected to be external.",
							"0 means the built-in size (128MB).  A smaller cap makes "
							"small sorts cap their loads.  For the tests.",
							&srmsort_debug_load_cap, 0, 0, MAX_KILOBYTES,
							PGC_SUSET, SRM_DEBUG_GUC_FLAGS | GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("srmsort.debug_gist_split_fail",
							"Developer option: a parallel worker of a GiST build fails at its Nth batch.",
							"0 means never.  An error in an operator class's "
							"picksplit, which the tests cannot cause otherwise.  For "
							"the tests.",
							&srmsort_debug_gist_split_fail, 0, 0, INT_MAX,
							PGC_SUSET, SRM_DEBUG_GUC_FLAGS, NULL, NULL, NULL);

	DefineCustomBoolVariable("srmsort.debug_scan_barrier",
							 "Developer option: every participant of a parallel index build has a row of the table before any scans on.",
							 "Each waits at its first row (or at the end of its scan) "
							 "for all the others, so that each scans a share however "
							 "late its process starts.  For the tests.",
							 &srmsort_debug_scan_barrier, false, PGC_SUSET,
							 SRM_DEBUG_GUC_FLAGS, NULL, NULL, NULL);

	DefineCustomStringVariable("srmsort.debug_slow_disk",
							   "Developer option: a tablespace whose measured bandwidth is taken as an eighth of what it is.",
							   "Makes one of the test's workfile directories, all on one "
							   "disk, look like a slow disk to weighted striping.  For the "
							   "tests.",
							   &srmsort_debug_slow_disk, "", PGC_SUSET,
							   SRM_DEBUG_GUC_FLAGS, NULL, NULL, NULL);

	DefineCustomIntVariable("srmsort.debug_icu_table_after",
							"Developer option: keys made through ICU for a collation before its table of primary weights is built.",
							"Counted per backend and collation over all sorts; 0 builds "
							"the table at the first key, -1 makes every key through ICU.  "
							"For the tests of ICU text keys.",
							&srmsort_debug_icu_table_after, SRM_ICU_TABLE_AFTER, -1, INT_MAX,
							PGC_SUSET, SRM_DEBUG_GUC_FLAGS,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("srmsort.debug_sorter_misuse",
							 "Developer option: makes SRMSort call the sorter out of order once.",
							 "get_before_perform fetches before the input is in; the "
							 "others call the named function after the sort is "
							 "performed.  The sorter must raise its internal error "
							 "\"invalid sorter state\", not crash.  For the tests.",
							 &srmsort_debug_sorter_misuse, SRM_MISUSE_OFF,
							 sorter_misuse_options, PGC_SUSET, SRM_DEBUG_GUC_FLAGS,
							 NULL, NULL, NULL);
}

/*
 * check_block_size
 *		Block sizes must be powers of two (blocks are aligned for O_DIRECT).
 */
static bool
check_block_size(int *newval, void **extra, GucSource source)
{
	if ((*newval & (*newval - 1)) != 0)
	{
		GUC_check_errdetail("srmsort.block_size must be a power of two.");
		return false;
	}
	return true;
}

/*
 * check_partitions
 *		srmsort.partitions is "auto" or an integer from 1 to 64.
 */
static bool
check_partitions(char **newval, void **extra, GucSource source)
{
	char	   *end;
	long		p;
	int		   *parsed;

	if (pg_strcasecmp(*newval, "auto") == 0)
		p = 0;
	else
	{
		errno = 0;
		p = strtol(*newval, &end, 10);
		while (*end == ' ')
			end++;
		if (errno != 0 || end == *newval || *end != '\0' || p < 1 || p > SRM_MAX_DISKS)
		{
			GUC_check_errdetail("srmsort.partitions must be auto or an integer from 1 to %d.",
								SRM_MAX_DISKS);
			return false;
		}
	}
	parsed = SrmGucMalloc(sizeof(int));
	if (parsed == NULL)
		return false;
	*parsed = (int) p;
	*extra = parsed;
	return true;
}

static void
assign_partitions(const char *newval, void *extra)
{
	srmsort_partitions = *(int *) extra;
}

/*
 * srmsort_version
 *		The version of the loaded library, to tell it from the SQL script's.
 */
Datum
srmsort_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text("1.0"));
}
