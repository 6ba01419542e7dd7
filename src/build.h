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

/* utility.c: install the hooks that arm CREATE INDEX and REINDEX */
extern void SrmUtilityInit(void);

/*
 * utility.c: may SrmBtBuild build this index?  An ambuild swapped into a
 * relcache entry may outlive the statement that swapped it; for any index
 * not armed in the statement in progress SrmBtBuild calls btbuild.
 */
extern bool SrmBuildClaim(Oid indexOid);

/*
 * citus.c: is this CREATE INDEX or REINDEX on a table Citus manages (when
 * the citus extension exists)?  Such statements are left to Citus.
 */
extern bool SrmCitusOwnsStatement(Node *parsetree);

#endif							/* SRM_BUILD_H */
