/*-------------------------------------------------------------------------
 *
 * srmsort_unit.c
 *	  Unit tests of srmsort's pure parts, as a test-only loadable module.
 *
 * Three SQL functions, one per area, each run that area's checks and return
 * a line per failed check (none when all pass):
 *
 *	 srmsort_unit_mergeplan()  the merge planner's tables (mergeplan.c):
 *		disks, block size, merge orders, passes and buffers as functions of
 *		budget, disks, block size and runs, from the minimum work_mem to the
 *		largest, against the invariants mergeplan.c and docs/design.md §6
 *		promise -- the plan fits the budget, orders within
 *		srmsort.max_merge_order and as large as the budget allows (so the
 *		passes are minimal), R the smallest order as good, the intermediate
 *		merges a simulation runs end at exactly the final order within the
 *		planned passes, and monotonicity where it must hold.
 *	 srmsort_unit_record()  the record format's round trip (record.c,
 *		record.h): tuples encoded and rebuilt byte for byte, their keys read
 *		back equal to SrmKeysNormalize's, the key stored exactly when the
 *		column cannot give it back, at the edges -- NULLs, zero-length and
 *		long varlenas, short and 4-byte varlena headers, pad bytes, by-value
 *		and by-reference types, up to 1600 columns, DESC and NULLS FIRST,
 *		the length word's size classes, a room too small, unaligned records.
 *	 srmsort_unit_radix()  the radix sort (radix.c) against qsort with the
 *		same comparator: random, all-equal, sorted, reverse, few distinct,
 *		narrow-range keys, NULL ranks, at sizes 0, 1, 2 and around its
 *		insertion-sort, wide-digit and prefetch thresholds; then the ties,
 *		fixed with the full comparison, against qsort of SrmCompareNorm.
 *
 * The module links its own copies of those files (test/unit/Makefile) and
 * defines the settings they read, so a test may change them; it never
 * becomes part of srmsort.so.  Each function runs in a memory context of
 * its own, deleted before it returns its lines.
 *
 * IDENTIFICATION
 *	  test/unit/srmsort_unit.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "common/pg_prng.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "compat.h"
#include "disks.h"
#include "icukey.h"
#include "keys.h"
#include "mergeplan.h"
#include "radix.h"
#include "record.h"
#include "srmsort.h"
#include "tape.h"

PG_MODULE_MAGIC;

/* the settings the pure parts read: this module's own, srmsort.c's defaults */
int			srmsort_block_size = 256;
int			srmsort_max_merge_order = 1024;

/* The planner's limits from the two settings above (SrmSorterPlanLimits). */
static SrmPlanLimits
unit_limits(void)
{
	return (SrmPlanLimits) {SRM_MAX_DISKS, srmsort_block_size * 1024,
		srmsort_max_merge_order, sizeof(SrmBlockRef) + sizeof(SrmForecastEntry)};
}
int			srmsort_debug_icu_table_after = SRM_ICU_TABLE_AFTER;

PG_FUNCTION_INFO_V1(srmsort_unit_mergeplan);
PG_FUNCTION_INFO_V1(srmsort_unit_record);
PG_FUNCTION_INFO_V1(srmsort_unit_radix);

#define UNIT_MAX_LINES	100

/* the checks of one call: failures (in out_cxt) and counts */
typedef struct UnitRun
{
	MemoryContext out_cxt;
	List	   *lines;
	int64		nchecks;
	int64		nfailed;
} UnitRun;

static UnitRun *unit;

static void unit_fail(const char *fmt,...) pg_attribute_printf(1, 2);

/*
 * unit_fail
 *		Record a failed check (the first UNIT_MAX_LINES are kept).
 */
static void
unit_fail(const char *fmt,...)
{
	MemoryContext old;
	StringInfoData buf;

	unit->nfailed++;
	if (unit->nfailed > UNIT_MAX_LINES)
		return;
	old = MemoryContextSwitchTo(unit->out_cxt);
	initStringInfo(&buf);
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&buf, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	unit->lines = lappend(unit->lines, buf.data);
	MemoryContextSwitchTo(old);
}

#define CHECK(cond, ...) \
	do { \
		unit->nchecks++; \
		if (!(cond)) \
			unit_fail(__VA_ARGS__); \
	} while (0)

/*
 * unit_srf
 *		The set-returning shell of every area: run tests once in a context
 *		of their own, then return the failure lines one per call.  Fewer
 *		than min_checks checks is itself a failure (a test that no longer
 *		tests).
 */
static Datum
unit_srf(FunctionCallInfo fcinfo, void (*tests) (void), int64 min_checks)
{
	FuncCallContext *funcctx;
	List	   *lines;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext work;
		MemoryContext old;
		UnitRun		run = {0};

		funcctx = SRF_FIRSTCALL_INIT();
		run.out_cxt = funcctx->multi_call_memory_ctx;
		work = AllocSetContextCreate(CurrentMemoryContext, "srmsort_unit",
									 ALLOCSET_DEFAULT_SIZES);
		old = MemoryContextSwitchTo(work);
		unit = &run;
		srmsort_block_size = 256;
		srmsort_max_merge_order = 1024;
		tests();
		srmsort_block_size = 256;
		srmsort_max_merge_order = 1024;
		if (run.nfailed > UNIT_MAX_LINES)
		{
			MemoryContextSwitchTo(run.out_cxt);
			run.lines = lappend(run.lines,
								psprintf("... and " INT64_FORMAT " more failed checks",
										 run.nfailed - UNIT_MAX_LINES));
		}
		if (run.nchecks < min_checks)
		{
			MemoryContextSwitchTo(run.out_cxt);
			run.lines = lappend(run.lines,
								psprintf("only " INT64_FORMAT " checks ran, expected at least " INT64_FORMAT,
										 run.nchecks, min_checks));
		}
		elog(DEBUG1, "srmsort_unit: " INT64_FORMAT " checks, " INT64_FORMAT " failed",
			 run.nchecks, run.nfailed);
		unit = NULL;
		MemoryContextSwitchTo(old);
		MemoryContextDelete(work);
		funcctx->user_fctx = run.lines;
	}
	funcctx = SRF_PERCALL_SETUP();
	lines = (List *) funcctx->user_fctx;
	if (funcctx->call_cntr < (uint64) list_length(lines))
	{
		/* SRF_RETURN_NEXT counts the call before it evaluates its result */
		Datum		line = CStringGetTextDatum((char *) list_nth(lines,
																 (int) funcctx->call_cntr));

		SRF_RETURN_NEXT(funcctx, line);
	}
	SRF_RETURN_DONE(funcctx);
}


/* ------------------------------------------------------------------------
 * The merge planner
 * ------------------------------------------------------------------------
 */

#define KB	((Size) 1024)

/* the budgets tried: 64kB (the least work_mem) up to the largest one */
static Size
budget_at(int i, int n)
{
	double		lo = log(64.0 * 1024);
	double		hi = log((double) MAX_KILOBYTES * 1024);

	if (i == n - 1)
		return (Size) MAX_KILOBYTES * 1024;
	return (Size) exp(lo + (hi - lo) * i / (n - 1));
}

/* block buffers a merge of k runs needs over D disks (design.md §6) */
static int
need_in(bool dsm, int D, int k)
{
	return dsm ? 2 * D * k : 2 * k + D;
}

/* ... a merge of two runs with its 2D output buffers: SrmPlanDisks' test */
static int
need_two(bool dsm, int D)
{
	return need_in(dsm, D, 2) + 2 * D;
}

/* passes for nruns runs with orders rf, ri: the least p, rf * ri^(p-1) >= n */
static int
ref_passes(double nruns, int rf, int ri)
{
	int			p = 1;
	double		cap = rf;

	while (cap < nruns)
	{
		cap *= ri;
		p++;
	}
	return p;
}

/*
 * unit_plan_disks
 *		SrmPlanDisks: the most disks whose two-run merge fits in the
 *		budget less its bookkeeping quarter, 16kB blocks unless not even one
 *		disk fits them; monotone in the budget.
 */
