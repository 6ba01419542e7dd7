/*-------------------------------------------------------------------------
 *
 * keys.c
 *	  Sort keys of a sort and the comparison of tuples through SortSupport.
 *
 * Heap sorts compare columns of MinimalTuples with the ordering operators,
 * collations and NULLS FIRST/LAST flags of the Sort node; index sorts
 * compare the key columns of btree IndexTuples with the index's opclasses
 * (DESC and NULLS FIRST from the index options) and then heap TIDs, exactly
 * the order PostgreSQL's own btree build sorts in.
 *
 * The first key may have a normalized form (setup_norm): a NULL rank and
 * a 64-bit unsigned integer whose order is the key's order, or a prefix of
 * it -- the value itself for integers, floats, booleans and OIDs, leading
 * bytes under memcmp order (bytea, uuid, text in a C-ordered collation),
 * the leading primary weights of ICU's sort key for text under an ICU
 * collation in a UTF-8 database (SRM_NORM_ICU, icukey.c), or the opclass's
 * abbreviated key where that compares as an unsigned integer
 * (SRM_NORM_ABBREV: bpchar, inet, macaddr, ICU text in other encodings),
 * the sign, weight and leading digits of a numeric (SRM_NORM_NUMERIC).
 * A first key of 32 bits or fewer (int2, int4, date, bool, oid) shares
 * the 64 bits with the second key (setup_norm_second): whole if it too has
 * 32 bits or fewer, so that ORDER BY a, b on such keys needs the full
 * comparison only at a NULL b; a summary or the leading bits otherwise.
 * Run formation radix sorts on it, and merges and forecasts compare it
 * first: a run record stores it, or it is derived again from the column
 * on read where that is cheap (record.c); where it is only a prefix, ties
 * go to the full first key (keys->key0), then to the other keys.
 *
 * Without a normalized form, the first key may be abbreviated during run
 * formation only, as in tuplesort (the opclass's abort routine may give
 * abbreviation up while the first run is still in memory); tuples read
 * back from runs carry their first key in full, so merges and forecasts
 * use the unabbreviated comparator (keys->key0).
 *
 * All state lives in the memory context current at SrmKeysMake*.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/keys/keys.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <locale.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "access/nbtree.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_database.h"
#include "miscadmin.h"
#include "utils/syscache.h"
#include "catalog/pg_type.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "base/compat.h"
#include "keys/icukey.h"
#include "keys/numkey.h"
#include "keys/keys.h"

/* bytes of a toasted ICU text key tried before detoasting it in full */
#define SRM_ICU_SLICE	32

/*
 * codepoint_collation
 *		Does collation coll order text like memcmp?  glibc's C.UTF-8 (since
 *		glibc 2.35) orders by code point, which for UTF-8 is byte order;
 *		PostgreSQL's "C" and "POSIX" (and 17's builtin provider) are
 *		handled by SrmCollateIsC.  The
 *		full comparator still decides ties, and the differential tests check
 *		the order against PostgreSQL's.
 */
static bool
codepoint_collation(Oid coll)
{
#ifdef __GLIBC__
	const char *name = NULL;
	char	   *tofree = NULL;
	bool		result;
	int			major,
				minor;

	if (sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) != 2 ||
		major < 2 || (major == 2 && minor < 35))
		return false;

	if (coll == DEFAULT_COLLATION_OID)
	{
		HeapTuple	tp;
		Datum		d;
		bool		isnull;

		/* a database's default collation is deterministic */
		if (SrmCollationProvider(coll) != COLLPROVIDER_LIBC)
			return false;
		/* the database's LC_COLLATE (17 on need not set the process's) */
		tp = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
		if (!HeapTupleIsValid(tp))
			return false;
		d = SysCacheGetAttr(DATABASEOID, tp, Anum_pg_database_datcollate, &isnull);
		if (!isnull)
			name = tofree = TextDatumGetCString(d);
		ReleaseSysCache(tp);
	}
	else
	{
		HeapTuple	tp = SearchSysCache1(COLLOID, ObjectIdGetDatum(coll));
		Form_pg_collation form;
		bool		isnull;
		Datum		d;

		if (!HeapTupleIsValid(tp))
			return false;
		form = (Form_pg_collation) GETSTRUCT(tp);
		if (form->collprovider == COLLPROVIDER_LIBC && form->collisdeterministic)
		{
			d = SysCacheGetAttr(COLLOID, tp, Anum_pg_collation_collcollate, &isnull);
			if (!isnull)
				name = tofree = TextDatumGetCString(d);
		}
		ReleaseSysCache(tp);
	}
	result = name != NULL &&
		(strcmp(name, "C.UTF-8") == 0 || strcmp(name, "C.utf8") == 0);
	if (tofree)
		pfree(tofree);
	return result;
