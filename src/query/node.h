/*-------------------------------------------------------------------------
 *
 * node.h
 *	  The SRMSort custom scan: its methods (which the planner hook puts in
 *	  the plans it makes), its modes, and its registration.
 *
 * IDENTIFICATION
 *	  src/query/node.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_NODE_H
#define SRM_NODE_H

#include "nodes/extensible.h"

extern PGDLLIMPORT CustomScanMethods SrmSortScanMethods;

/*
 * What an SRMSort does (the last item of custom_private, absent for a
 * plain sort): a parallel sort (psort.c) is an SRMSort merging over a
 * Gather over a parallel-aware SRMSort forming the participants' runs.
 */
#define SRM_MODE_PLAIN		0
#define SRM_MODE_MERGE		1	/* merges the runs of the SRMSort below */
#define SRM_MODE_RUNS		2	/* forms runs in every participant */

extern void SrmNodeInit(void);

#endif							/* SRM_NODE_H */
