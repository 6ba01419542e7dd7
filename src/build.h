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
#include "portability/instr_time.h"
#include "storage/lockdefs.h"

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

/* build.c: is a trace line wanted?  If so, *seconds since start. */
extern bool SrmTraceSeconds(instr_time start, double *seconds);

/* utility.c: install the hooks that arm index builds and CLUSTER */
extern void SrmUtilityInit(void);

/*
 * utility.c: may SrmBtBuild build this index?  An ambuild swapped into a
 * relcache entry may outlive the statement that swapped it; for any index
 * not armed in the statement in progress (or on a table Citus manages)
 * SrmBtBuild calls btbuild.
 */
extern bool SrmBuildClaim(Oid indexOid);

/*
 * utility.c: relid's relcache entry (to RelationClose) if this backend
 * holds exactly lockmode on it, else NULL.
 */
extern Relation SrmOpenIfLockedByMe(Oid relid, LOCKMODE lockmode);

/*
 * citus.c: is this CREATE INDEX or REINDEX on a table Citus manages (when
 * the citus extension exists)?  Such statements are left to Citus.
 */
extern bool SrmCitusOwnsStatement(Node *parsetree);

/* citus.c: is relid (a table) one Citus manages?  False for InvalidOid. */
extern bool SrmCitusOwnsRelation(Oid relid);

#endif							/* SRM_BUILD_H */