static void
unit_plan_disks(void)
{
	int			dsm;
	int			i;
	const int	n = 200;

	for (dsm = 0; dsm <= 1; dsm++)
	{
		int			prevD = 0;
		int			prev_mb = 0;

		for (i = 0; i < n; i++)
		{
			Size		budget = budget_at(i, n);
			double		usable = (double) budget - budget / SRM_META_CHARGED_SHARE;
			int			mb;
			int			D = SrmPlanDisks(unit_limits(), budget, dsm, &mb);
			double		per = mb + SRM_BUF_SLACK;

			CHECK(D >= 1 && D <= SRM_MAX_DISKS,
				  "SrmPlanDisks(%zu, dsm=%d) = %d disks", budget, dsm, D);
			CHECK(mb == SRM_MIN_AUTO_BLOCK_KB * 1024 || mb == SRM_TIGHT_BLOCK_KB * 1024,
				  "SrmPlanDisks(%zu, dsm=%d): min block %d", budget, dsm, mb);
			CHECK((mb == SRM_MIN_AUTO_BLOCK_KB * 1024) ==
				  (need_two(dsm, 1) * (double) (SRM_MIN_AUTO_BLOCK_KB * 1024 + SRM_BUF_SLACK) <= usable),
				  "SrmPlanDisks(%zu, dsm=%d): min block %d, but a merge over one disk %s 16kB blocks",
				  budget, dsm, mb, mb == 8192 ? "fits" : "does not fit");
			CHECK(D == 1 || need_two(dsm, D) * per <= usable,
				  "SrmPlanDisks(%zu, dsm=%d) = %d disks: a two-run merge needs %.0f bytes of %.0f",
				  budget, dsm, D, need_two(dsm, D) * per, usable);
			CHECK(D == SRM_MAX_DISKS || need_two(dsm, D + 1) * per > usable,
				  "SrmPlanDisks(%zu, dsm=%d) = %d disks, but %d fit",
				  budget, dsm, D, D + 1);
			/*
			 * More budget, never fewer disks -- of the same least block: where
			 * 16kB blocks start to fit one disk, the disks 8kB blocks allowed
			 * drop (design.md §6: 8kB only when not even one disk fits 16kB).
			 */
			CHECK(D >= prevD || mb != prev_mb,
				  "SrmPlanDisks(dsm=%d): %d disks at %zu bytes, %d at less",
				  dsm, D, budget, prevD);
			prevD = D;
			prev_mb = mb;
			if (!dsm && budget / KB <= (Size) INT_MAX)
			{
				int			pd = SrmPlanParallelDisks(unit_limits(), (int) (budget / KB));
				int			mb2;

				CHECK(pd == SrmPlanDisks(unit_limits(), budget / KB * KB, false, &mb2),
					  "SrmPlanParallelDisks(%zu kB) = %d differs from SrmPlanDisks",
					  budget / KB, pd);
			}
		}
		CHECK(prevD == SRM_MAX_DISKS, "SrmPlanDisks(dsm=%d): the largest budget gets %d disks",
			  dsm, prevD);
	}
	/* the least work_mem: one disk, 8kB blocks, the merge a little past */
	{
		int			mb;
		int			D = SrmPlanDisks(unit_limits(), 64 * KB, false, &mb);

		CHECK(D == 1 && mb == SRM_TIGHT_BLOCK_KB * 1024,
			  "SrmPlanDisks(64kB) = %d disks of %d-byte blocks, expected 1 of 8kB", D, mb);
	}
}

/* Is B one of the block sizes SrmPlanBlockSize tries (or min_block)? */
static bool
block_candidate(int B, int min_block)
{
	int			c;

	if (B == min_block)
		return true;
	for (c = srmsort_block_size * 1024; c >= min_block; c /= 2)
		if (c == B)
			return true;
	return false;
}

/*
 * unit_block_size
 *		SrmPlanBlockSize and SrmPlanParallelBlockSize: a candidate between
 *		the least block and srmsort.block_size; the largest when one pass
 *		merges any expected input.
 */
static void
unit_block_size(void)
{
	static const int settings[] = {32, 100, 256, 2048, SRM_MAX_BLOCK_KB};
	static const double rows_list[] = {0, 1, 1e3, 1e6, 1e9};
	static const double len_list[] = {16, 200, 8000};
	int			s,
				i,
				r,
				l,
				dsm;

	for (s = 0; s < lengthof(settings); s++)
	{
		srmsort_block_size = settings[s];
		for (dsm = 0; dsm <= 1; dsm++)
			for (i = 0; i < 24; i++)
			{
				Size		budget = budget_at(i, 24);
				int			mb;
				int			D = SrmPlanDisks(unit_limits(), budget, dsm, &mb);

				for (r = 0; r < lengthof(rows_list); r++)
					for (l = 0; l < lengthof(len_list); l++)
					{
						double		ft = Max(floor(budget / (len_list[l] + 16)), 1);
						double		fb = ft * len_list[l];
						int			B = SrmPlanBlockSize(unit_limits(), budget, dsm, D, mb, rows_list[r],
														 rows_list[r] * (len_list[l] + 8),
														 ft, fb);

						CHECK(block_candidate(B, mb),
							  "SrmPlanBlockSize(%zu, dsm=%d, D=%d, rows=%g, len=%g) = %d: not a candidate (block_size %dkB, least %d)",
							  budget, dsm, D, rows_list[r], len_list[l], B,
							  srmsort_block_size, mb);
						CHECK(B >= mb && (B <= srmsort_block_size * 1024 || B == mb),
							  "SrmPlanBlockSize(%zu, dsm=%d) = %d outside [%d, %dkB]",
							  budget, dsm, B, mb, srmsort_block_size);
					}
			}

		/* a 1GB budget and a small input: one pass whatever the block */
		{
			int			mb;
			int			B;

			(void) SrmPlanDisks(unit_limits(), 1024 * KB * KB, false, &mb);
			B = SrmPlanBlockSize(unit_limits(), 1024 * KB * KB, false, 1, mb, 1e4,
											 1e4 * 108, 1e4, 1e6);

			CHECK(B == srmsort_block_size * 1024,
				  "SrmPlanBlockSize(1GB, one disk, 10000 rows) = %d, expected srmsort.block_size %dkB",
				  B, srmsort_block_size);
		}

		/* parallel builds */
		{
			static const int kbs[] = {64, 1024, 65536, 1 << 20};
			static const int parts[] = {1, 2, 4, 8};
			static const double prow[] = {0, 1e4, 1e8};
			int			m,
						k,
						p,
						w;

			for (m = 0; m < lengthof(kbs); m++)
				for (k = 0; k < lengthof(kbs); k++)
					for (p = 0; p < lengthof(parts); p++)
						for (w = 0; w < lengthof(prow); w++)
						{
							int			mb;
							int			D = SrmPlanDisks(unit_limits(), (Size) kbs[m] * KB, false, &mb);
							int			first,
										count;
							int			B;

							SrmPlanParticipantDisks(D, 0, parts[p], &first, &count);
							B = SrmPlanParallelBlockSize(unit_limits(), kbs[m], kbs[k], parts[p], D,
														 count, prow[w], 100);
							CHECK(block_candidate(B, mb) &&
								  (B <= srmsort_block_size * 1024 || B == mb),
								  "SrmPlanParallelBlockSize(merge %dkB, runs %dkB, %d parts, D=%d) = %d: not a candidate",
								  kbs[m], kbs[k], parts[p], D, B);
						}
		}
	}
	srmsort_block_size = 256;
}

/*
 * unit_participants
 *		SrmPlanParticipantDisks: disjoint ranges covering every disk when
 *		there are enough disks, else one disk each, spread.
 */
static void
unit_participants(void)
{
	int			ndisks,
				n,
				q;

	for (ndisks = 1; ndisks <= SRM_MAX_DISKS; ndisks++)
		for (n = 1; n <= 70; n++)
		{
			int			owner[SRM_MAX_DISKS];
			int			d;

			for (d = 0; d < ndisks; d++)
				owner[d] = -1;
			for (q = 0; q < n; q++)
			{
				int			first,
							count;

				SrmPlanParticipantDisks(ndisks, q, n, &first, &count);
				CHECK(count >= 1 && first >= 0 && first + count <= ndisks,
					  "SrmPlanParticipantDisks(%d disks, %d of %d) = [%d, +%d)",
					  ndisks, q, n, first, count);
				if (ndisks < n)
				{
					CHECK(count == 1, "SrmPlanParticipantDisks(%d disks, %d of %d): %d disks",
						  ndisks, q, n, count);
					continue;
				}
				for (d = first; d < first + count && d < ndisks && d >= 0; d++)
				{
					CHECK(owner[d] == -1,
						  "SrmPlanParticipantDisks(%d disks, %d parts): disk %d to %d and %d",
						  ndisks, n, d, owner[d], q);
					owner[d] = q;
				}
			}
			if (ndisks >= n)
				for (d = 0; d < ndisks; d++)
					CHECK(owner[d] != -1,
						  "SrmPlanParticipantDisks(%d disks, %d parts): disk %d unused",
						  ndisks, n, d);
		}
}

