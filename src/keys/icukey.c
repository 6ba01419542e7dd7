/*-------------------------------------------------------------------------
 *
 * icukey.c
 *	  Normalized keys of text under ICU collations: the leading primary
 *	  weights of ICU's sort key, from a table for ASCII characters.
 *
 * The key.  For a string s under an ICU collator, K(s) is the primary
 * level of ICU's sort key of s -- the bytes before the first level
 * separator (0x01) or the terminator (0x00) -- cut to 8 bytes, padded with
 * 0x00 and read as a big-endian uint64.  ICU sort keys compare bytewise
 * like ucol_strcoll compares the strings, levels are separated by 0x01,
 * the key ends in 0x00, and no byte within a level is below 0x02.  So if
 * K(a) < K(b), then at the first byte where they differ either both hold
 * primary bytes, a's the smaller, or a's primary level has ended (0x00 in
 * K, 0x01 or 0x00 in a's sort key) where b's goes on (>= 0x02): either way
 * a's sort key is below b's, and a sorts before b.  Equal K decide
 * nothing, and the full comparison (PostgreSQL's, keys.c: key0) breaks the
 * tie; so K is a normalized key that is not exhaustive, like the bytes of
 * "C" text.  Nondeterministic collations are no exception: their equality
 * is key0's.  Only the primary level is kept because it is what a table
 * can give cheaply, and because the first 8 primary bytes tell more
 * strings apart than 8 bytes that run into the secondary level.
 *
 * From ICU (icu_key): ucol_nextSortKeyPart over the UTF-8 string, as
 * PostgreSQL's abbreviated keys call it, for 8 bytes, cut at the first
 * byte below 0x02.  A partial sort key is the beginning of the full one
 * (ICU writes both with the same code since ICU 53; checked with ICU 72 on
 * 1.5 million strings under 15 collations: the first min(8, length - 1)
 * bytes of ucol_getSortKey's key, which ends in 0x00).  Should a version
 * differ, the table's checks below compare against this very function, so
 * the two routes still agree.  It costs about 0.3-1.4 us a string.
 *
 * From the table (table_key).  In most collations each ASCII letter,
 * digit and a few punctuation characters have a primary weight of a
 * single byte: "6931fa..." has the primary bytes 1f 25 19 15 34 2a ....
 * The table maps such a character c to its byte P[c] (0: not in the
 * table), and K(s) of a string whose first min(len, 8) bytes are all in
 * the table is those characters' bytes, zero-padded if the string is
 * shorter.  That is right when the primary weights of these characters
 * depend on nothing around them, and the table admits a character only
 * if
 *
 *	 * the primary level of its own sort key is one byte (so ignorable
 *	   characters, those of several bytes or several weights, and, under
 *	   alternate=shifted, the variable ones are out);
 *	 * it begins no contraction or context (prefix) string whose second
 *	   character is ASCII, by ucol_getContractionsAndExpansions with the
 *	   prefixes: a contraction starting with it (Danish "aa", traditional
 *	   Spanish "ch") could change its weight from the next character on,
 *	   and a prefix string's context must begin with one of the string's
 *	   characters, which the table then never sees (the walk stops at the
 *	   first character outside the table).  A character that begins only
 *	   strings whose second character is not ASCII (root's "l·") stays in,
 *	   flagged: where it is the eighth character, the one after it must be
 *	   ASCII or the end; before that the walk sees the next character
 *	   anyway, and a non-ASCII one ends it;
 *	 * the collation is not numeric (kn), or it is not a digit: numeric
 *	   collation weighs runs of digits as numbers.
 *
 * Other characters cannot change the weights of the ones before them:
 * ICU's contractions, discontiguous ones included (which skip only
 * combining marks, never ASCII), start at their first character, context
 * strings are listed with their contexts, and canonical reordering moves
 * only combining marks, never past an ASCII character.  The rest of the
 * string after the eighth byte therefore changes nothing.  Besides, ICU
 * compresses runs of primaries that share a compressible lead byte;
 * one-byte weights are not of that kind, which the checks confirm.
 *
 * The table is then checked against ICU itself before use: for every pair
 * of primary classes (characters with the same byte share one; their
 * weights differ only below the primary level) K of the two-character
 * string must be the two bytes, and 1536 pseudo-random strings of table
 * characters (a quarter mixed with non-ASCII characters, 1 to 12
 * characters) must give the same K by both routes.  A mismatch discards
 * the table: the collation's keys then all come from ICU.
 *
 * When.  Listing the contractions walks ICU's whole root collation data
 * (longer for tailorings with many context strings), which costs about
 * what some tens of thousands of keys from ICU cost.  A backend therefore
 * makes a collation's first srmsort.debug_icu_table_after keys
 * (SRM_ICU_TABLE_AFTER) through ICU, counting over all its sorts, and only
 * then builds the table: small sorts never pay for it, and the table costs
 * about what the keys before it did.  The keys are the same either way, so a run written before the
 * table exists merges with runs after it, and the participants of a
 * parallel build need not agree on having it.
 *
 * One SrmIcuKey per collation and backend, in TopMemoryContext, found by
 * the collation's OID and its UCollator (PostgreSQL's own cache of
 * collators, which this one follows, is never invalidated either).
 *
 * IDENTIFICATION
 *	  src/keys/icukey.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "mb/pg_wchar.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"

#ifdef USE_ICU
#include <unicode/ucol.h>
#include <unicode/uiter.h>
#include <unicode/uset.h>
#include <unicode/utf16.h>
#endif

#include "base/compat.h"
#include "base/settings.h"
#include "keys/icukey.h"

#ifdef USE_ICU

#define SRM_ICU_RANDOM_STRINGS	1536
#define SRM_ICU_RANDOM_MAXLEN	12
#define SRM_ICU_ITEM_MAX		64	/* longest contraction string read */

