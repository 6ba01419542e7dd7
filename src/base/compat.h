/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  The differences between the PostgreSQL versions srmsort builds for
 *	  (15, 16, 17, 18, 19), behind one name each.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/base/compat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_COMPAT_H
#define SRM_COMPAT_H

#include "access/htup_details.h"
#include "access/tableam.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_database.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "storage/bufpage.h"
#include "storage/lock.h"
#include "storage/smgr.h"
#include "utils/guc.h"
#include "utils/pg_locale.h"
#include "utils/syscache.h"
#ifdef USE_ICU
#include <unicode/ucol.h>
#endif
#if PG_VERSION_NUM >= 170000
#include "storage/procnumber.h"
#else
#include "storage/backendid.h"
#endif
/* 16: the varlena macros left postgres.h for varatt.h */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/* 18: a slot's copy_minimal_tuple takes the bytes to leave before it */
#if PG_VERSION_NUM >= 180000
#define SRM_COPY_MINIMAL_EXTRA_PARAM	, Size extra
#define SRM_COPY_MINIMAL_EXTRA_ARG		, extra
#else
#define SRM_COPY_MINIMAL_EXTRA_PARAM
#define SRM_COPY_MINIMAL_EXTRA_ARG
#endif

/* 16: a relation's storage is named by its locator, no longer its node */
#if PG_VERSION_NUM >= 160000
#define SRM_REL_LOCATOR(rel)	(&(rel)->rd_locator)
#else
#define SRM_REL_LOCATOR(rel)	(&(rel)->rd_node)
#endif

/* 17: gistSplit's result type lost its misspelling */
#if PG_VERSION_NUM >= 170000
#define SrmGistSplitLayout	SplitPageLayout
#else
#define SrmGistSplitLayout	SplitedPageLayout
#endif

/* 17 added "or a stronger lock" */
#if PG_VERSION_NUM >= 170000
#define SrmLockHeldByMe(tag, mode)	LockHeldByMe((tag), (mode), false)
#else
#define SrmLockHeldByMe(tag, mode)	LockHeldByMe((tag), (mode))
#endif

/* 16: a GUC check hook's "extra" is freed with guc_free, not free */
#if PG_VERSION_NUM >= 160000
#define SrmGucMalloc(size)	guc_malloc(LOG, (size))
#else
#define SrmGucMalloc(size)	malloc(size)
#endif

/* 18: the btree item limit no longer depends on the page */
#if PG_VERSION_NUM >= 180000
#define SrmBTMaxItemSize(page)		BTMaxItemSize
#else
#define SrmBTMaxItemSize(page)		BTMaxItemSize(page)
#endif

/* 19: the in-place checksum is the only one left, under the plain name */
#if PG_VERSION_NUM >= 190000
#define SrmPageSetChecksum(page, blkno)	PageSetChecksum((page), (blkno))
#else
#define SrmPageSetChecksum(page, blkno)	PageSetChecksumInplace((page), (blkno))
#endif

/* 19: a parallel table scan takes the caller's ScanOptions */
#if PG_VERSION_NUM >= 190000
#define SrmTableBeginScanParallel(rel, pscan) \
	table_beginscan_parallel((rel), (pscan), SO_NONE)
#else
#define SrmTableBeginScanParallel(rel, pscan) \
	table_beginscan_parallel((rel), (pscan))
#endif

/* 19: a table scan takes the caller's ScanOptions */
#if PG_VERSION_NUM >= 190000
#define SrmTableBeginScan(rel, snapshot, nkeys, key) \
	table_beginscan((rel), (snapshot), (nkeys), (key), SO_NONE)
#else
#define SrmTableBeginScan(rel, snapshot, nkeys, key) \
	table_beginscan((rel), (snapshot), (nkeys), (key))
#endif

/* 19: the planner (and its hook) also receive EXPLAIN's state, or NULL */
#if PG_VERSION_NUM >= 190000
#define SRM_PLANNER_EXTRA_PARAM		, ExplainState *es
#define SRM_PLANNER_EXTRA_ARG		, es
#else
#define SRM_PLANNER_EXTRA_PARAM
#define SRM_PLANNER_EXTRA_ARG
#endif

/*
 * 19: CLUSTER is REPACK's (RepackStmt); a table AM's copy for it takes
 * REPACK (CONCURRENTLY)'s snapshot (NULL otherwise), and its progress
 * parameters are named for REPACK.
 */
