/*-------------------------------------------------------------------------
 *
 * plan.h
 *	  Planner hook: swap eligible Sort nodes for the SRMSort custom scan.
 *
 * IDENTIFICATION
 *	  src/query/plan.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_PLAN_H
#define SRM_PLAN_H

/* Install the planner hook (from _PG_init). */
extern void SrmPlannerInit(void);

#endif							/* SRM_PLAN_H */
