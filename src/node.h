/*-------------------------------------------------------------------------
 *
 * node.h
 *	  The SRMSort custom scan: planner and executor entry points.
 *
 * IDENTIFICATION
 *	  src/node.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_NODE_H
#define SRM_NODE_H

#include "nodes/extensible.h"

extern PGDLLIMPORT CustomScanMethods SrmSortScanMethods;

extern void SrmPlanInit(void);
extern void SrmNodeInit(void);

#endif							/* SRM_NODE_H */
