/*-------------------------------------------------------------------------
 *
 * keys.h
 *	  Sort keys of a sort and the comparison of tuples through SortSupport.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/keys/keys.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_KEYS_H
#define SRM_KEYS_H

#include "access/htup_details.h"
#include "access/itup.h"
#include "access/skey.h"
#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
#include "utils/rel.h"
#include "utils/sortsupport.h"

/*
 * One tuple in memory: the tuple itself (a MinimalTuple for heap sorts, an
 * IndexTuple for index sorts) and its first key: normalized where the key
 * has a normalized form, else abbreviated (run formation only) or in full.
 */
typedef struct SrmTuple
{
	void	   *tuple;
	Datum		datum1;			/* first key: abbreviated, full or normalized */
	uint32		len;			/* the tuple's length (run formation) */
	bool		isnull1;
	uint8		nrank;			/* normalized keys: NULL rank (see below) */
} SrmTuple;

/*
 * Normalized first keys.  For types whose order is the order of a 64-bit
 * unsigned integer derived from the value (integers, floats, date/time
 * types, bool, oid; a prefix of the bytes for uuid, bytea and text under
 * the "C" collation; the leading primary weights for text under ICU; the
 * sign, weight and leading digits of a numeric),
 * datum1 holds that integer with DESC folded in, and nrank orders NULLs:
 * 0 = NULLS FIRST null, 1 = a value, 2 = NULLS LAST null.  (nrank, datum1)
 * then compare as plain integers.  "Exhaustive" normalizations determine
 * the key completely; the others need the full comparison on ties.  (A
 * first key of 32 bits or fewer may carry the second key in its low half,
 * whole or a summary: nrank is then the first's, SrmKeysPairKey.)
 */
typedef enum SrmNormKind
{
	SRM_NORM_NONE = 0,
	SRM_NORM_INT16,
	SRM_NORM_INT32,
	SRM_NORM_INT64,
	SRM_NORM_FLOAT4,
	SRM_NORM_FLOAT8,
	SRM_NORM_BOOL,
	SRM_NORM_OID,
	SRM_NORM_BYTES,				/* varlena bytes under memcmp order: prefix */
	SRM_NORM_ICU,				/* text under ICU: primary weights (icukey.c) */
	SRM_NORM_NUMERIC,			/* numeric: sign, weight, leading digits */
	SRM_NORM_ABBREV				/* the opclass's unsigned abbreviated key */
} SrmNormKind;

#define SRM_NRANK_FIRST		0
#define SRM_NRANK_VALUE		1
#define SRM_NRANK_LAST		2

typedef enum SrmKeyKind
{
	SRM_KEYS_HEAP,
	SRM_KEYS_INDEX
} SrmKeyKind;

/*
 * Which tuples of equal normalized keys still need comparing: all, none
 * (the key is the one sort key in full), or (two keys whose normalized key
 * holds both whole) only those whose low half is where the second key's
 * NULLs go, shared with its least or greatest value.
 */
typedef enum SrmTies
{
	SRM_TIES_ALL = 0,			/* the safe default of zeroed keys */
	SRM_TIES_NONE,
	SRM_TIES_NULL2
} SrmTies;

typedef struct SrmKeys
{
	SrmKeyKind	kind;
	int			nkeys;
	SortSupport sortKeys;		/* nkeys; [0] may use abbreviated keys */
	SortSupportData key0;		/* first key, never abbreviated */
	bool		abbreviating;	/* sortKeys[0] has an abbrev converter */
	SrmNormKind norm;			/* normalization of the first key */
	bool		norm_exhaustive;	/* it determines the first key fully */
	bool		norm_desc;
	bool		norm_nulls_first;
	bool		norm_uuid;		/* SRM_NORM_BYTES on a uuid (not varlena) */
	/* a second key in the normalized key's low half (keys.c, pair_key) */
	SrmNormKind norm2;
	bool		norm2_exact;	/* the low half is that key's whole value */
	bool		norm2_desc;
	bool		norm2_nulls_first;
	bool		norm2_uuid;
	SrmTies		ties;			/* which equal normalized keys need the tuples */
	struct SrmIcuKey *icu;		/* SRM_NORM_ICU: the collation's key maker */
	int64		abbrevNext;		/* tuple count of the next abort check */
	TupleDesc	tupdesc;		/* heap: input tuples; index: the index's */
} SrmKeys;

extern SrmKeys *SrmKeysMakeHeap(TupleDesc tupdesc, int nkeys,
								AttrNumber *attNums, Oid *sortOperators,
								Oid *sortCollations, bool *nullsFirstFlags);
extern SrmKeys *SrmKeysMakeIndex(Relation indexRel);
extern SrmKeys *SrmKeysMakeIndexOrder(Relation indexRel, TupleDesc tupdesc);

/* GiST index tuples of indexRel: opclass sortsupport on its keys, then TID. */
extern SrmKeys *SrmKeysMakeGist(Relation indexRel);

