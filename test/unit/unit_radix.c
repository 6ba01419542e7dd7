/*-------------------------------------------------------------------------
 *
 * unit_radix.c
 *	  srmsort_unit_radix(): unit tests of the radix sort (src/keys/radix.c).
 *
 * The radix sort against qsort with the same comparator: random,
 * all-equal, sorted, reverse, few distinct, narrow-range keys, NULL ranks,
 * at sizes 0, 1, 2 and around its insertion-sort, wide-digit and prefetch
 * thresholds, each with no scratch, some and enough for all (in place, in
 * place until buckets fit, out of place); then the ties, fixed with the
 * full comparison, against qsort
 * of SrmCompareNorm.  Those sizes and distributions are where a radix sort
 * goes wrong, and a sort's result alone would seldom show it.  Also the
 * numeric keys' order on neighbouring values (unit_numeric_keys).
 *
 * Portions Copyright (c) 2026, the srmsort developers
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

/*
 * cmp_cols
 *		The sort's order from the columns alone, every key through its
 *		SortSupport: the normalized keys' oracle.
 */
static int
cmp_cols(const void *a, const void *b, void *arg)
{
	SrmKeys    *keys = arg;
	HeapTupleData x,
				y;
	int			k;

	x.t_len = y.t_len = 0;
	x.t_data = (HeapTupleHeader) ((char *) ((const SrmTuple *) a)->tuple - MINIMAL_TUPLE_OFFSET);
	y.t_data = (HeapTupleHeader) ((char *) ((const SrmTuple *) b)->tuple - MINIMAL_TUPLE_OFFSET);
	for (k = 0; k < keys->nkeys; k++)
	{
		SortSupport ssup = &keys->sortKeys[k];
		bool		xn,
					yn;
		Datum		xd = heap_getattr(&x, ssup->ssup_attno, keys->tupdesc, &xn);
		Datum		yd = heap_getattr(&y, ssup->ssup_attno, keys->tupdesc, &yn);
		int			cmp = ApplySortComparator(xd, xn, yd, yn, ssup);

		if (cmp != 0)
			return cmp;
	}
	return 0;
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
 *		keys, and a permutation of the input.  nscratch slots of scratch,
 *		filled with garbage: none (all in place), part (in place until the
 *		buckets fit), or n (all out of place).
 */
static void
radix_vs_qsort(int dist, int64 n, int64 nscratch, pg_prng_state *rng)
{
	SrmTuple   *a = palloc(sizeof(SrmTuple) * Max(n, 1));
	SrmTuple   *b = palloc(sizeof(SrmTuple) * Max(n, 1));
	SrmTuple   *scratch = palloc(sizeof(SrmTuple) * Max(nscratch, 1));
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
	memset(scratch, 0xA5, sizeof(SrmTuple) * Max(nscratch, 1));
	ties = SrmRadixSort(a, n, scratch, nscratch);
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
	CHECK(bad < 0, "radix %s n=%lld scratch=%lld: position %lld holds %d/%016llx, qsort %d/%016llx",
		  dist_names[dist], (long long) n, (long long) nscratch, (long long) bad,
		  bad < 0 ? 0 : a[bad].nrank, bad < 0 ? 0ULL : (unsigned long long) a[bad].datum1,
		  bad < 0 ? 0 : b[bad].nrank, bad < 0 ? 0ULL : (unsigned long long) b[bad].datum1);
	CHECK(dup < 0, "radix %s n=%lld scratch=%lld: not a permutation at %lld",
		  dist_names[dist], (long long) n, (long long) nscratch, (long long) dup);
	/* the tie fix is skipped only for input strictly ascending already */
	CHECK(ties != strict, "radix %s n=%lld: returned %d for input %sstrictly ascending",
		  dist_names[dist], (long long) n, ties, strict ? "" : "not ");
	pfree(a);
	pfree(b);
	pfree(scratch);
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
	/* sizes alternate between all in place, in part and all out of place */
	int64		nscratch = (n % 3 == 0) ? 0 : (n % 3 == 1) ? n / 4 : n;
	SrmTuple   *scratch = palloc(sizeof(SrmTuple) * Max(nscratch, 1));
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
	if (SrmRadixSort(a, n, scratch, nscratch) && SrmKeysNeedTies(keys))
		SrmRadixFixTies(a, n, keys);
	qsort_arg(b, n, sizeof(SrmTuple), cmp_norm, keys);
	for (i = 0; i < n; i++)
	{
		if (bad < 0 && SrmCompareNorm(&a[i], &b[i], keys) != 0)
			bad = i;
		if (unsorted < 0 && i > 0 &&
			(SrmCompareNorm(&a[i - 1], &a[i], keys) > 0 ||
			 cmp_cols(&a[i - 1], &a[i], keys) > 0))
			unsorted = i;
	}
	CHECK(bad < 0 && unsorted < 0,
		  "radix ties %s n=%lld: differs from qsort at %lld, out of order at %lld",
		  name, (long long) n, (long long) bad, (long long) unsorted);
	for (i = 0; i < n; i++)
		pfree(a[i].tuple);
	pfree(a);
	pfree(b);
	pfree(scratch);
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

/*
 * (int4 a, int4 b): a from a few values, b often at the extremes its NULLs
 * share the low half of the key with, NULLs in both
 */
static void
fill_pair32(Datum *v, bool *isnull, int64 i, pg_prng_state *rng)
{
	static const int32 extremes[] = {PG_INT32_MIN, PG_INT32_MIN + 1, PG_INT32_MAX,
	PG_INT32_MAX - 1, 0, -1};
	uint64		r = pg_prng_uint64(rng);

	v[0] = Int32GetDatum((int32) (r % 5) - 2);
	v[1] = Int32GetDatum((r >> 8) % 3 == 0 ? extremes[(r >> 12) % lengthof(extremes)] :
						 (int32) ((r >> 16) % 1000) - 500);
	isnull[0] = (r >> 50) % 17 == 0;
	isnull[1] = (r >> 40) % 7 == 0;
}

/* (int4 a, int8 b): b about 2^30, where its summary stops being exact */
static void
fill_pair64(Datum *v, bool *isnull, int64 i, pg_prng_state *rng)
{
	static const int64 extremes[] = {PG_INT64_MIN, PG_INT64_MAX, 1 << 30, (1 << 30) - 1,
	-(1 << 30), -(1 << 30) - 1, PG_INT32_MAX, PG_INT32_MIN, 0, -1};
	uint64		r = pg_prng_uint64(rng);

	v[0] = Int32GetDatum((int32) (r % 3));
	v[1] = Int64GetDatum((r >> 8) % 3 == 0 ? extremes[(r >> 12) % lengthof(extremes)] :
						 (int64) (r >> 20) * (((r >> 16) & 1) ? 1 : -1) >> ((r >> 2) % 44));
	isnull[0] = (r >> 58) % 17 == 0;
	isnull[1] = (r >> 40) % 7 == 0;
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

/*
 * keys2
 *		Keys of ORDER BY a, b on tuples of (t1 a, t2 b) in *desc: each
 *		ascending or descending, NULLS FIRST or LAST as asked.
 */
static SrmKeys *
keys2(Oid t1, Oid t2, bool desc1, bool desc2, bool nf1, bool nf2, TupleDesc *desc)
{
	Oid			types[] = {t1, t2};
	TypeCacheEntry *c1 = lookup_type_cache(t1, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	TypeCacheEntry *c2 = lookup_type_cache(t2, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	AttrNumber	att[] = {1, 2};
	Oid			ops[] = {desc1 ? c1->gt_opr : c1->lt_opr, desc2 ? c2->gt_opr : c2->lt_opr};
	Oid			colls[] = {InvalidOid, InvalidOid};
	bool		nf[] = {nf1, nf2};

	*desc = rec_desc(2, types, 2, false);
	return SrmKeysMakeHeap(*desc, 2, att, ops, colls, nf);
}

/* a numeric from its text */
static Datum
numeric_of(const char *str)
{
	return DirectFunctionCall3(numeric_in, CStringGetDatum(str),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/*
 * (numeric a, int8 b), or with pair (int4 a, numeric b): the numeric from
 * specials, zeros of two scales, few leading digits over many magnitudes
 * (ties on the key's digits and on its 32-bit form), some NULLs
 */
static void
fill_numeric_at(Datum *v, bool *isnull, pg_prng_state *rng, bool pair)
{
	static const char *const specials[] = {"NaN", "Infinity", "-Infinity", "0", "0.000",
	"1e2000", "-1e-2000", "1e-33", "-1e33"};
	uint64		r = pg_prng_uint64(rng);
	char		s[64];
	int			n = pair ? 1 : 0;

	if (r % 7 == 0)
		snprintf(s, sizeof(s), "%s", specials[(r >> 8) % lengthof(specials)]);
	else
		snprintf(s, sizeof(s), "%s%llu.%llue%d", (r & 1) ? "-" : "",
				 (unsigned long long) ((r >> 8) % 20),
				 (unsigned long long) ((r >> 16) % 1000000007),
				 (int) ((r >> 48) % 81) - 40);
	v[n] = numeric_of(s);
	isnull[n] = (r >> 40) % 19 == 0;
	v[1 - n] = pair ? Int32GetDatum((int32) ((r >> 4) % 3)) : Int64GetDatum((int64) (r >> 12) % 100);
	isnull[1 - n] = (r >> 58) % 23 == 0;
}

static void
fill_numeric(Datum *v, bool *isnull, int64 i, pg_prng_state *rng)
{
	fill_numeric_at(v, isnull, rng, false);
}

static void
fill_pair_numeric(Datum *v, bool *isnull, int64 i, pg_prng_state *rng)
{
	fill_numeric_at(v, isnull, rng, true);
}

/*
 * unit_numeric_keys
 *		The numeric key of neighbouring values, 64-bit and as the low half
 *		after an int4: never decreasing; equal for equal numerics; strictly
 *		increasing where the values differ within the key's digits and
 *		weight range ('<'), equal where they may not ('=' after a value
 *		equal to it, '~' after one that differs only past the key).
 */
static void
unit_numeric_keys(void)
{
	static const struct
	{
		const char *v;
		char		rel64;		/* against the value before */
		char		rel32;
	}			seq[] = {
		{"-Infinity", '<', '<'}, {"-1e2000", '<', '<'}, {"-1e1025", '~', '~'},
		{"-1e1024", '~', '~'}, {"-9.999e1023", '<', '~'}, {"-1e1020", '<', '~'},
		{"-1e33", '<', '~'}, {"-1e32", '<', '~'}, {"-9.9e31", '<', '<'},
		{"-1e28", '<', '<'}, {"-12345678.9", '<', '<'}, {"-12345678.8", '<', '~'},
		{"-1.5", '<', '<'}, {"-1", '<', '<'}, {"-1.000", '=', '='}, {"-0.5", '<', '<'},
		{"-1e-28", '<', '<'}, {"-1e-32", '<', '<'}, {"-9e-33", '<', '<'},
		{"-1e-1020", '<', '~'}, {"-1e-1024", '<', '~'}, {"-1e-1025", '<', '~'},
		{"-1e-2000", '~', '~'}, {"0", '<', '<'}, {"0.00", '=', '='},
		{"1e-2000", '~', '~'}, {"1e-1025", '~', '~'}, {"1e-1024", '<', '~'},
		{"1e-1021", '<', '~'}, {"1e-33", '<', '~'}, {"1e-32", '<', '<'},
		{"1e-28", '<', '<'}, {"0.1234567890123456", '<', '<'},
		{"0.1234567890123457", '<', '~'}, {"0.12345678901234571", '~', '~'},
		{"1", '<', '<'}, {"1.0", '=', '='}, {"1.00000001", '<', '~'},
		{"1.0001", '<', '<'}, {"2", '<', '<'}, {"9999", '<', '<'},
		{"10000", '<', '<'}, {"99999999", '<', '<'}, {"1e28", '<', '<'},
		{"9.9e31", '<', '<'}, {"1e32", '<', '<'}, {"1e33", '<', '~'},
		{"1e1020", '<', '~'}, {"9.999e1023", '<', '~'}, {"1e1024", '<', '~'},
		{"1e1025", '~', '~'}, {"1e2000", '~', '~'}, {"Infinity", '<', '<'},
		{"NaN", '<', '<'}, {"NaN", '=', '='}
	};
	Oid			ntype = NUMERICOID;
	TupleDesc	ndesc = rec_desc(1, &ntype, 1, false);
	TupleDesc	pdesc;
	TypeCacheEntry *tn = lookup_type_cache(NUMERICOID, TYPECACHE_LT_OPR);
	AttrNumber	att = 1;
	Oid			coll = InvalidOid;
	bool		nf = false;
	SrmKeys    *one = SrmKeysMakeHeap(ndesc, 1, &att, &tn->lt_opr, &coll, &nf);
	SrmKeys    *pair = keys2(INT4OID, NUMERICOID, false, false, false, false, &pdesc);
	uint64		prev64 = 0;
	uint32		prev32 = 0;
	int			i;

	CHECK(one->norm == SRM_NORM_NUMERIC && !one->norm_exhaustive &&
		  SrmKeysNeedTies(one) && !one->abbreviating,
		  "numeric key: norm %d, exhaustive %d, ties %d, abbreviating %d",
		  one->norm, one->norm_exhaustive, SrmKeysNeedTies(one), one->abbreviating);
	CHECK(pair->norm == SRM_NORM_INT32 && pair->norm2 == SRM_NORM_NUMERIC &&
		  !pair->norm2_exact && pair->ties == SRM_TIES_ALL,
		  "(int4, numeric) keys: norm %d, norm2 %d, exact %d, ties %d",
		  pair->norm, pair->norm2, pair->norm2_exact, pair->ties);
	for (i = 0; i < lengthof(seq); i++)
	{
		Datum		v[2] = {Int32GetDatum(7), numeric_of(seq[i].v)};
		bool		isnull[2] = {false, false};
		SrmTuple	t = {0};
		uint64		k64;
		uint32		k32;
		uint8		nrank;

		/* from the tuple: a short varlena header, as tables store it */
		t.tuple = form_minimal(ndesc, &v[1], isnull);
		SrmKeysSetDatum1(one, &t, false);
		k64 = (uint64) t.datum1;
		SrmKeysNormalize(one, v[1], false, &k64, &nrank);
		CHECK(k64 == (uint64) t.datum1 && nrank == SRM_NRANK_VALUE,
			  "numeric %s: key %016llx from the tuple, %016llx from the datum",
			  seq[i].v, (unsigned long long) t.datum1, (unsigned long long) k64);
		t.tuple = form_minimal(pdesc, v, isnull);
		SrmKeysSetDatum1(pair, &t, false);
		k32 = (uint32) t.datum1;
		CHECK((uint32) (t.datum1 >> 32) == SrmKeysPairHi(pair, v[0]),
			  "(int4, numeric %s): high half %08x", seq[i].v, (uint32) (t.datum1 >> 32));
		if (i > 0)
		{
			CHECK(seq[i].rel64 == '<' ? prev64 < k64 : seq[i].rel64 == '=' ? prev64 == k64 :
				  prev64 <= k64,
				  "numeric %s after %s: key %016llx after %016llx, expected '%c'",
				  seq[i].v, seq[i - 1].v, (unsigned long long) k64,
				  (unsigned long long) prev64, seq[i].rel64);
			CHECK(seq[i].rel32 == '<' ? prev32 < k32 : seq[i].rel32 == '=' ? prev32 == k32 :
				  prev32 <= k32,
				  "numeric %s after %s: low half %08x after %08x, expected '%c'",
				  seq[i].v, seq[i - 1].v, k32, prev32, seq[i].rel32);
		}
		prev64 = k64;
		prev32 = k32;
	}
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
		{
			radix_vs_qsort(d, sizes[s], 0, &rng);
			radix_vs_qsort(d, sizes[s], sizes[s] / 5, &rng);
			radix_vs_qsort(d, sizes[s], sizes[s], &rng);
		}
	radix_vs_qsort(0, 1000000, 0, &rng);
	radix_vs_qsort(0, 1000000, 50000, &rng);
	radix_vs_qsort(8, 1000000, 1000000, &rng);

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

	/*
	 * Two keys in one normalized key: (int4, int4) whole, ties compared
	 * only where a NULL second key meets an extreme value; (int4, int8)
	 * with a summary of the int8.  Every order and NULL placement.
	 */
	for (order = 0; order < 8; order++)
	{
		Oid			types[] = {INT4OID, INT4OID};
		Oid			types8[] = {INT4OID, INT8OID};
		TupleDesc	desc = rec_desc(2, types, 2, false);
		TupleDesc	desc8 = rec_desc(2, types8, 2, false);
		TypeCacheEntry *t4 = lookup_type_cache(INT4OID, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		TypeCacheEntry *t8 = lookup_type_cache(INT8OID, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		AttrNumber	att[] = {1, 2};
		Oid			ops[] = {(order & 1) ? t4->gt_opr : t4->lt_opr,
		(order & 2) ? t4->gt_opr : t4->lt_opr};
		Oid			ops8[] = {ops[0], (order & 2) ? t8->gt_opr : t8->lt_opr};
		Oid			colls[] = {InvalidOid, InvalidOid};
		bool		nf[] = {(order & 4) != 0, (order & 1) != 0};
		SrmKeys    *pair = SrmKeysMakeHeap(desc, 2, att, ops, colls, nf);
		SrmKeys    *pair8 = SrmKeysMakeHeap(desc8, 2, att, ops8, colls, nf);
		char		name[64];

		CHECK(pair->norm2 == SRM_NORM_INT32 && pair->norm2_exact &&
			  pair->ties == SRM_TIES_NULL2,
			  "(int4, int4) keys: norm2 %d, exact %d, ties %d",
			  pair->norm2, pair->norm2_exact, pair->ties);
		CHECK(pair8->norm2 == SRM_NORM_INT64 && !pair8->norm2_exact &&
			  pair8->ties == SRM_TIES_ALL,
			  "(int4, int8) keys: norm2 %d, exact %d, ties %d",
			  pair8->norm2, pair8->norm2_exact, pair8->ties);
		for (s = 0; s < lengthof(sizes) && sizes[s] <= 65537; s++)
		{
			snprintf(name, sizeof(name), "(int4, int4) order %d", order);
			radix_ties(name, pair, desc, sizes[s], fill_pair32, &rng);
			snprintf(name, sizeof(name), "(int4, int8) order %d", order);
			radix_ties(name, pair8, desc8, sizes[s], fill_pair64, &rng);
		}
	}

	/*
	 * numeric keys, a prefix: alone (then an int8) and after an int4, in
	 * the low half; ASC and DESC, NULLS FIRST and LAST
	 */
	unit_numeric_keys();
	for (order = 0; order < 4; order++)
	{
		TupleDesc	desc,
					pdesc;
		SrmKeys    *num = keys2(NUMERICOID, INT8OID, (order & 1) != 0, false,
								(order & 2) != 0, (order & 2) == 0, &desc);
		SrmKeys    *pair = keys2(INT4OID, NUMERICOID, (order & 2) != 0, (order & 1) != 0,
								 (order & 1) != 0, (order & 2) != 0, &pdesc);
		char		name[64];

		for (s = 0; s < lengthof(sizes) && sizes[s] <= 65537; s++)
		{
			snprintf(name, sizeof(name), "(numeric, int8) order %d", order);
			radix_ties(name, num, desc, sizes[s], fill_numeric, &rng);
			snprintf(name, sizeof(name), "(int4, numeric) order %d", order);
			radix_ties(name, pair, pdesc, sizes[s], fill_pair_numeric, &rng);
		}
	}

	/* the int8 summary keeps order, and is exact below 2^30 */
	{
		static const int64 v[] = {PG_INT64_MIN, PG_INT64_MIN + 1, -(INT64CONST(1) << 40),
			-(1 << 30) - 1, -(1 << 30), -(1 << 30) + 1, -1, 0, 1, (1 << 30) - 1, 1 << 30,
			(1 << 30) + 63, (1 << 30) + 64, PG_INT32_MAX, INT64CONST(1) << 40,
		PG_INT64_MAX - 1, PG_INT64_MAX};
		int			i;

		for (i = 1; i < lengthof(v); i++)
			CHECK(SrmInt64Norm32(v[i - 1]) <= SrmInt64Norm32(v[i]),
				  "int8 summary: %lld above %lld", (long long) v[i - 1], (long long) v[i]);
		for (i = -1000; i <= 1000; i++)
			CHECK(SrmInt64Norm32((int64) i * 1000000) < SrmInt64Norm32((int64) i * 1000000 + 1),
				  "int8 summary: %lld not exact", (long long) i * 1000000);
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