typedef enum SrmIcuState
{
	SRM_ICU_COUNTING,			/* no table yet: keys from ICU, counted */
	SRM_ICU_TABLE,				/* the table is built and checked */
	SRM_ICU_NO_TABLE			/* it was refused: every key from ICU */
} SrmIcuState;

struct SrmIcuKey
{
	Oid			collid;
	UCollator  *coll;			/* PostgreSQL's, for this collation */
	struct SrmIcuKey *next;
	SrmIcuState state;
	int64		nicu;			/* keys made by ICU while counting */
	/* byte -> its one primary byte, 0 if not in the table (>= 0x80: 0) */
	uint8		prim[256];
	/* in the table, but only if not followed by a non-ASCII character */
	bool		before_ascii[128];
};

static SrmIcuKey *icu_keys = NULL;

/*
 * cut_primary
 *		A sort key's first n (<= 8) bytes as K: up to the first byte
 *		below 0x02, zero-padded, big-endian.
 */
static inline uint64
cut_primary(const uint8 *b, int n)
{
	uint64		u = 0;
	int			i;

	for (i = 0; i < 8; i++)
	{
		uint8		c = i < n ? b[i] : 0;

		if (c <= 0x01)
			return i == 0 ? 0 : u << (8 * (8 - i));
		u = (u << 8) | c;
	}
	return u;
}

/*
 * icu_key
 *		K(s) from ICU: 8 bytes of the sort key, cut at the primary level.
 */
static uint64
icu_key(SrmIcuKey *ik, const char *s, int len)
{
	UCharIterator iter;
	uint32_t	state[2] = {0, 0};
	uint8		buf[8];
	UErrorCode	status = U_ZERO_ERROR;
	int32_t		n;

	uiter_setUTF8(&iter, s, len);
	n = ucol_nextSortKeyPart(ik->coll, &iter, state, buf, sizeof(buf), &status);
	if (U_FAILURE(status))
		ereport(ERROR,
				(errmsg("sort key generation failed: %s",
						u_errorName(status))));
	return cut_primary(buf, n);
}

/*
 * table_key
 *		K(s) from the table, if s[0..len) decides it: its first min(len, 8)
 *		bytes are all characters of the table (so min(len, 8) primary
 *		bytes), and, at eight, the eighth character may be followed by
 *		what follows it.  complete: s ends at len (else it goes on).
 */
static inline bool
table_key(const SrmIcuKey *ik, const unsigned char *s, int len,
		  bool complete, uint64 *key)
{
	uint64		u = 0;
	int			n = Min(len, 8);
	int			i;

	for (i = 0; i < n; i++)
	{
		uint8		w = ik->prim[s[i]];

		if (w == 0)
			return false;
		u = (u << 8) | w;
	}
	if (n < 8)
	{
		if (!complete)
			return false;
		*key = n == 0 ? 0 : u << (8 * (8 - n));
		return true;
	}
	if (ik->before_ascii[s[7]])
	{
		if (len > 8 ? s[8] >= 0x80 : !complete)
			return false;
	}
	*key = u;
	return true;
}

/*
 * scan_contractions
 *		Exclude (excluded[c]) or flag (before_ascii) the ASCII characters
 *		that begin a contraction or context string of the collator.  False
 *		if ICU cannot list them.
 */
