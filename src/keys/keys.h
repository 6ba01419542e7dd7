/*-------------------------------------------------------------------------
 *
 * keys.h
 *	  Sort keys of a sort and the comparison of tuples through SortSupport.
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
 * the "C" collation; the leading primary weights for text under ICU),
 * datum1 holds that integer with DESC folded in, and nrank orders NULLs:
 * 0 = NULLS FIRST null, 1 = a value, 2 = NULLS LAST null.  (nrank, datum1)
 * then compare as plain integers.  "Exhaustive" normalizations determine
 * the key completely; the others need the full comparison on ties.  (A
 * first key of 32 bits or fewer may carry the second key's leading bits in
 * its low half: then it is a prefix of the two keys, nrank the first's.)
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
	bool		norm2_desc;
	bool		norm2_nulls_first;
	bool		norm2_uuid;
	struct SrmIcuKey *icu;		/* SRM_NORM_ICU: the collation's key maker */
	int64		abbrevNext;		/* tuple count of the next abort check */
	TupleDesc	tupdesc;		/* heap: input tuples; index: the index's */
} SrmKeys;

extern SrmKeys *SrmKeysMakeHeap(TupleDesc tupdesc, int nkeys,
								AttrNumber *attNums, Oid *sortOperators,
								Oid *sortCollations, bool *nullsFirstFlags);
extern SrmKeys *SrmKeysMakeIndex(Relation indexRel);
extern SrmKeys *SrmKeysMakeIndexOrder(Relation indexRel, TupleDesc tupdesc);

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
 *		Whether equal normalized keys still need the tuples compared: they
 *		do unless the key encodes the one and only sort key in full (index
 *		sorts also order by heap TID).
 */
static inline bool
SrmKeysNeedTies(SrmKeys *keys)
{
	return !(keys->norm_exhaustive && keys->nkeys == 1 &&
			 keys->kind != SRM_KEYS_INDEX);
}

/* Compare two tuples with normalized first keys. */
static inline int
SrmCompareNorm(const SrmTuple *a, const SrmTuple *b, SrmKeys *keys)
{
	if (a->nrank != b->nrank)
		return a->nrank < b->nrank ? -1 : 1;
	if (a->datum1 != b->datum1)
		return a->datum1 < b->datum1 ? -1 : 1;
	return SrmCompareTiebreak(a, b, keys);
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

/* Stop abbreviating for good (merges, or once the sort spills). */
extern void SrmKeysStopAbbrev(SrmKeys *keys);

#endif							/* SRM_KEYS_H */
