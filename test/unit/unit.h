/*-------------------------------------------------------------------------
 *
 * unit.h
 *	  What the files of srmsort_unit share (defined in unit_common.c): the
 *	  record of one call's checks with CHECK and unit_fail, the
 *	  set-returning shell unit_srf every SQL function returns through, and
 *	  two tuple helpers both the record and the radix tests use.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  test/unit/unit.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_UNIT_H
#define SRM_UNIT_H

#include "access/htup.h"
#include "access/tupdesc.h"
#include "fmgr.h"
#include "nodes/pg_list.h"

/* the checks of one call: failures (in out_cxt) and counts */
typedef struct UnitRun
{
	MemoryContext out_cxt;
	List	   *lines;
	int64		nchecks;
	int64		nfailed;
} UnitRun;

extern UnitRun *unit;

extern void unit_fail(const char *fmt,...) pg_attribute_printf(1, 2);

#define CHECK(cond, ...) \
	do { \
		unit->nchecks++; \
		if (!(cond)) \
			unit_fail(__VA_ARGS__); \
	} while (0)

extern Datum unit_srf(FunctionCallInfo fcinfo, void (*tests) (void),
					  int64 min_checks);

/* tuples for the record and radix tests */
extern TupleDesc rec_desc(int n, const Oid *types, int ntypes, bool plain);
extern MinimalTuple form_minimal(TupleDesc desc, Datum *values, bool *isnull);

#endif							/* SRM_UNIT_H */