#if PG_VERSION_NUM >= 190000
#define SrmIsClusterStmt(node)		IsA((node), RepackStmt)
#define SRM_COPY_FOR_CLUSTER_SNAPSHOT_PARAM	Snapshot snapshot,
#define SRM_COPY_FOR_CLUSTER_SNAPSHOT_ARG	snapshot,
#define SRM_COPY_FOR_CLUSTER_CONCURRENT		(snapshot != NULL)
#define SRM_PROGRESS_CLUSTER_PHASE			PROGRESS_REPACK_PHASE
#define SRM_PROGRESS_CLUSTER_TUPLES_SCANNED	PROGRESS_REPACK_HEAP_TUPLES_SCANNED
#define SRM_PROGRESS_CLUSTER_TUPLES_WRITTEN	PROGRESS_REPACK_HEAP_TUPLES_INSERTED
#define SRM_PROGRESS_CLUSTER_TOTAL_BLKS		PROGRESS_REPACK_TOTAL_HEAP_BLKS
#define SRM_PROGRESS_CLUSTER_BLKS_SCANNED	PROGRESS_REPACK_HEAP_BLKS_SCANNED
#define SRM_PROGRESS_CLUSTER_PHASE_SEQ_SCAN	PROGRESS_REPACK_PHASE_SEQ_SCAN_HEAP
#define SRM_PROGRESS_CLUSTER_PHASE_SORT		PROGRESS_REPACK_PHASE_SORT_TUPLES
#define SRM_PROGRESS_CLUSTER_PHASE_WRITE	PROGRESS_REPACK_PHASE_WRITE_NEW_HEAP
#else
#define SrmIsClusterStmt(node)		IsA((node), ClusterStmt)
#define SRM_COPY_FOR_CLUSTER_SNAPSHOT_PARAM
#define SRM_COPY_FOR_CLUSTER_SNAPSHOT_ARG
#define SRM_COPY_FOR_CLUSTER_CONCURRENT		false
#define SRM_PROGRESS_CLUSTER_PHASE			PROGRESS_CLUSTER_PHASE
#define SRM_PROGRESS_CLUSTER_TUPLES_SCANNED	PROGRESS_CLUSTER_HEAP_TUPLES_SCANNED
#define SRM_PROGRESS_CLUSTER_TUPLES_WRITTEN	PROGRESS_CLUSTER_HEAP_TUPLES_WRITTEN
#define SRM_PROGRESS_CLUSTER_TOTAL_BLKS		PROGRESS_CLUSTER_TOTAL_HEAP_BLKS
#define SRM_PROGRESS_CLUSTER_BLKS_SCANNED	PROGRESS_CLUSTER_HEAP_BLKS_SCANNED
#define SRM_PROGRESS_CLUSTER_PHASE_SEQ_SCAN	PROGRESS_CLUSTER_PHASE_SEQ_SCAN_HEAP
#define SRM_PROGRESS_CLUSTER_PHASE_SORT		PROGRESS_CLUSTER_PHASE_SORT_TUPLES
#define SRM_PROGRESS_CLUSTER_PHASE_WRITE	PROGRESS_CLUSTER_PHASE_WRITE_NEW_HEAP
#endif

/* 19: a TupleDesc built by hand is finalized before use */
#if PG_VERSION_NUM >= 190000
#define SrmTupleDescFinalize(desc)	TupleDescFinalize(desc)
#else
#define SrmTupleDescFinalize(desc)	((void) (desc))
#endif

/*
 * The relations EXPLAIN counts to decide whether to qualify column names:
 * 18 leaves out the range table's GROUP BY entry (rtable_size)
 */
#if PG_VERSION_NUM >= 180000
#define SrmExplainRelations(es)		((es)->rtable_size)
#else
#define SrmExplainRelations(es)		list_length((es)->rtable)
#endif

/* 18: PrepareSortSupportFromIndexRel takes "reverse" instead of a strategy */
#if PG_VERSION_NUM >= 180000
#define SrmPrepareSortSupportFromIndexRel(index, desc, ssup) \
	PrepareSortSupportFromIndexRel((index), (desc), (ssup))
#else
#define SrmPrepareSortSupportFromIndexRel(index, desc, ssup) \
	PrepareSortSupportFromIndexRel((index), \
								   (desc) ? BTGreaterStrategyNumber : BTLessStrategyNumber, \
								   (ssup))
#endif

/*
 * Does collation coll (valid) sort like memcmp?  17's lc_collate_is_c also
 * says so for the builtin provider (C and C.UTF-8 sort by code point); 18
 * asks the collation's pg_locale_t.
 */
