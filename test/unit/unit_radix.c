/*-------------------------------------------------------------------------
 *
 * unit_radix.c
 *	  srmsort_unit_radix(): unit tests of the radix sort (src/keys/radix.c).
 *
 * The radix sort against qsort with the same comparator: random,
 * all-equal, sorted, reverse, few distinct, narrow-range keys, NULL ranks,
 * at sizes 0, 1, 2 and around its insertion-sort, wide-digit and prefetch
 * thresholds; then the ties, fixed with the full comparison, against qsort
 * of SrmCompareNorm.  Those sizes and distributions are where a radix sort
 * goes wrong, and a sort's result alone would seldom show it.
 *
 * IDENTIFICATION
 *	  test/unit/unit_radix.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "common/pg_prng.h"
#include "utils/builtins.h"
#include "utils/typcache.h"

#include "keys/keys.h"
#include "keys/radix.h"
#include "unit.h"

PG_FUNCTION_INFO_V1(srmsort_unit_radix);

/* (nrank, datum1) order: what SrmRadixSort promises, nothing more */
static int
cmp_rank_key(const void *a, const void *b)
{
	const SrmTuple *x = a;
	const SrmTuple *y = b;

	if (x->nrank != y->nrank)
		return x->nrank < y->nrank ? -1 : 1;
	if (x->datum1 != y->datum1)
		return (uint64) x->datum1 < (uint64) y->datum1 ? -1 : 1;
	return 0;
}

static int
cmp_norm(const void *a, const void *b, void *arg)
{
	return SrmCompareNorm(a, b, arg);
}

#define NDISTS 15

static const char *const dist_names[NDISTS] = {
	"random", "all equal", "sorted", "reverse", "few distinct", "narrow range",
	"low bit", "organ pipe", "NULLs mixed", "all NULL", "extremes", "one differs",
	"sorted, NULLs at both ends", "sorted but the last", "sorted, a NULL last"
};

/* key i of n under distribution dist; nrank set */
static uint64
dist_key(int dist, int64 i, int64 n, pg_prng_state *rng, uint8 *nrank)
{
	uint64		r = pg_prng_uint64(rng);

	*nrank = SRM_NRANK_VALUE;
	switch (dist)
	{
		case 0:
			return r;
		case 1:
			return UINT64CONST(0x0123456789ABCDEF);
		case 2:
			return (uint64) i * 977;
		case 3:
			return ~((uint64) i * 977);
		case 4:
			return (r % 4) << 62 | 5;
		case 5:
			return UINT64CONST(0xDEADBEEF00000000) | (r & 0xFFF);
		case 6:
			return UINT64CONST(0x8000000000000000) | (r & 1);
		case 7:
			return (uint64) (i < n / 2 ? i : n - i);
		case 8:
			if (r % 10 == 0)
			{
				*nrank = SRM_NRANK_FIRST;
				return 0;
			}
			if (r % 10 == 1)
			{
				*nrank = SRM_NRANK_LAST;
				return 0;
			}
			return r >> (r % 64);
		case 9:
			*nrank = (r & 1) ? SRM_NRANK_FIRST : SRM_NRANK_LAST;
			return 0;
		case 10:
			return (r & 1) ? (r & 0xFF) : ~(r & 0xFF);
		case 11:
			return i == n / 3 ? 1 : 0;
		case 12:
			/* in order as a whole: the presorted check must accept it */
			if (i < n / 10)
				*nrank = SRM_NRANK_FIRST;
			else if (i >= n - n / 10)
				*nrank = SRM_NRANK_LAST;
			return *nrank == SRM_NRANK_VALUE ? (uint64) i / 3 : 0;
		case 13:
			/* in order but for the last key: it must reject it */
			return i == n - 1 ? 0 : (uint64) i + 1;
		default:
			/* in order by key, but a NULLS FIRST null at the end */
			if (i == n - 1)
				*nrank = SRM_NRANK_FIRST;
			return i == n - 1 ? 0 : (uint64) i;
	}
}

/*
 * radix_vs_qsort
 *		SrmRadixSort against qsort on (nrank, datum1): the same sequence of
 *		keys, and a permutation of the input.
 */