#else
	return false;
#endif
}

/*
 * norm_kind
 *		The normalization of a key of type typid with collation coll, if it
 *		has one (SRM_NORM_NONE if not); *exhaustive says whether it
 *		determines the key fully, *uuid marks a uuid's bytes.  ICU's
 *		primary weights only where allow_icu (they set keys->icu).
 */
static SrmNormKind
norm_kind(SrmKeys *keys, Oid typid, Oid coll, bool allow_icu,
		  bool *exhaustive, bool *uuid)
{
	*exhaustive = true;
	*uuid = false;
	switch (typid)
	{
		case INT2OID:
			return SRM_NORM_INT16;
		case INT4OID:
		case DATEOID:
			return SRM_NORM_INT32;
		case INT8OID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case TIMEOID:
			return SRM_NORM_INT64;
		case FLOAT4OID:
			return SRM_NORM_FLOAT4;
		case FLOAT8OID:
			return SRM_NORM_FLOAT8;
		case BOOLOID:
			return SRM_NORM_BOOL;
		case OIDOID:
			return SRM_NORM_OID;
		case UUIDOID:
			*exhaustive = false;
			*uuid = true;
			return SRM_NORM_BYTES;
		case BYTEAOID:
			*exhaustive = false;
			return SRM_NORM_BYTES;
		case NUMERICOID:
			*exhaustive = false;
			return SRM_NORM_NUMERIC;
		case TEXTOID:
		case VARCHAROID:
			/*
			 * Bytewise order under C-ordered collations; ICU's primary
			 * weights under ICU collations.  (Not bpchar, whose trailing
			 * spaces do not count: in either key they would.)
			 */
			*exhaustive = false;
			if (!OidIsValid(coll))
				return SRM_NORM_NONE;
			if (SrmCollateIsC(coll) || codepoint_collation(coll))
				return SRM_NORM_BYTES;
			if (allow_icu && (keys->icu = SrmIcuKeyLookup(coll)) != NULL)
				return SRM_NORM_ICU;
			return SRM_NORM_NONE;
		default:
			return SRM_NORM_NONE;
	}
}

/*
 * setup_abbrev_norm
 *		Abbreviated keys compared as unsigned integers (bpchar's, inet's,
 *		macaddr's, ICU text's in encodings other than UTF-8, the z-order of
 *		GiST's point_ops) are order-consistent prefixes: keep them, also in
 *		the runs and merges, with ties decided in full.
 */
static void
setup_abbrev_norm(SrmKeys *keys, bool nulls_first)
{
	if (keys->abbreviating &&
		keys->sortKeys[0].comparator == ssup_datum_unsigned_cmp)
	{
		keys->norm = SRM_NORM_ABBREV;
		keys->norm_exhaustive = false;
		keys->norm_desc = keys->sortKeys[0].ssup_reverse;
		keys->norm_nulls_first = nulls_first;
	}
}

/*
 * setup_norm
 *		Decide whether the first key, of type typid sorted ascending (or
 *		descending) with collation coll by its type's default btree order,
 *		has a normalized form; if so, use it and stop abbreviating.
 */
static void
setup_norm(SrmKeys *keys, Oid typid, bool desc, bool nulls_first, Oid coll)
{
	bool		exhaustive;
	bool		uuid;
	SrmNormKind kind = norm_kind(keys, typid, coll, true, &exhaustive, &uuid);

	if (kind == SRM_NORM_NONE)
	{
		setup_abbrev_norm(keys, nulls_first);
		return;
	}

	keys->norm = kind;
	keys->norm_exhaustive = exhaustive;
	keys->norm_desc = desc;
	keys->norm_nulls_first = nulls_first;
	keys->norm_uuid = uuid;
	/* the authoritative comparator breaks ties */
	SrmKeysStopAbbrev(keys);
}

