/*-------------------------------------------------------------------------
 *
 * utility.h
 *	  Arms the utility statements whose btree builds (and CLUSTER's heap
 *	  sort) srmsort takes.
 *
 * IDENTIFICATION
 *	  src/builds/utility.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_UTILITY_H
#define SRM_UTILITY_H

#include "storage/lockdefs.h"
#include "utils/relcache.h"

/* Install the hooks that arm index builds and CLUSTER (from _PG_init). */
extern void SrmUtilityInit(void);

/*
 * May SrmBtBuild build this index?  An ambuild swapped into a relcache
 * entry may outlive the statement that swapped it; for any index not
 * armed in the statement in progress (or on a table Citus manages)
 * SrmBtBuild calls btbuild.
 */
extern bool SrmBuildClaim(Oid indexOid);

/* Does the statement in progress let srmsort sort CLUSTER's table? */
extern bool SrmClusterArmed(void);

/*
 * relid's relcache entry (to RelationClose) if this backend holds exactly
 * lockmode on it, else NULL.
 */
extern Relation SrmOpenIfLockedByMe(Oid relid, LOCKMODE lockmode);

#endif							/* SRM_UTILITY_H */