/* One btree index key column's SortSupport, from its scan key. */
extern void SrmKeysPrepareIndexKey(Relation indexRel, ScanKey scanKey,
								   SortSupport ssup, bool abbreviate);

/* The first key of a stored tuple, in full (forecast keys). */
extern Datum SrmKeysGetKey0(SrmKeys *keys, const void *tuple, bool *isnull);

/* Type of the first key: for copying forecast keys (SrmRecFormat). */
extern void SrmKeysKey0Type(SrmKeys *keys, bool *byval, int16 *typlen);

/* Set datum1/isnull1 of t from its tuple; abbreviated if requested. */
extern void SrmKeysSetDatum1(SrmKeys *keys, SrmTuple *t, bool abbreviated);

/* Compare two tuples whose datum1 are abbreviated (run formation). */
extern int	SrmCompareAbbrev(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys);

/*
 * Break a tie on datum1 (abbreviated or not): the full first key if it was
 * abbreviated, then the other keys (and heap TIDs for index sorts).
 */
extern int	SrmCompareTiebreak(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys);

/* Compare two tuples whose datum1 are full values (merges). */
extern int	SrmCompareFull(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys);

/* The normalized first key and NULL rank of a value. */
extern void SrmKeysNormalize(SrmKeys *keys, Datum d, bool isnull,
							 uint64 *key, uint8 *nrank);

/* The same for a SRM_NORM_BYTES value given as its bytes. */
extern void SrmKeysNormalizeBytes(SrmKeys *keys, const unsigned char *p,
								  Size len, uint64 *key, uint8 *nrank);

/*
 * SrmBytesNorm
 *		The first 8 bytes of p[0..len), big-endian, zero-padded: memcmp
 *		order of the prefix (SRM_NORM_BYTES before DESC).
 */
static inline uint64
SrmBytesNorm(const unsigned char *p, Size len)
{
	uint64		u = 0;
	int			i;

	if (len >= 8)
	{
		/* one load and a byte swap instead of eight shifts */
		memcpy(&u, p, 8);
		return pg_ntoh64(u);
	}
	for (i = 0; i < 8; i++)
		u = (u << 8) | (i < (int) len ? p[i] : 0);
	return u;
}

/*
 * SrmIntNorm
 *		A signed integer as a normalized key: the sign bit flipped, so that
 *		unsigned order is the integers' order.
 */
static inline uint64
SrmIntNorm(int64 v)
{
	return (uint64) v ^ UINT64CONST(0x8000000000000000);
}

/* A normalized key with DESC folded in: inverted, so that order flips. */
static inline uint64
SrmNormFold(uint64 u, bool desc)
{
	return desc ? ~u : u;
}

/*
 * SrmKeysNeedTies
 *		Whether equal normalized keys may still need the tuples compared:
 *		not when the key encodes the one and only sort key in full (index
 *		sorts also order by heap TID).
 */
static inline bool
SrmKeysNeedTies(SrmKeys *keys)
{
	return keys->ties != SRM_TIES_NONE;
}

/* The low half a NULL second key takes (pair_key): first or last. */
static inline uint32
SrmKeysNull2Lo(SrmKeys *keys)
{
	return keys->norm2_nulls_first ? 0 : PG_UINT32_MAX;
}

/*
 * SrmKeysTieAt
 *		Whether tuples whose normalized keys both equal key need comparing.
 */
static inline bool
SrmKeysTieAt(SrmKeys *keys, uint64 key)
{
	if (keys->ties != SRM_TIES_NULL2)
		return keys->ties == SRM_TIES_ALL;
	return (uint32) key == SrmKeysNull2Lo(keys);
}

/* Compare two tuples with normalized first keys. */
static inline int
SrmCompareNorm(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys)
{
	if (a->nrank != b->nrank)
		return a->nrank < b->nrank ? -1 : 1;
	if (a->datum1 != b->datum1)
		return a->datum1 < b->datum1 ? -1 : 1;
	if (!SrmKeysTieAt(keys, (uint64) a->datum1))
		return 0;
	return SrmCompareTiebreak(a, b, keys);
}

/*
 * SrmNorm32
 *		The 32-bit normalized form (before DESC) of a non-NULL value of a
 *		key of at most 32 bits (int2, int4, date, bool, oid), whole: the
 *		high half of a two-key normalized key, or the low half.  bool is 1
 *		or 2, so that no value takes a NULL's 0 or PG_UINT32_MAX.
 */
static inline uint32
SrmNorm32(SrmNormKind kind, Datum d)
{
	switch (kind)
	{
		case SRM_NORM_INT16:
			return (uint32) (int32) DatumGetInt16(d) ^ 0x80000000;
		case SRM_NORM_INT32:
			return (uint32) DatumGetInt32(d) ^ 0x80000000;
		case SRM_NORM_BOOL:
			return DatumGetBool(d) ? 2 : 1;
		default:
			Assert(kind == SRM_NORM_OID);
			return DatumGetObjectId(d);
	}
}