/*
 * setup_norm_second
 *		A first key of 32 bits or fewer leaves the normalized key's low half
 *		to the second key (of type typid, by its type's default btree
 *		order), so that tuples sharing the first key (ORDER BY customer_id,
 *		order_date; (int4, int4) indexes) are ordered without the full
 *		comparison.  A second key of 32 bits or fewer fits there whole
 *		(norm2_exact): equal keys are then equal tuples but where a NULL
 *		second key meets its least or greatest value.  An int8 or timestamp
 *		has its summary there (SrmInt64Norm32), others their leading 32
 *		bits.  Not for ICU's weights, costly to make for a key that rarely
 *		decides.
 */
static void
setup_norm_second(SrmKeys *keys, Oid typid, bool desc, bool nulls_first,
				  Oid coll)
{
	bool		exhaustive;
	bool		uuid;
	SrmNormKind kind;

	if (!keys->norm_exhaustive ||
		(keys->norm != SRM_NORM_INT16 && keys->norm != SRM_NORM_INT32 &&
		 keys->norm != SRM_NORM_BOOL && keys->norm != SRM_NORM_OID))
		return;
	kind = norm_kind(keys, typid, coll, false, &exhaustive, &uuid);
	if (kind == SRM_NORM_NONE)
		return;
	keys->norm2 = kind;
	keys->norm2_exact = exhaustive &&
		(kind == SRM_NORM_INT16 || kind == SRM_NORM_INT32 ||
		 kind == SRM_NORM_BOOL || kind == SRM_NORM_OID);
	keys->norm2_desc = desc;
	keys->norm2_nulls_first = nulls_first;
	keys->norm2_uuid = uuid;
}

/*
 * setup_ties
 *		Which ties of equal normalized keys need the tuples (SrmTies), once
 *		the keys' normalization is decided.
 */
static void
setup_ties(SrmKeys *keys)
{
	if (keys->norm == SRM_NORM_NONE || !keys->norm_exhaustive ||
		keys->kind == SRM_KEYS_INDEX)
		keys->ties = SRM_TIES_ALL;
	else if (keys->nkeys == 1)
		keys->ties = SRM_TIES_NONE;
	else if (keys->nkeys == 2 && keys->norm2_exact)
		keys->ties = SRM_TIES_NULL2;
	else
		keys->ties = SRM_TIES_ALL;
}

/*
 * default_order
 *		Is op the default btree "<" (*desc = false) or ">" (*desc = true)
 *		operator of typid?
 */
static bool
default_order(Oid typid, Oid op, bool *desc)
{
	TypeCacheEntry *tc = lookup_type_cache(typid,
										   TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);

	*desc = (op == tc->gt_opr);
	return op == tc->lt_opr || op == tc->gt_opr;
}

/*
 * SrmKeysMakeHeap
 *		Sort keys for tuples of tupdesc, as tuplesort_begin_heap sets them up.
 */
SrmKeys *
SrmKeysMakeHeap(TupleDesc tupdesc, int nkeys, AttrNumber *attNums,
				Oid *sortOperators, Oid *sortCollations,
				bool *nullsFirstFlags)
{
	SrmKeys    *keys = palloc0(sizeof(SrmKeys));
	int			i;

	Assert(nkeys > 0);
	keys->kind = SRM_KEYS_HEAP;
	keys->nkeys = nkeys;
	keys->tupdesc = tupdesc;
	keys->sortKeys = palloc0(nkeys * sizeof(SortSupportData));
	keys->abbrevNext = 10;

	for (i = 0; i < nkeys; i++)
	{
		SortSupport ssup = keys->sortKeys + i;

		ssup->ssup_cxt = CurrentMemoryContext;
		ssup->ssup_collation = sortCollations[i];
		ssup->ssup_nulls_first = nullsFirstFlags[i];
		ssup->ssup_attno = attNums[i];
		ssup->abbreviate = (i == 0);
		PrepareSortSupportFromOrderingOp(sortOperators[i], ssup);
	}

	keys->key0.ssup_cxt = CurrentMemoryContext;
	keys->key0.ssup_collation = sortCollations[0];
	keys->key0.ssup_nulls_first = nullsFirstFlags[0];
	keys->key0.ssup_attno = attNums[0];
	keys->key0.abbreviate = false;
	PrepareSortSupportFromOrderingOp(sortOperators[0], &keys->key0);

	keys->abbreviating = (keys->sortKeys[0].abbrev_converter != NULL);

	{
		Oid			typid = TupleDescAttr(tupdesc, attNums[0] - 1)->atttypid;
		bool		desc;

		if (default_order(typid, sortOperators[0], &desc))
			setup_norm(keys, typid, desc, nullsFirstFlags[0], sortCollations[0]);
		if (nkeys > 1 && keys->norm != SRM_NORM_NONE)
		{
			typid = TupleDescAttr(tupdesc, attNums[1] - 1)->atttypid;
			if (default_order(typid, sortOperators[1], &desc))
				setup_norm_second(keys, typid, desc, nullsFirstFlags[1],
								  sortCollations[1]);
		}
	}
	setup_ties(keys);
	return keys;
}

