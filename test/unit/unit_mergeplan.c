/*-------------------------------------------------------------------------
 *
 * unit_mergeplan.c
 *	  srmsort_unit_mergeplan(): unit tests of the merge planner
 *	  (src/merge/mergeplan.c).
 *
 * The planner's tables -- disks, block size, merge orders, passes and
 * buffers as functions of budget, disks, block size and runs -- from the
 * minimum work_mem to the largest, against the invariants mergeplan.c and
 * docs/design.md §6 promise: the plan fits the budget, orders within
 * srmsort.max_merge_order and as large as the budget allows (so the passes
 * are minimal), R the smallest order as good, the intermediate merges a
 * simulation runs end at exactly the final order within the planned
 * passes, and monotonicity where it must hold.  The planner is pure
 * arithmetic, so its tables are checked here, across far more cases than
 * a sort could reach.
 *
 * IDENTIFICATION
 *	  test/unit/unit_mergeplan.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "base/settings.h"
#include "io/disks.h"
#include "merge/mergeplan.h"
#include "runs/tape.h"
#include "unit.h"

PG_FUNCTION_INFO_V1(srmsort_unit_mergeplan);

/* The planner's limits from the two settings (SrmSorterPlanLimits). */
static SrmPlanLimits
unit_limits(void)
{
	return (SrmPlanLimits) {SRM_MAX_DISKS, srmsort_block_size * 1024,
		srmsort_max_merge_order, sizeof(SrmBlockRef) + sizeof(SrmForecastEntry)};
}

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
 *		SrmPlanParticipantDisks: equal disjoint ranges covering every disk
 *		when the disks divide evenly, else every disk for each.
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
				if (ndisks % n != 0)
				{
					CHECK(first == 0 && count == ndisks,
						  "SrmPlanParticipantDisks(%d disks, %d of %d): [%d, +%d), not all",
						  ndisks, q, n, first, count);
					continue;
				}
				CHECK(count == ndisks / n,
					  "SrmPlanParticipantDisks(%d disks, %d of %d): %d disks, not %d",
					  ndisks, q, n, count, ndisks / n);
				for (d = first; d < first + count && d < ndisks && d >= 0; d++)
				{
					CHECK(owner[d] == -1,
						  "SrmPlanParticipantDisks(%d disks, %d parts): disk %d to %d and %d",
						  ndisks, n, d, owner[d], q);
					owner[d] = q;
				}
			}
			if (ndisks % n == 0)
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
