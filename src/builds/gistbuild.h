/*-------------------------------------------------------------------------
 *
 * gistbuild.h
 *	  Sorted GiST index builds through srmsort.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/gistbuild.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_GISTBUILD_H
#define SRM_GISTBUILD_H

#include "access/genam.h"
#include "nodes/execnodes.h"

/* ambuild for GiST through srmsort (falls back to gistbuild) */
extern IndexBuildResult *SrmGistBuild(Relation heap, Relation index,
									  IndexInfo *indexInfo);

#endif							/* SRM_GISTBUILD_H */