/*
 * SrmKeysPrepareIndexKey
 *		Set up one SortSupport for an index key column from its scan key,
 *		in CurrentMemoryContext.
 */
void
SrmKeysPrepareIndexKey(Relation indexRel, ScanKey scanKey, SortSupport ssup,
					   bool abbreviate)
{
	ssup->ssup_cxt = CurrentMemoryContext;
	ssup->ssup_collation = scanKey->sk_collation;
	ssup->ssup_nulls_first = (scanKey->sk_flags & SK_BT_NULLS_FIRST) != 0;
	ssup->ssup_attno = scanKey->sk_attno;
	ssup->abbreviate = abbreviate;
	SrmPrepareSortSupportFromIndexRel(indexRel,
									  (scanKey->sk_flags & SK_BT_DESC) != 0,
									  ssup);
}

/*
 * index_default_order
 *		Is key column i (0-based) of index indexRel ordered by its type's
 *		default btree opclass?
 */
static bool
index_default_order(Relation indexRel, int i)
{
	TypeCacheEntry *tc = lookup_type_cache(indexRel->rd_opcintype[i],
										   TYPECACHE_BTREE_OPFAMILY);

	return OidIsValid(tc->btree_opf) && tc->btree_opf == indexRel->rd_opfamily[i];
}

/*
 * make_index_keys
 *		Sort keys in the order of btree index indexRel, on its key columns
 *		(kind SRM_KEYS_INDEX: the index's own tuples, then heap TID;
 *		SRM_KEYS_HEAP: tuples of tupdesc whose first columns are the index's
 *		key columns).
 */
static SrmKeys *
make_index_keys(Relation indexRel, SrmKeyKind kind, TupleDesc tupdesc)
{
	SrmKeys    *keys = palloc0(sizeof(SrmKeys));
	BTScanInsert scankey = _bt_mkscankey(indexRel, NULL);
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(indexRel);
	int			i;

	keys->kind = kind;
	keys->nkeys = nkeys;
	keys->tupdesc = tupdesc;
	keys->sortKeys = palloc0(nkeys * sizeof(SortSupportData));
	keys->abbrevNext = 10;

	for (i = 0; i < nkeys; i++)
		SrmKeysPrepareIndexKey(indexRel, scankey->scankeys + i,
						  keys->sortKeys + i, i == 0);
	SrmKeysPrepareIndexKey(indexRel, scankey->scankeys, &keys->key0, false);

	keys->abbreviating = (keys->sortKeys[0].abbrev_converter != NULL);

	/* normalize only under the type's default btree opclass */
	{
		ScanKey		sk = scankey->scankeys;

		if (index_default_order(indexRel, 0))
			setup_norm(keys, indexRel->rd_opcintype[0],
					   (sk[0].sk_flags & SK_BT_DESC) != 0,
					   (sk[0].sk_flags & SK_BT_NULLS_FIRST) != 0, sk[0].sk_collation);
		if (nkeys > 1 && keys->norm != SRM_NORM_NONE && index_default_order(indexRel, 1))
			setup_norm_second(keys, indexRel->rd_opcintype[1],
							  (sk[1].sk_flags & SK_BT_DESC) != 0,
							  (sk[1].sk_flags & SK_BT_NULLS_FIRST) != 0, sk[1].sk_collation);
	}
	setup_ties(keys);
	pfree(scankey);
	return keys;
}

/*
 * SrmKeysMakeIndex
 *		Sort keys for btree index tuples of indexRel: key columns, then TID.
 */
SrmKeys *
SrmKeysMakeIndex(Relation indexRel)
{
	return make_index_keys(indexRel, SRM_KEYS_INDEX, RelationGetDescr(indexRel));
}