/*
 * SrmInt64Norm32
 *		An order-preserving 32-bit summary of a 64-bit integer, the low half
 *		for an int8 or timestamp second key: v itself while |v| < 2^30 (ids,
 *		counts, amounts), beyond that its magnitude's bit length and the 24
 *		bits after the leading one (a timestamp to about half a minute),
 *		where the leading 32 bits would hold only the sign for the former
 *		and hour-long steps for the latter.
 */
static inline uint32
SrmInt64Norm32(int64 v)
{
	uint64		m = v < 0 ? ~(uint64) v : (uint64) v;	/* -v - 1 if negative */
	uint32		c;

	if (m < (UINT64CONST(1) << 30))
		c = (uint32) m;
	else
	{
		int			e = pg_leftmost_one_pos64(m);	/* 30 to 62 */

		c = ((uint32) 1 << 30) + ((uint32) (e - 30) << 24) +
			(uint32) ((m >> (e - 24)) & 0xFFFFFF);
	}
	/* c < 2^30 + 33 * 2^24 < 2^31 */
	return v < 0 ? 0x7FFFFFFF - c : 0x80000000 + c;
}

/*
 * The leading 32 bits of a second key's normalized form, or for a numeric
 * a 32-bit summary of its own (keys.c).
 */
extern uint32 SrmKeysNorm2Prefix(SrmKeys *keys, Datum d2);

/* The high half of a two-key normalized key: first key d, not NULL. */
static inline uint32
SrmKeysPairHi(SrmKeys *keys, Datum d)
{
	uint32		hi = SrmNorm32(keys->norm, d);

	return keys->norm_desc ? ~hi : hi;
}

/*
 * The low half: second key d2, not NULL, whole where it has at most 32 bits
 * (norm2_exact).
 */
static inline uint32
SrmKeysPairLo(SrmKeys *keys, Datum d2)
{
	uint32		lo;

	if (keys->norm2_exact)
		lo = SrmNorm32(keys->norm2, d2);
	else if (keys->norm2 == SRM_NORM_INT64)
		lo = SrmInt64Norm32(DatumGetInt64(d2));
	else
		lo = SrmKeysNorm2Prefix(keys, d2);
	return keys->norm2_desc ? ~lo : lo;
}

/*
 * SrmKeysPairKey
 *		The normalized key of a tuple whose first key d (of at most 32 bits)
 *		and second key d2 are both not NULL.
 */
static inline uint64
SrmKeysPairKey(SrmKeys *keys, Datum d, Datum d2)
{
	return ((uint64) SrmKeysPairHi(keys, d) << 32) | SrmKeysPairLo(keys, d2);
}

/* Compare two first-key values in full (forecasts). */
static inline int
SrmCompareKey0(Datum a, bool anull, Datum b, bool bnull, SrmKeys *keys)
{
	return ApplySortComparator(a, anull, b, bnull, &keys->key0);
}

/*
 * Decide, after n tuples of the first run, whether abbreviation still
 * pays; if not, switch to full keys and recompute datum1 of tuples[0..n).
 */
/*
 * First-key comparisons for the specialized quicksorts of runs.c: datum1
 * read as a signed word, an unsigned word or an int32, NULLs placed as the
 * key asks, DESC inverted.  They stand for sortsupport.h's inline
 * comparators of the same kinds, which PostgreSQL 19 no longer exports.
 */
static inline int
SrmCmpNulls(bool anull, bool bnull, SortSupport ssup)
{
	if (anull && bnull)
		return 0;
	return (anull == ssup->ssup_nulls_first) ? -1 : 1;
}

#define SRM_CMP_WORDS(type, get) \
static inline int \
SrmCmp##type(Datum a, bool anull, Datum b, bool bnull, SortSupport ssup) \
{ \
	int			cmp; \
\
	if (anull || bnull) \
		return SrmCmpNulls(anull, bnull, ssup); \
	cmp = get(a) < get(b) ? -1 : get(a) > get(b) ? 1 : 0; \
	return ssup->ssup_reverse ? -cmp : cmp; \
}

SRM_CMP_WORDS(Signed, DatumGetInt64)
SRM_CMP_WORDS(Unsigned, DatumGetUInt64)
SRM_CMP_WORDS(Int32, DatumGetInt32)

extern void SrmKeysConsiderAbort(SrmKeys *keys, SrmTuple *tuples, int64 n);

/* Whether SrmKeysConsiderAbort has a question for a load of n tuples. */
static inline bool
SrmKeysAbortDue(SrmKeys *keys, int64 n)
{
	return keys->abbreviating && n >= keys->abbrevNext;
}

/* Stop abbreviating for good (merges, or once the sort spills). */
extern void SrmKeysStopAbbrev(SrmKeys *keys);

#endif							/* SRM_KEYS_H */