/* a run in the merge simulation: its size and the merges it went through */
typedef struct SimRun
{
	double		size;
	int			depth;
} SimRun;

/* sift the heap h[0..n) of runs, smallest first, down from i */
static void
simrun_down(SimRun *h, int n, int i)
{
	for (;;)
	{
		int			c = 2 * i + 1;
		SimRun		t;

		if (c >= n)
			return;
		if (c + 1 < n && h[c + 1].size < h[c].size)
			c++;
		if (h[i].size <= h[c].size)
			return;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

/* take the smallest run out of the heap h[0..*n) */
static SimRun
simrun_pop(SimRun *h, int *n)
{
	SimRun		r = h[0];

	h[0] = h[--(*n)];
	simrun_down(h, *n, 0);
	return r;
}

/* put run r into the heap h[0..*n) */
static void
simrun_push(SimRun *h, int *n, SimRun r)
{
	int			i = (*n)++;

	h[i] = r;
	while (i > 0 && h[(i - 1) / 2].size > h[i].size)
	{
		SimRun		t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/*
 * check_plan
 *		One plan against the invariants of design.md §6.
 */
static void
check_plan(const SrmMergeMem *mm, const char *what)
{
	SrmMergePlan plan;
	int			D = mm->ndisks;
	bool		dsm = mm->dsm;
	int			cap = Max(srmsort_max_merge_order, 2);
	double		most = (double) mm->budget - SrmMetaCharged(mm->budget, mm->meta) -
		(double) mm->load;
	int			bufs;
	bool		fit_final,
				fit_inter;
	int			n,
				k,
				nbufs,
				steps;

	SrmPlanMerges(mm, &plan);
	bufs = (int) Max(floor(plan.avail / (mm->block_size + SRM_BUF_SLACK)), 0);

	CHECK(plan.final_order >= 2 && plan.final_order <= cap &&
		  plan.inter_order >= 2 && plan.inter_order <= cap,
		  "%s: orders final %d, intermediate %d outside [2, %d]",
		  what, plan.final_order, plan.inter_order, cap);
	CHECK(plan.merge_order >= 2 && plan.merge_order <= plan.final_order,
		  "%s: merge order %d outside [2, final %d]", what, plan.merge_order,
		  plan.final_order);
	CHECK(plan.avail <= most + 0.5,
		  "%s: %.0f bytes for buffers, more than the %.0f the budget leaves",
		  what, plan.avail, most);
	CHECK(plan.passes == ref_passes(mm->nruns, plan.final_order, plan.inter_order),
		  "%s: %d passes, but orders %d/%d merge %d runs in %d", what, plan.passes,
		  plan.final_order, plan.inter_order, mm->nruns,
		  ref_passes(mm->nruns, plan.final_order, plan.inter_order));
	/* R: as good, and the smallest such */
	CHECK(ref_passes(mm->nruns, Min(plan.merge_order, plan.final_order),
					 Min(plan.merge_order, plan.inter_order)) == plan.passes,
		  "%s: merge order %d takes more than %d passes", what, plan.merge_order,
		  plan.passes);
	CHECK(plan.merge_order == 2 ||
		  ref_passes(mm->nruns, plan.merge_order - 1,
					 Min(plan.merge_order - 1, plan.inter_order)) > plan.passes,
		  "%s: merge order %d, but %d takes %d passes too", what,
		  plan.merge_order, plan.merge_order - 1, plan.passes);

	/* tight exactly when no two-run merge fits; else the plan fits */
	fit_final = need_in(dsm, D, 2) <= bufs;
	fit_inter = need_in(dsm, D, 2) + 2 * D <= bufs;
	CHECK(plan.tight == !(fit_final && (mm->nruns <= plan.final_order || fit_inter)),
		  "%s: tight = %d with %d buffers (final order %d, %d runs)", what,
		  plan.tight, bufs, plan.final_order, mm->nruns);
	if (!plan.tight)
	{
		CHECK(need_in(dsm, D, plan.final_order) <= bufs,
			  "%s: final order %d needs %d buffers of %d", what, plan.final_order,
			  need_in(dsm, D, plan.final_order), bufs);
		CHECK(mm->nruns <= plan.final_order ||
			  need_in(dsm, D, plan.inter_order) + 2 * D <= bufs,
			  "%s: intermediate order %d needs %d buffers of %d", what,
			  plan.inter_order, need_in(dsm, D, plan.inter_order) + 2 * D, bufs);
		/* as large as the budget allows: the passes are the fewest */
		CHECK(plan.final_order == cap || need_in(dsm, D, plan.final_order + 1) > bufs,
			  "%s: final order %d, but %d fits in %d buffers", what,
			  plan.final_order, plan.final_order + 1, bufs);
	}
	if (fit_inter)
		CHECK(plan.inter_order == cap ||
			  need_in(dsm, D, plan.inter_order + 1) + 2 * D > bufs,
			  "%s: intermediate order %d, but %d fits in %d buffers", what,
			  plan.inter_order, plan.inter_order + 1, bufs);

	/* the intermediate merges sortmerge.c runs: down to exactly rf runs */
	if (mm->nruns > 20000)
		return;
	n = mm->nruns;
	steps = 0;
	while ((k = SrmPlanNextMerge(mm, &plan, n, false, &nbufs)) > 0)
	{
		CHECK(k >= 2 && k <= plan.inter_order && k <= Max(plan.merge_order, 2) && k <= n,
			  "%s: intermediate merge of %d runs of %d (R %d, ri %d)", what, k, n,
			  plan.merge_order, plan.inter_order);
		CHECK(nbufs >= need_in(dsm, D, k),
			  "%s: merge of %d runs with %d buffers", what, k, nbufs);
		CHECK(dsm || nbufs <= need_in(dsm, D, k) + SRM_PREFETCH_READS * D,
			  "%s: merge of %d runs with %d buffers, past the read-ahead cap",
			  what, k, nbufs);
		CHECK(plan.tight || nbufs + 2 * D <= bufs,
			  "%s: merge of %d runs with %d + %d buffers, of %d", what, k, nbufs,
			  2 * D, bufs);
		if (k < 2 || ++steps > mm->nruns)
			break;
		n -= k - 1;
	}
	CHECK(mm->nruns <= plan.final_order ? n == mm->nruns : n == plan.final_order,
		  "%s: intermediate merges leave %d runs, final order %d", what, n,
		  plan.final_order);

	/* smallest runs first, as sortmerge.c does: no tuple merged more often */
	if (mm->nruns <= 3000 && mm->nruns > plan.final_order)
	{
		SimRun	   *runs = palloc(sizeof(SimRun) * mm->nruns);
		int			i,
					maxdepth = 0;
		double		total = 0,
					merged_bytes = 0;

		n = mm->nruns;
		for (i = 0; i < n; i++)
		{
			runs[i].size = 1;
			runs[i].depth = 0;
		}
		while ((k = SrmPlanNextMerge(mm, &plan, n, false, &nbufs)) > 1 && k <= n)
		{
			SimRun		merged = {0, 0};

			for (i = 0; i < k; i++)
			{
				SimRun		r = simrun_pop(runs, &n);

				merged.size += r.size;
				merged.depth = Max(merged.depth, r.depth + 1);
			}
			simrun_push(runs, &n, merged);
		}
		/*
		 * Passes over the data: each tuple merged depth times before the
		 * final merge.  Not exactly the plan's: merging the smallest k runs
		 * at a time leaves runs over at each level, merged again at the
		 * next, so where the orders barely reach the runs (2999 runs, orders
		 * 9/7: 3087) some tuples are merged once more than planned (4.085
		 * passes over the data where the plan says 4).  Checked: never two
		 * more, and a quarter of a pass more at most.
		 */
		for (i = 0; i < n; i++)
		{
			total += runs[i].size;
			merged_bytes += runs[i].size * runs[i].depth;
			maxdepth = Max(maxdepth, runs[i].depth);
		}
		CHECK(maxdepth + 1 <= plan.passes + 1,
			  "%s: the planned merges merge a tuple %d times, the plan says %d passes",
			  what, maxdepth + 1, plan.passes);
		CHECK(merged_bytes / total + 1 <= plan.passes + 0.25,
			  "%s: the planned merges take %.3f passes over the data, the plan says %d (orders %d/%d, R %d)",
			  what, merged_bytes / total + 1, plan.passes, plan.final_order,
			  plan.inter_order, plan.merge_order);
		pfree(runs);
	}

	/* merged down to one run (random access) */
	n = mm->nruns;
	steps = 0;
	while ((k = SrmPlanNextMerge(mm, &plan, n, true, &nbufs)) > 0)
	{
		CHECK(k >= 2 && k <= plan.inter_order && k <= n && nbufs >= need_in(dsm, D, k),
			  "%s: merge to one of %d runs of %d with %d buffers", what, k, n, nbufs);
		if (k < 2 || ++steps > mm->nruns)
			break;
		n -= k - 1;
	}
	CHECK(n == 1 || mm->nruns == 0, "%s: merging to one run leaves %d", what, n);

	/* the final merge and the scan of one run */
	if (mm->nruns >= 1 && mm->nruns <= plan.final_order)
	{
		int			fb = SrmPlanFinalBuffers(mm);
		int			need = need_in(dsm, D, mm->nruns);

		CHECK(fb >= need && (dsm || fb <= need + SRM_PREFETCH_READS * D) &&
			  (plan.tight || fb <= Max(bufs, need)),
			  "%s: final merge of %d runs with %d buffers (needs %d, has %d)",
			  what, mm->nruns, fb, need, bufs);
	}
	{
		int			sb = SrmPlanScanBuffers(mm);

		CHECK(sb >= D + 2 && sb <= 4 * D + 2, "%s: scan with %d buffers", what, sb);
	}
}

/*
 * check_early
 *		SrmPlanEarlyMerge: nothing while the bookkeeping is under half its
 *		charged share; else a merge of 2..nruns runs that fits, or false
 *		when none does.
 */
static void
check_early(const SrmMergeMem *mm, const char *what)
{
	int			k,
				nbufs;
	bool		ok = SrmPlanEarlyMerge(mm, &k, &nbufs);
	int			D = mm->ndisks;
	double		avail = (double) mm->budget - SrmMetaCharged(mm->budget, mm->meta) -
		(double) mm->load;
	int			bufs = (int) Max(floor(avail / (mm->block_size + SRM_BUF_SLACK)), 0);

	if (mm->meta <= mm->budget / (2 * SRM_META_CHARGED_SHARE) || mm->nruns <= 2)
	{
		CHECK(ok && k == 0, "%s: early merge of %d runs under the share", what, k);
		return;
	}
	if (!ok)
	{
		CHECK(mm->open_bytes > 0 || need_in(mm->dsm, D, 2) + 2 * D > bufs,
			  "%s: no early merge, but one of two runs fits in %d buffers", what, bufs);
		return;
	}
	CHECK(k >= 2 && k <= mm->nruns && k <= Max(srmsort_max_merge_order, 2),
		  "%s: early merge of %d runs of %d", what, k, mm->nruns);
	CHECK(nbufs >= need_in(mm->dsm, D, k) && nbufs + 2 * D <= bufs,
		  "%s: early merge of %d runs with %d + %d buffers of %d", what, k, nbufs,
		  2 * D, bufs);
}

/*
 * unit_plan_merges
 *		Plans over a grid of budgets, disks, blocks, runs, bookkeeping and
 *		memory load, at several srmsort.max_merge_order; then monotonicity.
 */
static void
unit_plan_merges(void)
{
	static const int caps[] = {1024, 2, 7, 65536};
	static const int disks[] = {1, 2, 4, 16, 64};
	static const int blocks[] = {8, 16, 64, 256, 2048};
	static const int nruns[] = {0, 1, 2, 3, 7, 100, 1000, 2999, 12345, 1000000};
	int			c,
				dsm,
				i,
				d,
				b,
				r,
				v;
	char		what[256];

	for (c = 0; c < lengthof(caps); c++)
	{
		int			nbudgets = c == 0 ? 14 : 6;

		srmsort_max_merge_order = caps[c];
		for (dsm = 0; dsm <= 1; dsm++)
			for (i = 0; i < nbudgets; i++)
				for (d = 0; d < lengthof(disks); d++)
					for (b = 0; b < lengthof(blocks); b++)
						for (r = 0; r < lengthof(nruns); r++)
							for (v = 0; v < (c == 0 ? 4 : 1); v++)
							{
								SrmMergeMem mm = {.limits = unit_limits()};

								mm.budget = budget_at(i, nbudgets);
								mm.dsm = dsm;
								mm.ndisks = disks[d];
								mm.block_size = blocks[b] * 1024;
								mm.nruns = nruns[r];
								/* v: plain; bookkeeping; a memory load; paged runs */
								mm.meta = v == 1 ? mm.budget / 3 : v == 3 ? mm.budget / 20 : 0;
								mm.load = v == 2 ? mm.budget / 8 : 0;
								mm.open_bytes = v == 3 ? 4096 : 0;
								snprintf(what, sizeof(what),
										 "plan(budget %zu, %s, D %d, B %dk, %d runs, meta %zu, load %zu, open %zu, max order %d)",
										 mm.budget, dsm ? "DSM" : "SRM", mm.ndisks,
										 blocks[b], mm.nruns, mm.meta, mm.load,
										 mm.open_bytes, srmsort_max_merge_order);
								check_plan(&mm, what);
								mm.meta = mm.budget / (v + 2);
								check_early(&mm, what);
							}
	}
	srmsort_max_merge_order = 1024;

	/* monotone: more budget never more passes nor smaller orders */
	for (dsm = 0; dsm <= 1; dsm++)
		for (d = 0; d < lengthof(disks); d++)
			for (r = 1; r < lengthof(nruns); r++)
			{
				SrmMergePlan prev = {0};
				bool		prev_tight = true;

				for (i = 0; i < 60; i++)
				{
					SrmMergeMem mm = {.limits = unit_limits()};
					SrmMergePlan plan;

					mm.budget = budget_at(i, 60);
					mm.dsm = dsm;
					mm.ndisks = disks[d];
					mm.block_size = 64 * 1024;
					mm.nruns = nruns[r];
					SrmPlanMerges(&mm, &plan);
					if (i > 0)
						CHECK(plan.final_order >= prev.final_order &&
							  plan.inter_order >= prev.inter_order &&
							  plan.passes <= prev.passes && (prev_tight || !plan.tight),
							  "budget %zu, %s, D %d, %d runs: orders %d/%d, %d passes, tight %d; with less budget %d/%d, %d, %d",
							  mm.budget, dsm ? "DSM" : "SRM", mm.ndisks, mm.nruns,
							  plan.final_order, plan.inter_order, plan.passes,
							  plan.tight, prev.final_order, prev.inter_order,
							  prev.passes, prev.tight);
					prev = plan;
					prev_tight = plan.tight;
				}
			}

	/* more runs: never fewer passes; the orders do not depend on them */
	for (dsm = 0; dsm <= 1; dsm++)
		for (i = 0; i < 14; i++)
		{
			SrmMergePlan prev = {0};

			for (r = 1; r < 5000000; r = r * 3 / 2 + 1)
			{
				SrmMergeMem mm = {.limits = unit_limits()};
				SrmMergePlan plan;

				mm.budget = budget_at(i, 14);
				mm.dsm = dsm;
				mm.ndisks = 4;
				mm.block_size = 16 * 1024;
				mm.nruns = r;
				SrmPlanMerges(&mm, &plan);
				if (r > 1)
					CHECK(plan.passes >= prev.passes &&
						  plan.final_order == prev.final_order &&
						  plan.inter_order == prev.inter_order,
						  "budget %zu, %s: %d runs take %d passes (orders %d/%d), fewer runs %d (%d/%d)",
						  mm.budget, dsm ? "DSM" : "SRM", r, plan.passes,
						  plan.final_order, plan.inter_order, prev.passes,
						  prev.final_order, prev.inter_order);
				prev = plan;
			}
		}

	/* more disks: never a larger order; a larger cap: never more passes */
	for (dsm = 0; dsm <= 1; dsm++)
		for (i = 0; i < 14; i++)
		{
			SrmMergePlan prev = {0};
			int			cap;

			for (d = 1; d <= SRM_MAX_DISKS; d++)
			{
				SrmMergeMem mm = {.limits = unit_limits()};
				SrmMergePlan plan;

				mm.budget = budget_at(i, 14);
				mm.dsm = dsm;
				mm.ndisks = d;
				mm.block_size = 16 * 1024;
				mm.nruns = 5000;
				SrmPlanMerges(&mm, &plan);
				if (d > 1)
					CHECK(plan.final_order <= prev.final_order &&
						  plan.inter_order <= prev.inter_order,
						  "budget %zu, %s: %d disks give orders %d/%d, %d gave %d/%d",
						  mm.budget, dsm ? "DSM" : "SRM", d, plan.final_order,
						  plan.inter_order, d - 1, prev.final_order, prev.inter_order);
				prev = plan;
			}
			for (cap = 2; cap <= 65536; cap *= 2)
			{
				SrmMergeMem mm = {.limits = unit_limits()};
				SrmMergePlan plan;

				srmsort_max_merge_order = cap;
				mm.limits = unit_limits();
				mm.budget = budget_at(i, 14);
				mm.dsm = dsm;
				mm.ndisks = 2;
				mm.block_size = 16 * 1024;
				mm.nruns = 100000;
				SrmPlanMerges(&mm, &plan);
				if (cap > 2)
					CHECK(plan.passes <= prev.passes,
						  "budget %zu, %s: max_merge_order %d takes %d passes, %d took %d",
						  mm.budget, dsm ? "DSM" : "SRM", cap, plan.passes, cap / 2,
						  prev.passes);
				prev = plan;
			}
			srmsort_max_merge_order = 1024;
		}

	/* the least work_mem: a merge of two, past the budget, and it says so */
	{
		SrmMergeMem mm = {.limits = unit_limits()};
		SrmMergePlan plan;
		int			mb;

		mm.budget = 64 * KB;
		mm.ndisks = SrmPlanDisks(unit_limits(), mm.budget, false, &mb);
		mm.block_size = mb;
		mm.nruns = 1000;
		SrmPlanMerges(&mm, &plan);
		CHECK(plan.final_order >= 2 && plan.passes == ref_passes(1000, plan.final_order, plan.inter_order),
			  "64kB: orders %d/%d, %d passes", plan.final_order, plan.inter_order,
			  plan.passes);
		/* the largest: one pass for a thousand runs over every disk */
		mm.budget = (Size) MAX_KILOBYTES * 1024;
		mm.ndisks = SrmPlanDisks(unit_limits(), mm.budget, false, &mb);
		mm.block_size = SRM_MAX_BLOCK_KB * 1024;
		SrmPlanMerges(&mm, &plan);
		CHECK(!plan.tight && plan.passes == 1 && plan.final_order == srmsort_max_merge_order,
			  "%zu bytes: final order %d, %d passes for 1000 runs", mm.budget,
			  plan.final_order, plan.passes);
	}
}

static void
unit_mergeplan(void)
{
	unit_plan_disks();
	unit_block_size();
	unit_participants();
	unit_plan_merges();
}

/*
 * srmsort_unit_mergeplan
 *		SQL: the merge planner's failed checks.
 */
Datum
srmsort_unit_mergeplan(PG_FUNCTION_ARGS)
{
	return unit_srf(fcinfo, unit_mergeplan, 100000);
}


/* ------------------------------------------------------------------------
 * The record format
 * ------------------------------------------------------------------------
 */

/* a record format under test: its tuple descriptor, keys and format */
typedef struct RecCase
{
	const char *name;
	TupleDesc	desc;
	SrmKeys    *keys;
	SrmRecFormat fmt;
	int			keyatt;			/* 0-based */
} RecCase;

/*
 * rec_desc
 *		A tuple descriptor of n columns of types[i % ntypes]; storage 'p'
 *		(plain: 4-byte varlena headers however short) if plain.
 */
static TupleDesc
rec_desc(int n, const Oid *types, int ntypes, bool plain)
{
	TupleDesc	desc = CreateTemplateTupleDesc(n);
	int			i;

	for (i = 0; i < n; i++)
	{
		TupleDescInitEntry(desc, (AttrNumber) (i + 1), NULL, types[i % ntypes], -1, 0);
		if (plain)
		{
			TupleDescAttr(desc, i)->attstorage = TYPSTORAGE_PLAIN;
#if PG_VERSION_NUM >= 180000
			populate_compact_attribute(desc, i);
#endif
		}
	}
	SrmTupleDescFinalize(desc);
	return desc;
}

/* the record format of a sort on column keyatt (0-based) of desc */
static void
rec_case(RecCase *c, const char *name, TupleDesc desc, int keyatt, bool descending,
		 bool nulls_first, Oid coll)
{
	Oid			typid = TupleDescAttr(desc, keyatt)->atttypid;
	TypeCacheEntry *tc = lookup_type_cache(typid, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	AttrNumber	attno = keyatt + 1;
	Oid			op = descending ? tc->gt_opr : tc->lt_opr;

	c->name = name;
	c->desc = desc;
	c->keyatt = keyatt;
	c->keys = SrmKeysMakeHeap(desc, 1, &attno, &op, &coll, &nulls_first);
	SrmRecFormatInit(&c->fmt, c->keys);
}

static MinimalTuple
form_minimal(TupleDesc desc, Datum *values, bool *isnull)
{
#if PG_VERSION_NUM >= 180000
	return heap_form_minimal_tuple(desc, values, isnull, 0);
#else
	return heap_form_minimal_tuple(desc, values, isnull);
#endif
}

/*
 * rec_roundtrip
 *		Encode the tuple of values/isnull (formed with form_desc, NULL:
 *		the case's) and read it back: same bytes, same key, the key stored
 *		as expect_key says (-1: either).
 */
static void
rec_roundtrip(RecCase *c, TupleDesc form_desc, Datum *values, bool *isnull,
			  int expect_key, const char *what)
{
	SrmRecFormat *fmt = &c->fmt;
	MinimalTuple mt = form_minimal(form_desc ? form_desc : c->desc, values, isnull);
	uint32		len = mt->t_len;
	uint64		ekey = 0;
	uint8		erank = 0;
	Size		size,
				sz;
	char	   *buf,
			   *rec,
			   *copy;
	uint32		paylen;
	bool		haskey;
	const char *body;
	int			off;
	bool		keynull;

	keynull = (form_desc && form_desc->natts <= c->keyatt) || isnull[c->keyatt];
	if (c->keys->norm != SRM_NORM_NONE)
	{
		SrmTuple	t = {0};

		SrmKeysNormalize(c->keys, keynull ? (Datum) 0 : values[c->keyatt], keynull,
						 &ekey, &erank);
		t.tuple = mt;
		SrmKeysSetDatum1(c->keys, &t, false);
		CHECK((uint64) t.datum1 == ekey && t.nrank == erank,
			  "%s %s: the tuple's key %016llx/%d, the value's %016llx/%d", c->name,
			  what, (unsigned long long) t.datum1, t.nrank,
			  (unsigned long long) ekey, erank);
	}

	/* the size alone: nothing written when the room is too small */
	size = SrmRecEncode(fmt, NULL, 0, mt, len, ekey, erank);
	buf = palloc(size + 16);
	for (off = 1; off <= 3; off += 2)
	{
		memset(buf, 0xA5, size + 16);
		sz = SrmRecEncode(fmt, buf + off, size - 1, mt, len, ekey, erank);
		CHECK(sz == size && (uint8) buf[off] == 0xA5,
			  "%s %s: with %zu bytes of room: %zu, wrote %s", c->name, what,
			  size - 1, sz, (uint8) buf[off] == 0xA5 ? "nothing" : "anyway");
		sz = SrmRecEncode(fmt, buf + off, size, mt, len, ekey, erank);
		rec = buf + off;
		CHECK(sz == size && (uint8) rec[size] == 0xA5 && (uint8) buf[off - 1] == 0xA5,
			  "%s %s: record of %zu bytes, then %zu, or written past", c->name, what,
			  size, sz);
		CHECK(SrmRecSize(rec) == size, "%s %s: SrmRecSize %zu of a %zu-byte record",
			  c->name, what, SrmRecSize(rec), size);
		body = SrmRecHeader(rec, &paylen, &haskey);
		CHECK((Size) (body - rec) == SrmRecHeaderSize(paylen) &&
			  (Size) (body - rec) == (paylen < 0x40 ? 1 : paylen < 0x2000 ? 2 : 5),
			  "%s %s: a %ld-byte length word for %u bytes", c->name, what,
			  (long) (body - rec), paylen);
		CHECK(expect_key < 0 || haskey == (expect_key == 1),
			  "%s %s: key %s, expected %s", c->name, what,
			  haskey ? "stored" : "not stored", expect_key ? "stored" : "not stored");
		CHECK(fmt->normalized || !haskey, "%s %s: a key stored without normalization",
			  c->name, what);
		if (fmt->normalized)
		{
			uint64		key = ~ekey;
			uint8		nrank = 99;

			sz = SrmRecKey(fmt, rec, &key, &nrank);
			CHECK(sz == size && key == ekey && nrank == erank,
				  "%s %s: SrmRecKey %016llx/%d (%zu bytes), expected %016llx/%d (%zu)",
				  c->name, what, (unsigned long long) key, nrank, sz,
				  (unsigned long long) ekey, erank, size);
			key = ~ekey;
			nrank = 99;
			sz = SrmRecReadKey(fmt, rec, &key, &nrank);
			CHECK(sz == size && key == ekey && nrank == erank,
				  "%s %s: SrmRecReadKey %016llx/%d (%zu bytes), expected %016llx/%d (%zu)",
				  c->name, what, (unsigned long long) key, nrank, sz,
				  (unsigned long long) ekey, erank, size);
		}
		CHECK(SrmRecTupleLen(fmt, rec) == len, "%s %s: rebuilds %zu bytes of %u",
			  c->name, what, SrmRecTupleLen(fmt, rec), len);
		copy = palloc(len + 8);
		memset(copy, 0x5A, len + 8);
		SrmRecMaterialize(fmt, rec, copy);
		CHECK(memcmp(copy, mt, len) == 0 && (uint8) copy[len] == 0x5A,
			  "%s %s: the rebuilt tuple differs", c->name, what);
		pfree(copy);
	}
	/* the inline common case writes the same record */
	{
		char	   *plain = palloc(size + 1);

		sz = SrmRecEncodePlain(fmt, plain, size, mt, len);
		CHECK(sz == 0 || (sz == size && memcmp(plain, buf + 3, size) == 0),
			  "%s %s: SrmRecEncodePlain wrote %zu bytes, SrmRecEncode %zu", c->name,
			  what, sz, size);
		pfree(plain);
	}
	pfree(buf);
	pfree(mt);
}

/* the text (or bytea) of len bytes, from seed */
static Datum
rec_bytes(Size len, int seed)
{
	struct varlena *v = palloc(VARHDRSZ + len);
	Size		i;

	SET_VARSIZE(v, VARHDRSZ + len);
	for (i = 0; i < len; i++)
		VARDATA(v)[i] = (char) ('a' + (i * 7 + seed) % 26);
	return PointerGetDatum(v);
}

/*
 * unit_rec_scalars
 *		One-column sorts of by-value and by-reference types, ASC and DESC,
 *		NULLS FIRST and LAST: the key derived from the column, and ordered.
 */
static void
unit_rec_scalars(void)
{
	static const int64 ints[] = {PG_INT64_MIN, PG_INT32_MIN - (int64) 1, PG_INT16_MIN,
	-1, 0, 1, PG_INT16_MAX, PG_INT32_MAX, PG_INT64_MAX};
	static const Oid int_types[] = {INT2OID, INT4OID, INT8OID, DATEOID, TIMESTAMPOID, OIDOID};
	int			t,
				i,
				order;
	char		what[64];

	for (order = 0; order < 4; order++)
	{
		bool		descending = order & 1;
		bool		nulls_first = order & 2;

		for (t = 0; t < lengthof(int_types); t++)
		{
			Oid			typid = int_types[t];
			RecCase		c;
			uint64		prev = 0;
			bool		have_prev = false;

			rec_case(&c, format_type_be(typid), rec_desc(1, &typid, 1, false), 0,
					 descending, nulls_first, InvalidOid);
			CHECK(c.fmt.derive && c.fmt.normalized,
				  "%s: a key not derived from the column", c.name);
			for (i = 0; i < lengthof(ints); i++)
			{
				Datum		v;
				bool		n = false;
				uint64		key;
				uint8		nrank;
				int64		x = ints[i];

				if (typid == INT2OID && (x < PG_INT16_MIN || x > PG_INT16_MAX))
					continue;
				if ((typid == INT4OID || typid == DATEOID) && (x < PG_INT32_MIN || x > PG_INT32_MAX))
					continue;
				if (typid == OIDOID && (x < 0 || x > PG_UINT32_MAX))
					continue;
				v = typid == INT2OID ? Int16GetDatum((int16) x) :
					(typid == INT4OID || typid == DATEOID) ? Int32GetDatum((int32) x) :
					typid == OIDOID ? ObjectIdGetDatum((Oid) x) : Int64GetDatum(x);
				snprintf(what, sizeof(what), "%s %lld", descending ? "DESC" : "ASC",
						 (long long) x);
				rec_roundtrip(&c, NULL, &v, &n, 0, what);
				SrmKeysNormalize(c.keys, v, false, &key, &nrank);
				if (typid != OIDOID)
				{
					uint64		u = (uint64) x ^ UINT64CONST(0x8000000000000000);

					CHECK(key == (descending ? ~u : u),
						  "%s %s: key %016llx, expected the sign flip%s", c.name, what,
						  (unsigned long long) key, descending ? " folded" : "");
				}
				CHECK(!have_prev || (descending ? key < prev : key > prev),
					  "%s %s: key %016llx out of order after %016llx", c.name, what,
					  (unsigned long long) key, (unsigned long long) prev);
				prev = key;
				have_prev = true;
			}
			{
				Datum		v = 0;
				bool		n = true;

				rec_roundtrip(&c, NULL, &v, &n, 0, nulls_first ? "NULL first" : "NULL last");
			}
		}

		/* floats: -inf < -1 < -0 = 0 < 1 < inf < NaN; bool; uuid */
		{
			static const double fl[] = {-INFINITY, -1e30, -1, -0.0, 0.0, 1e-30, 1, INFINITY, NAN};
			Oid			ftypes[] = {FLOAT4OID, FLOAT8OID};

			for (t = 0; t < 2; t++)
			{
				RecCase		c;
				uint64		prev = 0;

				rec_case(&c, format_type_be(ftypes[t]), rec_desc(1, &ftypes[t], 1, false), 0,
						 descending, nulls_first, InvalidOid);
				for (i = 0; i < lengthof(fl); i++)
				{
					Datum		v = t == 0 ? Float4GetDatum((float4) fl[i]) : Float8GetDatum(fl[i]);
					bool		n = false;
					uint64		key;
					uint8		nrank;

					snprintf(what, sizeof(what), "%s %g", descending ? "DESC" : "ASC", fl[i]);
					rec_roundtrip(&c, NULL, &v, &n, 0, what);
					SrmKeysNormalize(c.keys, v, false, &key, &nrank);
					if (i > 0)
						CHECK(i == 4 ? key == prev : (descending ? key < prev : key > prev),
							  "%s %s: key %016llx, before it %016llx", c.name, what,
							  (unsigned long long) key, (unsigned long long) prev);
					prev = key;
				}
			}
		}
		{
			Oid			typid = BOOLOID;
			RecCase		c;
			Datum		v;
			bool		n = false;

			rec_case(&c, "bool", rec_desc(1, &typid, 1, false), 0, descending,
					 nulls_first, InvalidOid);
			v = BoolGetDatum(false);
			rec_roundtrip(&c, NULL, &v, &n, -1, "false");
			v = BoolGetDatum(true);
			rec_roundtrip(&c, NULL, &v, &n, -1, "true");
		}
		{
			Oid			types[] = {INT2OID, UUIDOID};
			RecCase		c;
			Datum		v[2];
			bool		n[2] = {false, false};
			pg_uuid_t	u;
			int			j;

			/* uuid: by reference, fixed length, after an int2 (aligned 'c') */
			rec_case(&c, "(int2, uuid)", rec_desc(2, types, 2, false), 1, descending,
					 nulls_first, InvalidOid);
			CHECK(c.keys->norm_uuid && c.fmt.derive, "uuid: not derived");
			for (j = 0; j < 3; j++)
			{
				for (i = 0; i < UUID_LEN; i++)
					u.data[i] = (unsigned char) (j == 0 ? 0 : j == 1 ? 0xFF : i * 17);
				v[0] = Int16GetDatum(j);
				v[1] = UUIDPGetDatum(&u);
				rec_roundtrip(&c, NULL, v, n, 0, "uuid");
			}
		}
	}
}

/*
 * unit_rec_varlena
 *		Text and bytea keys: every length around the length word's classes
 *		and the short-header limit, 4-byte headers (plain storage) with and
 *		without pad bytes before them, long values, NULLs, DESC.
 */
static void
unit_rec_varlena(void)
{
	static const Size lens[] = {0, 1, 7, 8, 9, 57, 58, 59, 60, 120, 125, 126, 127, 128,
	8180, 8181, 8182, 8183, 8184, 8190, 65535, 1024 * 1024, 8 * 1024 * 1024};
	int			shape,
				order,
				i;
	char		what[64];

	for (shape = 0; shape < 6; shape++)
		for (order = 0; order < 2; order++)
		{
			/* text; bytea; (bool, text); the same plain; text plain; (int4, text) */
			Oid			text = TEXTOID;
			Oid			bytea = BYTEAOID;
			Oid			bt[] = {BOOLOID, TEXTOID};
			Oid			it[] = {INT4OID, TEXTOID};
			RecCase		c;
			TupleDesc	desc;
			int			keyatt = (shape == 2 || shape == 3 || shape == 5) ? 1 : 0;
			Datum		v[2];
			bool		n[2] = {false, false};
			static const char *names[] = {"text", "bytea", "(bool, text)",
			"(bool, text plain)", "text plain", "(int4, text)"};

			desc = shape == 0 ? rec_desc(1, &text, 1, false) :
				shape == 1 ? rec_desc(1, &bytea, 1, false) :
				shape == 2 ? rec_desc(2, bt, 2, false) :
				shape == 3 ? rec_desc(2, bt, 2, true) :
				shape == 4 ? rec_desc(1, &text, 1, true) :
				rec_desc(2, it, 2, false);
			rec_case(&c, names[shape], desc, keyatt, order == 1, order == 1,
					 C_COLLATION_OID);
			CHECK(c.keys->norm == SRM_NORM_BYTES && c.fmt.derive,
				  "%s: not a derived bytewise key (norm %d)", c.name, c.keys->norm);
			v[0] = BoolGetDatum(true);
			if (shape == 5)
				v[0] = Int32GetDatum(-7);
			for (i = 0; i < lengthof(lens); i++)
			{
				v[keyatt] = rec_bytes(lens[i], i);
				snprintf(what, sizeof(what), "%s length %zu", order ? "DESC" : "ASC",
						 lens[i]);
				rec_roundtrip(&c, NULL, v, n, 0, what);
				pfree(DatumGetPointer(v[keyatt]));
			}
			n[keyatt] = true;
			rec_roundtrip(&c, NULL, v, n, 0, "NULL");
			if (keyatt == 1)
			{
				/* a NULL before the key moves it: stored */
				n[0] = true;
				n[1] = false;
				v[1] = rec_bytes(10, 3);
				rec_roundtrip(&c, NULL, v, n, 1, "after a NULL");
			}
		}

	/* a varlena before the key: the key is stored */
	{
		Oid			ti[] = {TEXTOID, INT8OID};
		RecCase		c;
		Datum		v[2];
		bool		n[2] = {false, false};

		rec_case(&c, "(text, int8)", rec_desc(2, ti, 2, false), 1, false, false,
				 InvalidOid);
		CHECK(!c.fmt.derive, "(text, int8): derives a key after a varlena");
		v[0] = rec_bytes(3, 1);
		v[1] = Int64GetDatum(42);
		rec_roundtrip(&c, NULL, v, n, 1, "42");
		n[1] = true;
		rec_roundtrip(&c, NULL, v, n, 1, "NULL");
	}
	/* abbreviated (bpchar, "C"): stored, NULL too; no normalization: none */
	{
		Oid			bp = BPCHAROID;
		Oid			iv = INTERVALOID;
		RecCase		c;
		Datum		v;
		bool		n = false;

		rec_case(&c, "bpchar", rec_desc(1, &bp, 1, false), 0, false, false,
				 C_COLLATION_OID);
		if (c.keys->norm == SRM_NORM_ABBREV)
		{
			v = rec_bytes(20, 0);
			rec_roundtrip(&c, NULL, &v, &n, 1, "abbreviated");
			n = true;
			rec_roundtrip(&c, NULL, &v, &n, 1, "abbreviated NULL");
		}
		rec_case(&c, "interval", rec_desc(1, &iv, 1, false), 0, false, false,
				 InvalidOid);
		CHECK(!c.fmt.normalized, "interval: normalized");
		{
			Interval	itv = {0};

			itv.time = 12345;
			itv.month = 3;
			v = IntervalPGetDatum(&itv);
			n = false;
			rec_roundtrip(&c, NULL, &v, &n, 0, "no key");
		}
	}
}

/*
 * unit_rec_columns
 *		Wide tuples: the key after up to 1599 fixed-length columns of mixed
 *		alignment, with and without NULLs before it; a tuple that lacks the
 *		key column (added later): stored.
 */
static void
unit_rec_columns(void)
{
	static const Oid mixed[] = {INT2OID, INT8OID, BOOLOID, INT4OID, FLOAT8OID, CHAROID};
	static const int widths[] = {2, 7, 100, 1600};
	int			w,
				i;

	for (w = 0; w < lengthof(widths); w++)
	{
		int			natts = widths[w];
		Oid		   *types = palloc(sizeof(Oid) * natts);
		Datum	   *v = palloc0(sizeof(Datum) * natts);
		bool	   *n = palloc0(sizeof(bool) * natts);
		RecCase		c;
		char		name[64];

		for (i = 0; i < natts - 1; i++)
			types[i] = mixed[i % lengthof(mixed)];
		types[natts - 1] = INT8OID;
		snprintf(name, sizeof(name), "%d columns", natts);
		rec_case(&c, pstrdup(name), rec_desc(natts, types, natts, false), natts - 1,
				 w % 2 == 1, w >= 2, InvalidOid);
		CHECK(c.fmt.derive && c.fmt.fast_int, "%s: key not derived", c.name);
		for (i = 0; i < natts; i++)
			v[i] = types[i] == FLOAT8OID ? Float8GetDatum(i * 0.5) :
				types[i] == BOOLOID ? BoolGetDatum(i & 1) :
				types[i] == CHAROID ? CharGetDatum('a' + i % 26) :
				types[i] == INT2OID ? Int16GetDatum(i) :
				types[i] == INT4OID ? Int32GetDatum(-i) : Int64GetDatum((int64) i << 40);
		rec_roundtrip(&c, NULL, v, n, 0, "no NULLs");
		n[natts - 1] = true;
		rec_roundtrip(&c, NULL, v, n, 0, "key NULL");
		n[natts - 1] = false;
		if (natts > 1)
		{
			n[(natts - 1) / 2] = true;
			rec_roundtrip(&c, NULL, v, n, 1, "a NULL before the key");
			n[0] = true;
			n[natts - 1] = true;
			rec_roundtrip(&c, NULL, v, n, 0, "NULLs and the key NULL");
			memset(n, 0, sizeof(bool) * natts);
			/* a tuple of a descriptor without the key column */
			{
				TupleDesc	shorter = rec_desc(natts - 1, types, natts - 1, false);

				rec_roundtrip(&c, shorter, v, n, 1, "key column missing");
			}
		}
	}
}

static void
unit_record(void)
{
	unit_rec_scalars();
	unit_rec_varlena();
	unit_rec_columns();
}

/*
 * srmsort_unit_record
 *		SQL: the record format's failed checks.
 */
Datum
srmsort_unit_record(PG_FUNCTION_ARGS)
{
	return unit_srf(fcinfo, unit_record, 2000);
}


/* ------------------------------------------------------------------------
 * The radix sort
 * ------------------------------------------------------------------------
 */

/* (nrank, datum1) order: what SrmRadixSort promises, nothing more */
static int
cmp_rank_key(const void *a, const void *b)
{
	const SrmTuple *x = a;
	const SrmTuple *y = b;

	if (x->nrank != y->nrank)
		return x->nrank < y->nrank ? -1 : 1;
	if (x->datum1 != y->datum1)
		return (uint64) x->datum1 < (uint64) y->datum1 ? -1 : 1;
	return 0;
}

static int
cmp_norm(const void *a, const void *b, void *arg)
{
	return SrmCompareNorm(a, b, arg);
}

#define NDISTS 12

static const char *const dist_names[NDISTS] = {
	"random", "all equal", "sorted", "reverse", "few distinct", "narrow range",
	"low bit", "organ pipe", "NULLs mixed", "all NULL", "extremes", "one differs"
};

/* key i of n under distribution dist; nrank set */
static uint64
dist_key(int dist, int64 i, int64 n, pg_prng_state *rng, uint8 *nrank)
{
	uint64		r = pg_prng_uint64(rng);

	*nrank = SRM_NRANK_VALUE;
	switch (dist)
	{
		case 0:
			return r;
		case 1:
			return UINT64CONST(0x0123456789ABCDEF);
		case 2:
			return (uint64) i * 977;
		case 3:
			return ~((uint64) i * 977);
		case 4:
			return (r % 4) << 62 | 5;
		case 5:
			return UINT64CONST(0xDEADBEEF00000000) | (r & 0xFFF);
		case 6:
			return UINT64CONST(0x8000000000000000) | (r & 1);
		case 7:
			return (uint64) (i < n / 2 ? i : n - i);
		case 8:
			if (r % 10 == 0)
			{
				*nrank = SRM_NRANK_FIRST;
				return 0;
			}
			if (r % 10 == 1)
			{
				*nrank = SRM_NRANK_LAST;
				return 0;
			}
			return r >> (r % 64);
		case 9:
			*nrank = (r & 1) ? SRM_NRANK_FIRST : SRM_NRANK_LAST;
			return 0;
		case 10:
			return (r & 1) ? (r & 0xFF) : ~(r & 0xFF);
		default:
			return i == n / 3 ? 1 : 0;
	}
}

/*
 * radix_vs_qsort
 *		SrmRadixSort against qsort on (nrank, datum1): the same sequence of
 *		keys, and a permutation of the input.
 */
static void
radix_vs_qsort(int dist, int64 n, pg_prng_state *rng)
{
	SrmTuple   *a = palloc(sizeof(SrmTuple) * Max(n, 1));
	SrmTuple   *b = palloc(sizeof(SrmTuple) * Max(n, 1));
	bool	   *seen = palloc0(sizeof(bool) * Max(n, 1));
	int64		i,
				bad = -1,
				dup = -1;

	for (i = 0; i < n; i++)
	{
		memset(&a[i], 0, sizeof(SrmTuple));
		a[i].tuple = (void *) (uintptr_t) (i + 1);
		a[i].datum1 = (Datum) dist_key(dist, i, n, rng, &a[i].nrank);
	}
	memcpy(b, a, sizeof(SrmTuple) * n);
	SrmRadixSort(a, n);
	qsort(b, n, sizeof(SrmTuple), cmp_rank_key);
	for (i = 0; i < n; i++)
	{
		uintptr_t	id = (uintptr_t) a[i].tuple;

		if (bad < 0 && cmp_rank_key(&a[i], &b[i]) != 0)
			bad = i;
		if (id < 1 || id > (uintptr_t) n || seen[id - 1])
		{
			if (dup < 0)
				dup = i;
		}
		else
			seen[id - 1] = true;
	}
	CHECK(bad < 0, "radix %s n=%lld: position %lld holds %d/%016llx, qsort %d/%016llx",
		  dist_names[dist], (long long) n, (long long) bad,
		  bad < 0 ? 0 : a[bad].nrank, bad < 0 ? 0ULL : (unsigned long long) a[bad].datum1,
		  bad < 0 ? 0 : b[bad].nrank, bad < 0 ? 0ULL : (unsigned long long) b[bad].datum1);
	CHECK(dup < 0, "radix %s n=%lld: not a permutation at %lld", dist_names[dist],
		  (long long) n, (long long) dup);
	pfree(a);
	pfree(b);
	pfree(seen);
}

/*
 * radix_ties
 *		A real sort: radix sort then SrmRadixFixTies against qsort of
 *		SrmCompareNorm, on MinimalTuples of desc whose values fill makes.
 */
static void
radix_ties(const char *name, SrmKeys *keys, TupleDesc desc, int64 n,
		   void (*fill) (Datum *v, bool *isnull, int64 i, pg_prng_state *rng),
		   pg_prng_state *rng)
{
	SrmTuple   *a = palloc0(sizeof(SrmTuple) * Max(n, 1));
	SrmTuple   *b = palloc0(sizeof(SrmTuple) * Max(n, 1));
	Datum		v[2];
	bool		isnull[2];
	int64		i,
				bad = -1,
				unsorted = -1;

	for (i = 0; i < n; i++)
	{
		fill(v, isnull, i, rng);
		a[i].tuple = form_minimal(desc, v, isnull);
		SrmKeysSetDatum1(keys, &a[i], false);
	}
	memcpy(b, a, sizeof(SrmTuple) * n);
	SrmRadixSort(a, n);
	if (SrmKeysNeedTies(keys))
		SrmRadixFixTies(a, n, keys);
	qsort_arg(b, n, sizeof(SrmTuple), cmp_norm, keys);
	for (i = 0; i < n; i++)
	{
		if (bad < 0 && SrmCompareNorm(&a[i], &b[i], keys) != 0)
			bad = i;
		if (unsorted < 0 && i > 0 && SrmCompareNorm(&a[i - 1], &a[i], keys) > 0)
			unsorted = i;
	}
	CHECK(bad < 0 && unsorted < 0,
		  "radix ties %s n=%lld: differs from qsort at %lld, out of order at %lld",
		  name, (long long) n, (long long) bad, (long long) unsorted);
	for (i = 0; i < n; i++)
		pfree(a[i].tuple);
	pfree(a);
	pfree(b);
}

/* (int8 a, int8 b): a from a few values, b anything, some NULLs */
static void
fill_ints(Datum *v, bool *isnull, int64 i, pg_prng_state *rng)
{
	uint64		r = pg_prng_uint64(rng);

	v[0] = Int64GetDatum((int64) (r % 5) - 2);
	v[1] = Int64GetDatum((int64) (r >> 8) % 1000);
	isnull[0] = (r >> 50) % 17 == 0;
	isnull[1] = (r >> 40) % 13 == 0;
}

/* text sharing 8-byte (and longer) prefixes, a few NULLs */
static void
fill_text(Datum *v, bool *isnull, int64 i, pg_prng_state *rng)
{
	uint64		r = pg_prng_uint64(rng);
	char		s[64];

	snprintf(s, sizeof(s), "%s%llu", (r & 1) ? "prefix__" : "prefix__longer__",
			 (unsigned long long) ((r >> 8) % 500));
	v[0] = CStringGetTextDatum(s);
	v[1] = Int64GetDatum(0);
	isnull[0] = (r >> 40) % 23 == 0;
	isnull[1] = false;
}

static void
unit_radix(void)
{
	static const int64 sizes[] = {0, 1, 2, 3, 10, 63, 64, 65, 127, 128, 1000, 8191,
	8192, 8193, 65535, 65536, 65537, 200000};
	pg_prng_state rng;
	int			d,
				s,
				order;

	pg_prng_seed(&rng, 37);
	for (d = 0; d < NDISTS; d++)
		for (s = 0; s < lengthof(sizes); s++)
			radix_vs_qsort(d, sizes[s], &rng);
	radix_vs_qsort(0, 1000000, &rng);
	radix_vs_qsort(8, 1000000, &rng);

	for (order = 0; order < 2; order++)
	{
		Oid			types[] = {INT8OID, INT8OID};
		Oid			ttypes[] = {TEXTOID, INT8OID};
		TupleDesc	desc = rec_desc(2, types, 2, false);
		TupleDesc	tdesc = rec_desc(2, ttypes, 2, false);
		TypeCacheEntry *tc = lookup_type_cache(INT8OID, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		TypeCacheEntry *tt = lookup_type_cache(TEXTOID, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		AttrNumber	att[] = {1, 2};
		Oid			ops[] = {order ? tc->gt_opr : tc->lt_opr, order ? tc->lt_opr : tc->gt_opr};
		Oid			tops[] = {order ? tt->gt_opr : tt->lt_opr, tc->lt_opr};
		Oid			colls[] = {InvalidOid, InvalidOid};
		Oid			tcolls[] = {C_COLLATION_OID, InvalidOid};
		bool		nf[] = {order == 1, order == 0};
		SrmKeys    *two = SrmKeysMakeHeap(desc, 2, att, ops, colls, nf);
		SrmKeys    *one = SrmKeysMakeHeap(desc, 1, att, ops, colls, nf);
		SrmKeys    *text = SrmKeysMakeHeap(tdesc, 1, att, tops, tcolls, nf);

		CHECK(two->norm == SRM_NORM_INT64 && SrmKeysNeedTies(two),
			  "(int8, int8) keys: norm %d, ties %d", two->norm, SrmKeysNeedTies(two));
		CHECK(one->norm == SRM_NORM_INT64 && !SrmKeysNeedTies(one),
			  "int8 key: norm %d, ties %d", one->norm, SrmKeysNeedTies(one));
		CHECK(text->norm == SRM_NORM_BYTES && SrmKeysNeedTies(text),
			  "text key: norm %d, ties %d", text->norm, SrmKeysNeedTies(text));
		for (s = 0; s < lengthof(sizes) && sizes[s] <= 65537; s++)
		{
			radix_ties(order ? "(int8 DESC, int8 ASC)" : "(int8 ASC, int8 DESC)",
					   two, desc, sizes[s], fill_ints, &rng);
			radix_ties(order ? "int8 DESC" : "int8", one, desc, sizes[s], fill_ints, &rng);
			radix_ties(order ? "text DESC" : "text", text, tdesc, sizes[s], fill_text, &rng);
		}
	}
}

/*
 * srmsort_unit_radix
 *		SQL: the radix sort's failed checks.
 */
Datum
srmsort_unit_radix(PG_FUNCTION_ARGS)
{
	return unit_srf(fcinfo, unit_radix, 250);
}