/*
 * SrmKeysMakeIndexOrder
 *		Sort keys for tuples of tupdesc in the order of btree index
 *		indexRel: its key columns are tupdesc's first columns, compared
 *		with the index's own SortSupport as tuplesort_begin_cluster does.
 */
SrmKeys *
SrmKeysMakeIndexOrder(Relation indexRel, TupleDesc tupdesc)
{
	return make_index_keys(indexRel, SRM_KEYS_HEAP, tupdesc);
}

/*
 * SrmKeysMakeGist
 *		Sort keys for the index tuples of GiST index indexRel, as
 *		tuplesort_begin_index_gist sets them up: every key column by its
 *		opclass's sortsupport function (on the compressed key), in its
 *		collation, NULLs last; then heap TID, as for btree.
 */
SrmKeys *
SrmKeysMakeGist(Relation indexRel)
{
	SrmKeys    *keys = palloc0(sizeof(SrmKeys));
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(indexRel);
	int			i;

	keys->kind = SRM_KEYS_INDEX;
	keys->nkeys = nkeys;
	keys->tupdesc = RelationGetDescr(indexRel);
	keys->sortKeys = palloc0(nkeys * sizeof(SortSupportData));
	keys->abbrevNext = 10;

	for (i = 0; i <= nkeys; i++)
	{
		/* the last round is key0: the first column, never abbreviated */
		SortSupport ssup = i < nkeys ? keys->sortKeys + i : &keys->key0;
		int			col = i < nkeys ? i : 0;

		ssup->ssup_cxt = CurrentMemoryContext;
		ssup->ssup_collation = indexRel->rd_indcollation[col];
		ssup->ssup_nulls_first = false;
		ssup->ssup_attno = col + 1;
		ssup->abbreviate = (i == 0);
		PrepareSortSupportFromGistIndexRel(indexRel, ssup);
	}
	keys->abbreviating = (keys->sortKeys[0].abbrev_converter != NULL);
	/* no typed normalization: the opclass's order is no btree order */
	setup_abbrev_norm(keys, false);
	return keys;
}

/*
 * get_heap_attr
 *		Column attno of a MinimalTuple.
 */
static inline Datum
get_heap_attr(SrmKeys *keys, const void *tuple, AttrNumber attno, bool *isnull)
{
	HeapTupleData htup;

	/*
	 * Deforming user attributes reads nothing before t_infomask2; the
	 * memory load keeps no t_len (runs.c).
	 */
	htup.t_len = 0;
	htup.t_data = (HeapTupleHeader) ((char *) tuple - MINIMAL_TUPLE_OFFSET);

	/*
	 * The first column of a tuple without NULLs starts its data.  Read it
	 * there: heap_getattr would walk the descriptor in nocachegetattr on
	 * every call where the descriptor caches no offsets (19's, here).
	 */
	if (attno == 1 && !HeapTupleHasNulls(&htup) &&
		HeapTupleHeaderGetNatts(htup.t_data) >= 1)
	{
		*isnull = false;
		return fetchatt(TupleDescAttr(keys->tupdesc, 0),
						(char *) htup.t_data + htup.t_data->t_hoff);
	}
	return heap_getattr(&htup, attno, keys->tupdesc, isnull);
}

/*
 * get_attr
 *		Value of sort key k (0-based) of a stored tuple.
 */
static inline Datum
get_attr(SrmKeys *keys, const void *tuple, int k, bool *isnull)
{
	if (keys->kind == SRM_KEYS_HEAP)
		return get_heap_attr(keys, tuple, keys->sortKeys[k].ssup_attno, isnull);
	return index_getattr((IndexTuple) tuple, k + 1, keys->tupdesc, isnull);
}

/*
 * SrmKeysGetKey0
 *		The first key of a stored tuple, never abbreviated.
 */
Datum
SrmKeysGetKey0(SrmKeys *keys, const void *tuple, bool *isnull)
{
	return get_attr(keys, tuple, 0, isnull);
}

/*
 * SrmKeysKey0Type
 *		by-value flag and length of the first key's type.
 */
void
SrmKeysKey0Type(SrmKeys *keys, bool *byval, int16 *typlen)
{
	Form_pg_attribute att;

	if (keys->kind == SRM_KEYS_HEAP)
		att = TupleDescAttr(keys->tupdesc, keys->sortKeys[0].ssup_attno - 1);
	else
		att = TupleDescAttr(keys->tupdesc, 0);
	*byval = att->attbyval;
	*typlen = att->attlen;
}