static bool
scan_contractions(SrmIcuKey *ik, bool *excluded)
{
	UErrorCode	status = U_ZERO_ERROR;
	USet	   *set = uset_openEmpty();
	int32_t		nitems;
	int32_t		i;
	bool		ok = true;

	if (set == NULL)
		return false;
	ucol_getContractionsAndExpansions(ik->coll, set, NULL, true, &status);
	if (U_FAILURE(status))
	{
		uset_close(set);
		return false;
	}
	nitems = uset_getItemCount(set);
	for (i = 0; i < nitems && ok; i++)
	{
		UChar32		start,
					end;
		UChar		str[SRM_ICU_ITEM_MAX];
		int32_t		len;
		int32_t		off = 0;
		UChar32		c0,
					c1 = -1;

		status = U_ZERO_ERROR;
		len = uset_getItem(set, i, &start, &end, str, lengthof(str), &status);
		if (U_FAILURE(status))
			ok = false;			/* a string too long to read: no table */
		else if (len == 0)
		{
			/* a range of single code points: not expected; exclude them */
			for (; start <= end && start < 128; start++)
				excluded[start] = true;
		}
		else
		{
			U16_NEXT(str, off, len, c0);
			if (off < len)
				U16_NEXT(str, off, len, c1);
			if (c0 < 128)
			{
				if (c1 >= 0 && c1 < 128)
					excluded[c0] = true;
				else
					ik->before_ascii[c0] = true;
			}
		}
	}
	uset_close(set);
	return ok;
}

/*
 * random_next
 *		A xorshift generator: the checks are the same in every backend.
 */
