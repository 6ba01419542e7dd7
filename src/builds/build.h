/*-------------------------------------------------------------------------
 *
 * build.h
 *	  CREATE INDEX and REINDEX of btree indexes through srmsort.
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

/* ambuild for btree through srmsort (falls back to btbuild) */
extern IndexBuildResult *SrmBtBuild(Relation heap, Relation index,
									IndexInfo *indexInfo);

#endif							/* SRM_BUILD_H */