static void
radix_vs_qsort(int dist, int64 n, pg_prng_state *rng)
{
	SrmTuple   *a = palloc(sizeof(SrmTuple) * Max(n, 1));
	SrmTuple   *b = palloc(sizeof(SrmTuple) * Max(n, 1));
	bool	   *seen = palloc0(sizeof(bool) * Max(n, 1));
	int64		i,
				bad = -1,
				dup = -1;
	bool		ties,
				strict;

	for (i = 0; i < n; i++)
	{
		memset(&a[i], 0, sizeof(SrmTuple));
		a[i].tuple = (void *) (uintptr_t) (i + 1);
		a[i].datum1 = (Datum) dist_key(dist, i, n, rng, &a[i].nrank);
	}
	memcpy(b, a, sizeof(SrmTuple) * n);
	ties = SrmRadixSort(a, n);
	for (i = 1; i < n && cmp_rank_key(&b[i - 1], &b[i]) < 0; i++)
		;
	strict = i >= n;
	qsort(b, n, sizeof(SrmTuple), cmp_rank_key);
	for (i = 0; i < n; i++)
	{
		uintptr_t	id = (uintptr_t) a[i].tuple;

		if (bad < 0 && cmp_rank_key(&a[i], &b[i]) != 0)
			bad = i;
		if (id < 1 || id > (uintptr_t) n || seen[id - 1])
		{
			if (dup < 0)
				dup = i;
		}
		else
			seen[id - 1] = true;
	}
	CHECK(bad < 0, "radix %s n=%lld: position %lld holds %d/%016llx, qsort %d/%016llx",
		  dist_names[dist], (long long) n, (long long) bad,
		  bad < 0 ? 0 : a[bad].nrank, bad < 0 ? 0ULL : (unsigned long long) a[bad].datum1,
		  bad < 0 ? 0 : b[bad].nrank, bad < 0 ? 0ULL : (unsigned long long) b[bad].datum1);
	CHECK(dup < 0, "radix %s n=%lld: not a permutation at %lld", dist_names[dist],
		  (long long) n, (long long) dup);
	/* the tie fix is skipped only for input strictly ascending already */
	CHECK(ties != strict, "radix %s n=%lld: returned %d for input %sstrictly ascending",
		  dist_names[dist], (long long) n, ties, strict ? "" : "not ");
	pfree(a);
	pfree(b);
	pfree(seen);
}

/*
 * radix_ties
 *		A real sort: radix sort then SrmRadixFixTies against qsort of
 *		SrmCompareNorm, on MinimalTuples of desc whose values fill makes.
 */
static void
radix_ties(const char *name, SrmKeys *keys, TupleDesc desc, int64 n,
		   void (*fill) (Datum *v, bool *isnull, int64 i, pg_prng_state *rng),
		   pg_prng_state *rng)
{
	SrmTuple   *a = palloc0(sizeof(SrmTuple) * Max(n, 1));
	SrmTuple   *b = palloc0(sizeof(SrmTuple) * Max(n, 1));
	Datum		v[2];
	bool		isnull[2];
	int64		i,
				bad = -1,
				unsorted = -1;

	for (i = 0; i < n; i++)
	{
		fill(v, isnull, i, rng);
		a[i].tuple = form_minimal(desc, v, isnull);
		SrmKeysSetDatum1(keys, &a[i], false);
	}
	memcpy(b, a, sizeof(SrmTuple) * n);
	/* as SrmMemLoadSort: no tie fix after strictly ascending input */
	if (SrmRadixSort(a, n) && SrmKeysNeedTies(keys))
		SrmRadixFixTies(a, n, keys);
	qsort_arg(b, n, sizeof(SrmTuple), cmp_norm, keys);
	for (i = 0; i < n; i++)
	{
		if (bad < 0 && SrmCompareNorm(&a[i], &b[i], keys) != 0)
			bad = i;
		if (unsorted < 0 && i > 0 && SrmCompareNorm(&a[i - 1], &a[i], keys) > 0)
			unsorted = i;
	}
	CHECK(bad < 0 && unsorted < 0,
		  "radix ties %s n=%lld: differs from qsort at %lld, out of order at %lld",
		  name, (long long) n, (long long) bad, (long long) unsorted);
	for (i = 0; i < n; i++)
		pfree(a[i].tuple);
	pfree(a);
	pfree(b);
}

/* (int8 a, int8 b): a from a few values, b anything, some NULLs */
static void
fill_ints(Datum *v, bool *isnull, int64 i, pg_prng_state *rng)
{
	uint64		r = pg_prng_uint64(rng);

	v[0] = Int64GetDatum((int64) (r % 5) - 2);
	v[1] = Int64GetDatum((int64) (r >> 8) % 1000);
	isnull[0] = (r >> 50) % 17 == 0;
	isnull[1] = (r >> 40) % 13 == 0;
}

/* (int8 a, int8 b): a ascending with ties, b anything: a presorted load */
static void
fill_sorted_ints(Datum *v, bool *isnull, int64 i, pg_prng_state *rng)
{
	uint64		r = pg_prng_uint64(rng);

	v[0] = Int64GetDatum(i / 4);
	v[1] = Int64GetDatum((int64) (r >> 8) % 1000);
	isnull[0] = false;
	isnull[1] = (r >> 40) % 13 == 0;
}

