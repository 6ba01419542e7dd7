/*-------------------------------------------------------------------------
 *
 * build.h
 *	  CREATE INDEX and REINDEX of btree indexes through srmsort.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/build.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_BUILD_H
#define SRM_BUILD_H

#include "access/genam.h"
#include "nodes/execnodes.h"
#include "portability/instr_time.h"

#include "engine/sortstats.h"

/* ambuild for btree through srmsort (falls back to btbuild) */
extern IndexBuildResult *SrmBtBuild(Relation heap, Relation index,
									IndexInfo *indexInfo);

/*
 * Should srmsort build this index: srmsort.enabled and create_index, not a
 * catalog's or TOAST table's, and an estimated input (*est_rows rows of
 * *tuple_bytes) of at least srmsort.min_input_size.
 */
extern bool SrmBuildWorthIt(Relation heap, Relation index, IndexInfo *ii,
							double *est_rows, double *tuple_bytes);

/* The build's trace line (more: an extra clause of the detail, or NULL). */
extern void SrmBuildTrace(Relation index, double tuples, BlockNumber npages,
						  double seconds, const SrmSortStats *s,
						  const char *more);

#endif							/* SRM_BUILD_H */
