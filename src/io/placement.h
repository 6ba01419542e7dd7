/*-------------------------------------------------------------------------
 *
 * placement.h
 *	  Weighted striping: which disk holds block i of a run.
 *
 * IDENTIFICATION
 *	  src/io/placement.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_PLACEMENT_H
#define SRM_PLACEMENT_H

#include "utils/guc.h"

#include "io/workfile.h"

/*
 * The fastest disk of a stripe gets at most this many blocks of a period,
 * so that a period is at most this many times the disks (and a merge's
 * buffers at most this many times those of round robin).
 */
#define SRM_STRIPE_RESOLUTION	4
#define SRM_MAX_STRIPE			(SRM_MAX_DISKS * SRM_STRIPE_RESOLUTION)

/*
 * A stripe over n disks: a period of width blocks, block j of the period
 * on disk pattern[j], disk d holding share[d] of them.  Equal weights give
 * width = n and pattern[j] = j: round robin.
 */
typedef struct SrmStripe
{
	int			first;			/* the set's disks it is over: first .. */
	int			ndisks;			/* .. + ndisks - 1 (first: set by the tape) */
	int			width;
	uint8		share[SRM_MAX_DISKS];
	uint8		pattern[SRM_MAX_STRIPE];
} SrmStripe;

/*
 * Build the stripe for disks of relative weights weights[0..n), with a
 * period of at most maxwidth blocks (coarser shares when finer ones would
 * be longer; at least n).
 */
extern void SrmStripeBuild(SrmStripe *st, const double *weights, int n,
						   int maxwidth);

/* The disk (of the stripe's) that holds the block at position pos. */
static inline int
SrmStripeDisk(const SrmStripe *st, int64 pos)
{
	return st->pattern[pos % st->width];
}

/*
 * Fill set->weights (and set->weight_source) for the disks of set: from
 * srmsort.disk_weights, or, for "auto", from the disks' bandwidths learned
 * in shared memory, measuring those never measured first (a short
 * calibration, see diskspeed.c).
 */
extern void SrmDiskWeightsResolve(SrmDiskSet *set);

/* What set->weight_source says, for EXPLAIN and the log. */
extern const char *SrmWeightSourceName(int source);

/* GUC hooks of srmsort.disk_weights. */
extern bool SrmCheckDiskWeights(char **newval, void **extra, GucSource source);
extern void SrmAssignDiskWeights(const char *newval, void *extra);

#endif							/* SRM_PLACEMENT_H */