/*
 * float_norm
 *		Order-preserving map of a double to uint64: -0 is 0, every NaN is
 *		one NaN above +Infinity, as in PostgreSQL's float comparisons.
 */
static inline uint64
float_norm(double f)
{
	uint64		u;

	if (isnan(f))
		return PG_UINT64_MAX;
	if (f == 0.0)
		f = 0.0;				/* -0 equals 0 */
	memcpy(&u, &f, sizeof(u));
	return (u & UINT64CONST(0x8000000000000000)) ? ~u : u | UINT64CONST(0x8000000000000000);
}

/*
 * icu_norm
 *		K of a text value under an ICU collation (icukey.c).  A compressed
 *		or toasted value is first tried on its leading bytes, which decide
 *		K when they are eight characters of the collation's table; ICU
 *		itself may need the whole string (ignorable characters weigh
 *		nothing), so otherwise it is detoasted in full, as PostgreSQL's
 *		abbreviated keys do.
 */
static uint64
icu_norm(SrmKeys *keys, struct varlena *v)
{
	struct varlena *s;
	uint64		u;

	if (!VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v))
		return SrmIcuKeyMake(keys->icu, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));

	s = pg_detoast_datum_slice(v, 0, SRM_ICU_SLICE);
	if (VARSIZE_ANY_EXHDR(s) < SRM_ICU_SLICE)
		u = SrmIcuKeyMake(keys->icu, VARDATA_ANY(s), VARSIZE_ANY_EXHDR(s));
	else if (!SrmIcuKeyMakePrefix(keys->icu, VARDATA_ANY(s),
								  VARSIZE_ANY_EXHDR(s), &u))
	{
		struct varlena *f = pg_detoast_datum_packed(v);

		u = SrmIcuKeyMake(keys->icu, VARDATA_ANY(f), VARSIZE_ANY_EXHDR(f));
		if (f != v)
			pfree(f);
	}
	if (s != v)
		pfree(s);
	return u;
}

/*
 * norm_value
 *		The normalized form (before DESC) of the non-NULL value d of a key
 *		normalized as kind.
 */
static uint64
norm_value(SrmKeys *keys, SrmNormKind kind, bool uuid, Datum d)
{
	switch (kind)
	{
		case SRM_NORM_INT16:
			return SrmIntNorm(DatumGetInt16(d));
		case SRM_NORM_INT32:
			return SrmIntNorm(DatumGetInt32(d));
		case SRM_NORM_INT64:
			return SrmIntNorm(DatumGetInt64(d));
		case SRM_NORM_FLOAT4:
			return float_norm((double) DatumGetFloat4(d));
		case SRM_NORM_FLOAT8:
			return float_norm(DatumGetFloat8(d));
		case SRM_NORM_BOOL:
			return DatumGetBool(d) ? 1 : 0;
		case SRM_NORM_OID:
			return DatumGetObjectId(d);
		case SRM_NORM_BYTES:
			if (uuid)
				return SrmBytesNorm(DatumGetUUIDP(d)->data, UUID_LEN);
			else
			{
				struct varlena *v = (struct varlena *) DatumGetPointer(d);
				struct varlena *s;
				uint64		u;

				if (!VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v))
					return SrmBytesNorm((unsigned char *) VARDATA_ANY(v),
										VARSIZE_ANY_EXHDR(v));

				/*
				 * Compressed or toasted: only a prefix is needed.  (Short
				 * inline headers, the common case, are read in place.)
				 */
				s = pg_detoast_datum_slice(v, 0, 8);
				u = SrmBytesNorm((unsigned char *) VARDATA_ANY(s), VARSIZE_ANY_EXHDR(s));
				if (s != v)
					pfree(s);
				return u;
			}
		case SRM_NORM_ICU:
			return icu_norm(keys, (struct varlena *) DatumGetPointer(d));
		case SRM_NORM_NUMERIC:
			return SrmNumericNorm(d);
		case SRM_NORM_ABBREV:
			return (uint64) keys->sortKeys[0].abbrev_converter(d, &keys->sortKeys[0]);
		case SRM_NORM_NONE:
			break;
	}
	elog(ERROR, "srmsort: key is not normalized");
	return 0;					/* keep compiler quiet */
}

