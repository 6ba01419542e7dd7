/*-------------------------------------------------------------------------
 *
 * build.h
 *	  CREATE INDEX and REINDEX of btree indexes through srmsort.
 *
 * IDENTIFICATION
 *	  src/build.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_BUILD_H
#define SRM_BUILD_H

#include "access/genam.h"
#include "nodes/execnodes.h"

/* build.c: ambuild for btree through srmsort (falls back to btbuild) */
extern IndexBuildResult *SrmBtBuild(Relation heap, Relation index,
									IndexInfo *indexInfo);

/*
 * build.c: the indexes SrmBtBuild may build (a backend-local set).  An
 * ambuild swapped into a relcache entry may outlive the command that
 * swapped it; for any index not armed it simply calls btbuild.
 */
extern void SrmBuildArm(Oid indexOid);
extern void SrmBuildDisarmAll(void);

/* utility.c: install the ProcessUtility hook */
extern void SrmUtilityInit(void);

#endif							/* SRM_BUILD_H */