/* (int8 a, int8 b): a strictly ascending, b anything: no ties to fix */
static void
fill_strict_ints(Datum *v, bool *isnull, int64 i, pg_prng_state *rng)
{
	uint64		r = pg_prng_uint64(rng);

	v[0] = Int64GetDatum(i);
	v[1] = Int64GetDatum((int64) (r >> 8) % 1000);
	isnull[0] = false;
	isnull[1] = (r >> 40) % 13 == 0;
}

/* text sharing 8-byte (and longer) prefixes, a few NULLs */
static void
fill_text(Datum *v, bool *isnull, int64 i, pg_prng_state *rng)
{
	uint64		r = pg_prng_uint64(rng);
	char		s[64];

	snprintf(s, sizeof(s), "%s%llu", (r & 1) ? "prefix__" : "prefix__longer__",
			 (unsigned long long) ((r >> 8) % 500));
	v[0] = CStringGetTextDatum(s);
	v[1] = Int64GetDatum(0);
	isnull[0] = (r >> 40) % 23 == 0;
	isnull[1] = false;
}

static void
unit_radix(void)
{
	static const int64 sizes[] = {0, 1, 2, 3, 10, 63, 64, 65, 127, 128, 1000, 8191,
	8192, 8193, 65535, 65536, 65537, 200000};
	pg_prng_state rng;
	int			d,
				s,
				order;

	pg_prng_seed(&rng, 37);
	for (d = 0; d < NDISTS; d++)
		for (s = 0; s < lengthof(sizes); s++)
			radix_vs_qsort(d, sizes[s], &rng);
	radix_vs_qsort(0, 1000000, &rng);
	radix_vs_qsort(8, 1000000, &rng);

	for (order = 0; order < 2; order++)
	{
		Oid			types[] = {INT8OID, INT8OID};
		Oid			ttypes[] = {TEXTOID, INT8OID};
		TupleDesc	desc = rec_desc(2, types, 2, false);
		TupleDesc	tdesc = rec_desc(2, ttypes, 2, false);
		TypeCacheEntry *tc = lookup_type_cache(INT8OID, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		TypeCacheEntry *tt = lookup_type_cache(TEXTOID, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		AttrNumber	att[] = {1, 2};
		Oid			ops[] = {order ? tc->gt_opr : tc->lt_opr, order ? tc->lt_opr : tc->gt_opr};
		Oid			tops[] = {order ? tt->gt_opr : tt->lt_opr, tc->lt_opr};
		Oid			colls[] = {InvalidOid, InvalidOid};
		Oid			tcolls[] = {C_COLLATION_OID, InvalidOid};
		bool		nf[] = {order == 1, order == 0};
		SrmKeys    *two = SrmKeysMakeHeap(desc, 2, att, ops, colls, nf);
		SrmKeys    *one = SrmKeysMakeHeap(desc, 1, att, ops, colls, nf);
		SrmKeys    *text = SrmKeysMakeHeap(tdesc, 1, att, tops, tcolls, nf);

		CHECK(two->norm == SRM_NORM_INT64 && SrmKeysNeedTies(two),
			  "(int8, int8) keys: norm %d, ties %d", two->norm, SrmKeysNeedTies(two));
		CHECK(one->norm == SRM_NORM_INT64 && !SrmKeysNeedTies(one),
			  "int8 key: norm %d, ties %d", one->norm, SrmKeysNeedTies(one));
		CHECK(text->norm == SRM_NORM_BYTES && SrmKeysNeedTies(text),
			  "text key: norm %d, ties %d", text->norm, SrmKeysNeedTies(text));
		for (s = 0; s < lengthof(sizes) && sizes[s] <= 65537; s++)
		{
			radix_ties(order ? "(int8 DESC, int8 ASC)" : "(int8 ASC, int8 DESC)",
					   two, desc, sizes[s], fill_ints, &rng);
			radix_ties(order ? "int8 DESC" : "int8", one, desc, sizes[s], fill_ints, &rng);
			radix_ties(order ? "sorted (int8 DESC, int8 ASC)" : "sorted (int8 ASC, int8 DESC)",
					   two, desc, sizes[s], fill_sorted_ints, &rng);
			radix_ties(order ? "strictly ascending (int8 DESC, int8 ASC)" :
					   "strictly ascending (int8 ASC, int8 DESC)",
					   two, desc, sizes[s], fill_strict_ints, &rng);
			radix_ties(order ? "text DESC" : "text", text, tdesc, sizes[s], fill_text, &rng);
		}
	}
}

/*
 * srmsort_unit_radix
 *		SQL: the radix sort's failed checks.
 */
Datum
srmsort_unit_radix(PG_FUNCTION_ARGS)
{
	return unit_srf(fcinfo, unit_radix, 250);
}
