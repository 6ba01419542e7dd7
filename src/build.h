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

#include "sorter.h"

/*
 * The state of a build's heap scan: live tuples into one sorter, and for
 * unique indexes recently dead ones into another (out of the uniqueness
 * check).  A parallel build has one per participant.
 */
typedef struct SrmBuildState
{
	SrmSorter  *live;			/* NULL when pipe streams the live tuples */
	struct SrmParallelBuild *pipe;	/* a parallel build's merge (pbuild.h) */
	SrmSorter  *dead;			/* unique indexes only */
	bool		havedead;
	double		indtuples;
} SrmBuildState;

/* build.c: the table AM's index build scan callback, into SrmBuildState */
extern void SrmBuildCallback(Relation index, ItemPointer tid, Datum *values,
							 bool *isnull, bool tupleIsAlive, void *state);

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
