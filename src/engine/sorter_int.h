/*-------------------------------------------------------------------------
 *
 * sorter_int.h
 *	  The sorter's insides, shared by the engine's sorter files: sorter.c
 *	  (the API, the states, run formation), sortread.c (reading the
 *	  result), sortmerge.c (merging the runs down to the final merge) and
 *	  sortruns.c (the run list and the memory budget).
 *
 * Nothing outside engine/ includes it: to every other module a sorter is
 * sorter.h's opaque handle.  It includes nothing of engine/, so that the
 * files can sit on top of one another: sortruns.c below sortmerge.c
 * below sorter.c; sortread.c beside sorter.c.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/engine/sorter_int.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_SORTER_INT_H
#define SRM_SORTER_INT_H

#include "merge/merge.h"
#include "runs/runs.h"
#include "runs/scan.h"
#include "runs/writering.h"

/* A memory load is sorted and written in parts of about this many bytes */
#define SRM_LOAD_PART			(16 * 1024 * 1024)
/*
 * ... as long as the runs expected stay within this many, or one per this
 * many bytes of the budget if that is more
 */
#define SRM_LOAD_PARTS_RUNS		64.0
#define SRM_LOAD_PARTS_RUN_BUDGET	(1024.0 * 1024.0)
/*
 * A sort expected at SRM_LOAD_CAP_FACTOR times its budget or more takes
 * loads of SRM_LOAD_CAP bytes at most
 */
#define SRM_LOAD_CAP			((Size) 128 * 1024 * 1024)	/* or debug_load_cap */
#define SRM_LOAD_CAP_FACTOR		2.0

/*
 * sorter.c's header comment draws the states; it alone moves between them.
 * Every entry point checks the state in a switch whose default is an
 * internal error (INVALID_STATE), as tuplesort's do.
 */
typedef enum SrmSorterState
{
	SS_INITIAL,					/* loading, everything still in memory */
	SS_BUILDRUNS,				/* loading, runs being written */
	SS_RUNSFINISHED,			/* parallel participant: runs to export */
	SS_SORTEDINMEM,				/* sorted in memory */
	SS_SORTEDONDISK,			/* sorted into one run, for random access */
	SS_FINALMERGE				/* final merge streams the result */
} SrmSorterState;

/* a state's name, for the error of an entry point called in a wrong one */
static inline const char *
SrmSorterStateName(SrmSorterState state)
{
	static const char *const names[] = {
		"initial", "build runs", "runs finished", "sorted in memory",
		"sorted on disk", "final merge"
	};

	StaticAssertStmt(lengthof(names) == SS_FINALMERGE + 1,
					 "a name for every sorter state");
	return (unsigned) state < lengthof(names) ? names[state] : "?";
}

/* an entry point called in a state that does not allow it */
#define INVALID_STATE(s, call) \
	elog(ERROR, "srmsort: invalid sorter state \"%s\" for %s", \
		 SrmSorterStateName((s)->state), (call))

struct SrmSorter
{
	MemoryContext cxt;
	MemoryContextCallback cb;
	bool		ended;
	SrmKeys    *keys;
	int			flags;
	Size		budget;
	Size		load_budget;	/* what a memory load may take of it */
	double		est_input;
	double		est_rows;		/* index sorts: the heap's estimated rows */
	SrmSorterState state;
	bool		dsm;
	SrmMemLoad	load;
	SrmRecFormat fmt;			/* records of runs */

	/* external sorts */
	SrmTapeSet *ts;
	int			block_size;
	int			load_parts;		/* runs a memory load is sorted and written
								 * as (load_parts_for) */
	SrmRun	  **runs;
	int			nruns;
	int			maxruns;
	Size		runs_meta_bytes;	/* the runs' bookkeeping in memory: the
									 * sum of their meta_bytes */
	SrmWriteRing wring;			/* the buffers runs are written through */
	/*
	 * The run still open for loads in order, and its writer: both set or
	 * both NULL, and set only while runs are built (SS_BUILDRUNS), the run
	 * not yet in runs[].  Whatever takes runs[] as all the runs (the
	 * merges, an export, an adoption) closes it first or finds it closed:
	 * SrmSorterNoOpenRun.
	 */
	SrmRun	   *open_run;
	SrmRunWriter *open_writer;
	SrmTuple	open_last;		/* a copy of its last tuple, full datum1 */
	Size		open_last_size; /* bytes allocated at open_last.tuple */
	SrmMerge   *merge;
	SrmScan    *scan;
	SrmMergeCounters counters;
	int			merge_order;
	int			passes;
	int64		nruns_initial;
	bool		tight_memory;	/* not even the smallest merge fits */
	bool		no_early_merge; /* early merges did not fit: never again */
	bool		job;			/* registered in shared memory */
	struct SrmSorterShare *share;	/* parallel builds: the shared disks */

	/* reading, as tuplesort: next tuple forward, and whether at the end */
	int64		current;
	bool		eof_reached;
	int64		markpos;
	bool		markpos_eof;

	/* statistics */
	int64		tuples;
	int64		input_bytes;
	Size		mem_peak;
};

#endif							/* SRM_SORTER_INT_H */