static inline bool
SrmCollateIsC(Oid coll)
{
#if PG_VERSION_NUM >= 180000
	return pg_newlocale_from_collation(coll)->collate_is_c;
#else
	return lc_collate_is_c(coll);
#endif
}

/*
 * The provider (COLLPROVIDER_LIBC, _ICU, _BUILTIN) that orders collation
 * coll (valid, not "C").  Up to 18 the collation's pg_locale_t says so (15
 * to 17 have none, NULL, for a libc default collation); 19's pg_locale_t
 * no longer records it, so the catalog is asked: the database's provider
 * for the default collation, the collation's own otherwise.
 */
static inline char
SrmCollationProvider(Oid coll)
{
#if PG_VERSION_NUM >= 190000
	HeapTuple	tp;
	char		provider = COLLPROVIDER_LIBC;

	if (coll == DEFAULT_COLLATION_OID)
	{
		tp = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
		if (HeapTupleIsValid(tp))
		{
			provider = ((Form_pg_database) GETSTRUCT(tp))->datlocprovider;
			ReleaseSysCache(tp);
		}
	}
	else
	{
		tp = SearchSysCache1(COLLOID, ObjectIdGetDatum(coll));
		if (HeapTupleIsValid(tp))
		{
			provider = ((Form_pg_collation) GETSTRUCT(tp))->collprovider;
			ReleaseSysCache(tp);
		}
	}
	return provider;
#else
	pg_locale_t loc = pg_newlocale_from_collation(coll);

	return loc == NULL ? COLLPROVIDER_LIBC : loc->provider;
#endif
}

#ifdef USE_ICU
/*
 * The ICU collator PostgreSQL orders collation coll (valid, not "C") with,
 * or NULL under another provider (19 made pg_locale_t's union anonymous).
 */
static inline UCollator *
SrmIcuCollator(Oid coll)
{
	pg_locale_t loc;

	if (SrmCollationProvider(coll) != COLLPROVIDER_ICU)
		return NULL;
	loc = pg_newlocale_from_collation(coll);
#if PG_VERSION_NUM >= 190000
	return loc->icu.ucol;
#else
	return loc->info.icu.ucol;
#endif
}
#endif

/*
 * This backend's 0-based slot among MaxBackends, or -1 (17 numbers
 * processes from 0 as ProcNumber; 15 and 16 numbered backends from 1).
 */
static inline int
SrmMyBackendSlot(void)
{
#if PG_VERSION_NUM >= 170000
	if (MyProcNumber == INVALID_PROC_NUMBER || MyProcNumber >= MaxBackends)
		return -1;
	return MyProcNumber;
#else
	if (MyBackendId == InvalidBackendId || MyBackendId > MaxBackends)
		return -1;
	return MyBackendId - 1;
#endif
}

/*
 * The path of a relation fork's first segment file, palloc'd (16 renamed
 * RelFileNode to RelFileLocator; 18's relpath returns a struct).
 */
static inline char *
SrmRelationPath(SMgrRelation reln, ForkNumber forknum)
{
#if PG_VERSION_NUM >= 180000
	return pstrdup(relpath(reln->smgr_rlocator, forknum).str);
#elif PG_VERSION_NUM >= 160000
	return relpath(reln->smgr_rlocator, forknum);
#else
	return relpath(reln->smgr_rnode, forknum);
#endif
}

/*
 * The settings the server holds (utils/guc_tables.h, which the caller
 * includes): an array of every setting and its length (16 added the
 * length argument), and a setting's type-specific part, which 19 embeds in
 * struct config_generic.
 */
#if PG_VERSION_NUM >= 160000
#define SrmGucVariables(n) get_guc_variables(n)
#else
#define SrmGucVariables(n) (*(n) = GetNumConfigOptions(), get_guc_variables())
#endif
#if PG_VERSION_NUM >= 190000
#define SrmGucBool(gen)		(&(gen)->_bool)
#define SrmGucInt(gen)		(&(gen)->_int)
#define SrmGucReal(gen)		(&(gen)->_real)
#define SrmGucString(gen)	(&(gen)->_string)
#define SrmGucEnum(gen)		(&(gen)->_enum)
#else
#define SrmGucBool(gen)		((struct config_bool *) (gen))
#define SrmGucInt(gen)		((struct config_int *) (gen))
#define SrmGucReal(gen)		((struct config_real *) (gen))
#define SrmGucString(gen)	((struct config_string *) (gen))
#define SrmGucEnum(gen)		((struct config_enum *) (gen))
#endif

#endif							/* SRM_COMPAT_H */