/* The NULL rank of a first key (NULL if isnull). */
static inline uint8
null_rank(SrmKeys *keys, bool isnull)
{
	if (!isnull)
		return SRM_NRANK_VALUE;
	return keys->norm_nulls_first ? SRM_NRANK_FIRST : SRM_NRANK_LAST;
}

/*
 * SrmKeysNormalize
 *		The normalized first key and NULL rank of value d (a first key
 *		alone: not with a second key in its low half, see pair_key).
 */
void
SrmKeysNormalize(SrmKeys *keys, Datum d, bool isnull, uint64 *key, uint8 *nrank)
{
	Assert(keys->norm2 == SRM_NORM_NONE);
	*nrank = null_rank(keys, isnull);
	if (isnull)
	{
		*key = 0;
		return;
	}
	*key = SrmNormFold(norm_value(keys, keys->norm, keys->norm_uuid, d),
					   keys->norm_desc);
}

/*
 * SrmKeysNorm2Prefix
 *		The leading 32 bits of the normalized form of a non-NULL second key
 *		d2 that neither fits 32 bits nor is a 64-bit integer (see
 *		SrmKeysPairKey), before DESC; for a numeric, its 32-bit form.
 */
uint32
SrmKeysNorm2Prefix(SrmKeys *keys, Datum d2)
{
	if (keys->norm2 == SRM_NORM_NUMERIC)
		return SrmNumericNorm32(d2);
	return (uint32) (norm_value(keys, keys->norm2, keys->norm2_uuid, d2) >> 32);
}

/*
 * pair_key
 *		The normalized key of tuple t whose first key (d, isnull) has at
 *		most 32 bits (SrmKeysPairKey).  A NULL second key takes the low
 *		half's least or greatest value, which orders it no later (NULLS
 *		FIRST) or no earlier (NULLS LAST) than any value: the full
 *		comparison decides ties there (SRM_TIES_NULL2).  A NULL first key
 *		leaves the high half 0 (nrank orders it) and the low half to the
 *		second key, as for any other.
 */
static uint64
pair_key(SrmKeys *keys, Datum d, bool isnull, const void *tuple)
{
	bool		null2;
	Datum		d2 = get_attr(keys, tuple, 1, &null2);
	uint32		hi = isnull ? 0 : SrmKeysPairHi(keys, d);
	uint32		lo = null2 ? SrmKeysNull2Lo(keys) : SrmKeysPairLo(keys, d2);

	return ((uint64) hi << 32) | lo;
}

/*
 * SrmKeysNormalizeBytes
 *		The normalized first key of a SRM_NORM_BYTES value whose bytes are
 *		p[0..len) (a varlena's data, read wherever it lies).
 */
void
SrmKeysNormalizeBytes(SrmKeys *keys, const unsigned char *p, Size len,
					  uint64 *key, uint8 *nrank)
{
	uint64		u = SrmBytesNorm(p, len);

	*nrank = SRM_NRANK_VALUE;
	*key = SrmNormFold(u, keys->norm_desc);
}

/*
 * SrmKeysSetDatum1
 *		Fill t->datum1/isnull1 from t->tuple.  The datum points into the tuple
 *		for by-reference types, so it lives as long as the tuple does.
 */
void
SrmKeysSetDatum1(SrmKeys *keys, SrmTuple *t, bool abbreviated)
{
	Datum		d = get_attr(keys, t->tuple, 0, &t->isnull1);

	if (keys->norm != SRM_NORM_NONE)
	{
		uint64		key;

		if (keys->norm2 != SRM_NORM_NONE)
		{
			key = pair_key(keys, d, t->isnull1, t->tuple);
			t->nrank = null_rank(keys, t->isnull1);
		}
		else
			SrmKeysNormalize(keys, d, t->isnull1, &key, &t->nrank);
		t->datum1 = (Datum) key;
		return;
	}

	if (abbreviated && keys->abbreviating && !t->isnull1)
		d = keys->sortKeys[0].abbrev_converter(d, &keys->sortKeys[0]);
	t->datum1 = d;
}

/*
 * compare_rest
 *		Compare keys from the first-th (0-based) on, then (index sorts)
 *		heap TIDs.
 */
