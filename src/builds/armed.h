/*-------------------------------------------------------------------------
 *
 * armed.h
 *	  The armed statement: what the utility statement in progress lets
 *	  srmsort take, and the relations it has met so far.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/builds/armed.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_ARMED_H
#define SRM_ARMED_H

#include "storage/lockdefs.h"
#include "utils/relcache.h"

/* what the statement in progress lets srmsort take (bits) */
#define SRM_ARM_CREATE		(1 << 0)	/* indexes it creates and builds */
#define SRM_ARM_REINDEX		(1 << 1)	/* indexes reindex_index rebuilds */
#define SRM_ARM_CONCURRENT	(1 << 2)	/* CONCURRENTLY builds */
#define SRM_ARM_CLUSTER		(1 << 3)	/* CLUSTER's heap sort */

/* the sets of relations the armed statement keeps */
typedef enum SrmArmedSet
{
	SRM_ARMED_CREATED,			/* created, swapped at index_create's
								 * relcache callback */
	SRM_ARMED_SWAPPED,			/* indexes whose ambuild is ours */
	SRM_ARMED_STARTED,			/* builds begun: never swapped again */
	SRM_ARMED_NSETS
} SrmArmedSet;

/* Arm the statement now beginning; SrmDisarm when it ends, however. */
extern void SrmArm(int kinds);
extern void SrmDisarm(void);

/* The SRM_ARM_* bits of the statement in progress (0: not armed). */
extern int	SrmArmedKinds(void);

extern void SrmArmedAdd(SrmArmedSet set, Oid relid);
extern void SrmArmedRemove(SrmArmedSet set, Oid relid);
extern bool SrmArmedHas(SrmArmedSet set, Oid relid);

/* Hold an index's relcache entry open until SrmDisarm. */
extern void SrmArmedPin(Relation index);

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

#endif							/* SRM_ARMED_H */
