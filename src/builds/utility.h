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

/* Install the hooks that arm index builds and CLUSTER (from _PG_init). */
extern void SrmUtilityInit(void);

#endif							/* SRM_UTILITY_H */
