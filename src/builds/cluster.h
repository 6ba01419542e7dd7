/*-------------------------------------------------------------------------
 *
 * cluster.h
 *	  CLUSTER's heap sort through srmsort.
 *
 * IDENTIFICATION
 *	  src/builds/cluster.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_CLUSTER_H
#define SRM_CLUSTER_H

/*
 * From get_relation_info_hook, when PostgreSQL's CLUSTER asks the planner
 * whether to sort table relid: swap srmsort's copy-for-cluster into the
 * table's open relcache entry (until that one call).
 */
extern void SrmClusterArm(Oid relid);

/*
 * At the end of the armed statement: put back a swap still in place.
 * failed: the statement failed, and the table is still open in the
 * failed (sub)transaction; otherwise the entry is forgotten untouched.
 */
extern void SrmClusterDisarm(bool failed);

#endif							/* SRM_CLUSTER_H */