static int
compare_rest(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys, int first)
{
	int			k;
	int			cmp;

	for (k = first; k < keys->nkeys; k++)
	{
		bool		anull,
					bnull;
		Datum		ad = get_attr(keys, a->tuple, k, &anull);
		Datum		bd = get_attr(keys, b->tuple, k, &bnull);

		cmp = ApplySortComparator(ad, anull, bd, bnull, keys->sortKeys + k);
		if (cmp != 0)
			return cmp;
	}

	if (keys->kind == SRM_KEYS_INDEX)
		return ItemPointerCompare(&((IndexTuple) a->tuple)->t_tid,
								  &((IndexTuple) b->tuple)->t_tid);
	return 0;
}

/*
 * SrmCompareAbbrev
 *		Comparison during run formation, datum1 possibly abbreviated.
 */
int
SrmCompareAbbrev(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys)
{
	int			cmp;

	if (keys->norm != SRM_NORM_NONE)
		return SrmCompareNorm(a, b, keys);

	cmp = ApplySortComparator(a->datum1, a->isnull1, b->datum1, b->isnull1,
							  keys->sortKeys);
	if (cmp != 0)
		return cmp;
	return SrmCompareTiebreak(a, b, keys);
}

/*
 * SrmCompareTiebreak
 *		Tuples whose datum1 compare equal: decide on the full first key (if
 *		datum1 is abbreviated) and the remaining keys.
 */
int
SrmCompareTiebreak(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys)
{
	int			cmp;

	if (keys->norm != SRM_NORM_NONE)
	{
		if (!keys->norm_exhaustive)
		{
			bool		anull,
						bnull;
			Datum		ad = get_attr(keys, a->tuple, 0, &anull);
			Datum		bd = get_attr(keys, b->tuple, 0, &bnull);

			cmp = ApplySortComparator(ad, anull, bd, bnull, &keys->key0);
			if (cmp != 0)
				return cmp;
		}
		/* equal keys whose low half holds the second key whole agree on it */
		if (keys->norm2_exact &&
			(uint32) a->datum1 != SrmKeysNull2Lo(keys))
			return compare_rest(a, b, keys, 2);
		return compare_rest(a, b, keys, 1);
	}
	if (keys->abbreviating)
	{
		bool		anull,
					bnull;
		Datum		ad = get_attr(keys, a->tuple, 0, &anull);
		Datum		bd = get_attr(keys, b->tuple, 0, &bnull);

		cmp = ApplySortAbbrevFullComparator(ad, anull, bd, bnull, keys->sortKeys);
		if (cmp != 0)
			return cmp;
	}
	return compare_rest(a, b, keys, 1);
}

/*
 * SrmCompareFull
 *		Comparison in merges: datum1 holds the first key in full.
 */
int
SrmCompareFull(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys)
{
	int			cmp;

	if (keys->norm != SRM_NORM_NONE)
		return SrmCompareNorm(a, b, keys);

	cmp = ApplySortComparator(a->datum1, a->isnull1, b->datum1, b->isnull1,
							  &keys->key0);
	if (cmp != 0)
		return cmp;
	return compare_rest(a, b, keys, 1);
}

/*
 * SrmKeysConsiderAbort
 *		Ask the opclass, at doubling tuple counts, whether abbreviation pays;
 *		if not, give it up and recompute the first keys of tuples[0..n).
 */
void
SrmKeysConsiderAbort(SrmKeys *keys, SrmTuple *tuples, int64 n)
{
	SortSupport ssup = keys->sortKeys;
	int64		i;

	if (!keys->abbreviating || n < keys->abbrevNext ||
		keys->norm == SRM_NORM_ABBREV)
		return;
	keys->abbrevNext *= 2;
	if (!ssup->abbrev_abort(n, ssup))
		return;

	SrmKeysStopAbbrev(keys);
	for (i = 0; i < n; i++)
		SrmKeysSetDatum1(keys, &tuples[i], false);
}

/*
 * SrmKeysStopAbbrev
 *		Switch sortKeys[0] to its authoritative comparator for good.
 */
void
SrmKeysStopAbbrev(SrmKeys *keys)
{
	SortSupport ssup = keys->sortKeys;

	if (!keys->abbreviating)
		return;
	ssup->comparator = ssup->abbrev_full_comparator;
	ssup->abbrev_converter = NULL;
	ssup->abbrev_abort = NULL;
	ssup->abbrev_full_comparator = NULL;
	keys->abbreviating = false;
}