static inline uint32
random_next(uint32 *state)
{
	uint32		x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/*
 * check_table
 *		Compare the table with ICU (see the header).  NULL if they agree,
 *		else what failed.
 */
static const char *
check_table(SrmIcuKey *ik)
{
	static const char *const others[] = {
		"\xc3\xa9",				/* é */
		"\xcc\x81",				/* combining acute accent */
		"\xc2\xb7",				/* middle dot (root's "l·") */
		"\xc3\x9f",				/* ß */
		"\xe6\x97\xa5",			/* a CJK ideograph */
		"\xf0\x9f\x98\x80"		/* an emoji */
	};
	char		chars[128];
	char		classes[128];
	int			nchars = 0;
	int			nclasses = 0;
	bool		seen[256] = {false};
	uint32		rng = 0x5eed1c0u;
	int			a,
				b,
				i;

	for (a = 1; a < 128; a++)
	{
		if (ik->prim[a] == 0)
			continue;
		chars[nchars++] = (char) a;
		if (!seen[ik->prim[a]])
		{
			seen[ik->prim[a]] = true;
			classes[nclasses++] = (char) a;
		}
	}

	/* every pair of primary classes: the two bytes, nothing between */
	for (a = 0; a < nclasses; a++)
	{
		for (b = 0; b < nclasses; b++)
		{
			char		s[2] = {classes[a], classes[b]};
			uint64		want = ((uint64) ik->prim[(uint8) s[0]] << 56) |
				((uint64) ik->prim[(uint8) s[1]] << 48);

			if (icu_key(ik, s, 2) != want)
				return "a pair of characters";
		}
	}

	/* strings of table characters, a quarter with others mixed in */
	for (i = 0; i < SRM_ICU_RANDOM_STRINGS; i++)
	{
		char		s[SRM_ICU_RANDOM_MAXLEN * 4];
		int			nc = 1 + random_next(&rng) % SRM_ICU_RANDOM_MAXLEN;
		int			len = 0;
		int			j;
		uint64		key;

		for (j = 0; j < nc; j++)
		{
			if (i % 4 == 3 && random_next(&rng) % 4 == 0)
			{
				const char *o = others[random_next(&rng) % lengthof(others)];

				memcpy(s + len, o, strlen(o));
				len += strlen(o);
			}
			else
				s[len++] = chars[random_next(&rng) % nchars];
		}
		if (table_key(ik, (const unsigned char *) s, len, true, &key) &&
			key != icu_key(ik, s, len))
			return "a string of characters";
	}
	return NULL;
}

/*
 * build_table
 *		Build and check the collation's table; leaves state SRM_ICU_TABLE
 *		or SRM_ICU_NO_TABLE.
 */
static void
build_table(SrmIcuKey *ik)
{
	bool		excluded[128] = {false};
	UErrorCode	status = U_ZERO_ERROR;
	bool		numeric;
	const char *why = NULL;
	int			nchars = 0;
	int			c;
	instr_time	start,
				listed,
				duration;

	INSTR_TIME_SET_CURRENT(start);
	memset(ik->prim, 0, sizeof(ik->prim));
	memset(ik->before_ascii, 0, sizeof(ik->before_ascii));

	if (!scan_contractions(ik, excluded))
		why = "its contractions could not be listed";
	INSTR_TIME_SET_CURRENT(listed);
	INSTR_TIME_SUBTRACT(listed, start);
	numeric = ucol_getAttribute(ik->coll, UCOL_NUMERIC_COLLATION, &status) == UCOL_ON;
	if (U_FAILURE(status))
		why = "its numeric attribute could not be read";

	/* NUL never occurs in text */
	for (c = 1; c < 128 && why == NULL; c++)
	{
		char		s = (char) c;
		uint64		key;

		if (excluded[c] || (numeric && c >= '0' && c <= '9'))
			continue;
		key = icu_key(ik, &s, 1);
		if (key != 0 && (key & ~(UINT64CONST(0xff) << 56)) == 0)
		{
			ik->prim[c] = (uint8) (key >> 56);
			nchars++;
		}
	}
	if (why == NULL && nchars == 0)
		why = "no character has a primary weight of one byte";
	if (why == NULL)
		why = check_table(ik);

	if (why != NULL)
	{
		memset(ik->prim, 0, sizeof(ik->prim));
		ik->state = SRM_ICU_NO_TABLE;
	}
	else
		ik->state = SRM_ICU_TABLE;

	INSTR_TIME_SET_CURRENT(duration);
	INSTR_TIME_SUBTRACT(duration, start);
	if (why == NULL)
		elog(DEBUG1, "srmsort: ICU keys of collation %u: table of %d characters built in %.3f ms (%.3f ms listing contractions)",
			 ik->collid, nchars, INSTR_TIME_GET_MILLISEC(duration),
			 INSTR_TIME_GET_MILLISEC(listed));
	else
		elog(DEBUG1, "srmsort: ICU keys of collation %u: no table (%s), %.3f ms",
			 ik->collid, why, INSTR_TIME_GET_MILLISEC(duration));
}

/*
 * SrmIcuKeyLookup
 *		The key maker of collation coll (valid, not "C"), made on first use.
 */
SrmIcuKey *
SrmIcuKeyLookup(Oid coll)
{
	UCollator  *ucol;
	SrmIcuKey  *ik;

	if (GetDatabaseEncoding() != PG_UTF8)
		return NULL;
	ucol = SrmIcuCollator(coll);
	if (ucol == NULL)
		return NULL;
	for (ik = icu_keys; ik != NULL; ik = ik->next)
	{
		if (ik->collid == coll && ik->coll == ucol)
			return ik;
	}
	ik = MemoryContextAllocZero(TopMemoryContext, sizeof(SrmIcuKey));
	ik->collid = coll;
	ik->coll = ucol;
	ik->state = SRM_ICU_COUNTING;
	ik->next = icu_keys;
	icu_keys = ik;
	return ik;
}

/*
 * SrmIcuKeyMake
 *		K(s): from the table where it decides it, else from ICU (counted,
 *		until the table is built).
 */
uint64
SrmIcuKeyMake(SrmIcuKey *ik, const char *s, int len)
{
	uint64		key;

	if (likely(ik->state == SRM_ICU_TABLE) && srmsort_debug_icu_table_after >= 0 &&
		table_key(ik, (const unsigned char *) s, len, true, &key))
		return key;
	if (ik->state == SRM_ICU_COUNTING && srmsort_debug_icu_table_after >= 0 &&
		++ik->nicu > srmsort_debug_icu_table_after)
	{
		build_table(ik);
		if (ik->state == SRM_ICU_TABLE &&
			table_key(ik, (const unsigned char *) s, len, true, &key))
			return key;
	}
	return icu_key(ik, s, len);
}

/*
 * SrmIcuKeyMakePrefix
 *		K(s) from the leading bytes s[0..len) of a longer string, if the
 *		table decides it from them.
 */
bool
SrmIcuKeyMakePrefix(SrmIcuKey *ik, const char *s, int len, uint64 *key)
{
	return ik->state == SRM_ICU_TABLE && srmsort_debug_icu_table_after >= 0 &&
		table_key(ik, (const unsigned char *) s, len, false, key);
}

#else							/* !USE_ICU */

/* Without ICU there are no ICU collations. */
SrmIcuKey *
SrmIcuKeyLookup(Oid coll)
{
	return NULL;
}

uint64
SrmIcuKeyMake(SrmIcuKey *ik, const char *s, int len)
{
	elog(ERROR, "srmsort: ICU keys without ICU");
	return 0;
}

bool
SrmIcuKeyMakePrefix(SrmIcuKey *ik, const char *s, int len, uint64 *key)
{
	return false;
}

#endif							/* USE_ICU */
