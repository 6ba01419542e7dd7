/*-------------------------------------------------------------------------
 *
 * radix.c
 *	  Sorting tuples on their normalized first keys alone.
 *
 * An MSD radix sort on (NULL rank, 64-bit normalized key), insertion sort
 * for small buckets, no comparator.  Digits are sorted in place (American
 * flag sort) while a bucket is larger than the scratch space the caller
 * gives, and out of place, twice as fast, once it fits.  Where
 * the normalized key does not decide the order by itself, each group of
 * equal keys is then sorted with the full comparison (SrmRadixFixTies).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/keys/radix.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"

#include "keys/radix.h"

/* quicksort of tie groups with the full comparison, from PostgreSQL */
#define ST_SORT srm_qsort_norm
#define ST_ELEMENT_TYPE SrmTuple
#define ST_COMPARE(a, b, arg) SrmCompareNorm(a, b, arg)
#define ST_COMPARE_ARG_TYPE SrmKeys
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

#define SRM_RADIX_MIN		64	/* smaller buckets: insertion sort */
#define SRM_RADIX_WIDE		8192	/* smaller buckets: one wide digit */
#define SRM_RADIX_MAX_BITS	11
#define SRM_RADIX_PREFETCH	65536	/* larger buckets: prefetch bucket heads */

/*
 * insertion_sort
 *		What every radix bucket ends in: a few dozen tuples, ordered by
 *		datum1 without calls or recursion.
 */
static void
insertion_sort(SrmTuple *a, int64 n)
{
	int64		i,
				j;

	for (i = 1; i < n; i++)
	{
		SrmTuple	t = a[i];

		for (j = i; j > 0 && a[j - 1].datum1 > t.datum1; j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

/*
 * digit_bits
 *		Bits of the next digit for a bucket of n tuples.  Eight while the
 *		tuples are many (a wider digit's scatter misses the caches); for a
 *		smaller bucket, about log2(n) bits, so that one pass leaves one or
 *		two tuples per sub-bucket for the insertion sort rather than a few
 *		dozen.
 */
static inline int
digit_bits(int64 n)
{
	if (n >= SRM_RADIX_WIDE)
		return 8;
	return Min(pg_leftmost_one_pos64((uint64) n), SRM_RADIX_MAX_BITS);
}

/*
 * count_digits
 *		The digit of the bits below hibit to sort n tuples on, and how many
 *		tuples take each of its values.  A digit all tuples share is skipped
 *		without moving anything.  False when no bits are left: all keys are
 *		equal.
 */
static bool
count_digits(const SrmTuple *a, int64 n, int hibit, int64 *count,
			 int *shift_out, uint64 *mask_out)
{
	int			shift;
	uint64		mask;
	int64		i;

	for (;;)
	{
		if (hibit <= 0)
			return false;
		shift = Max(hibit - digit_bits(n), 0);
		mask = ((uint64) 1 << (hibit - shift)) - 1;
		memset(count, 0, sizeof(int64) * (mask + 1));
		for (i = 0; i < n; i++)
			count[((uint64) a[i].datum1 >> shift) & mask]++;
		if (count[((uint64) a[0].datum1 >> shift) & mask] != n)
			break;
		hibit = shift;
	}
	*shift_out = shift;
	*mask_out = mask;
	return true;
}

/*
 * sort_apart
 *		Sort the n tuples of x (whose datum1 agree from hibit up) with y, as
 *		large, for scratch: the result ends in x if in_x, else in y.  Each
 *		digit is a scatter from one array into the other, a store per tuple
 *		without the in-place permutation's chain of dependent loads and
 *		mispredicted branches: about twice as fast.
 */
static void
sort_apart(SrmTuple *x, SrmTuple *y, int64 n, int hibit, bool in_x)
{
	int64		count[1 << SRM_RADIX_MAX_BITS];
	int			shift;
	uint64		mask;
	int64		i,
				pos;
	int			b;
	int			nb;
	bool		small = false;
	SrmTuple   *res = in_x ? x : y;

	CHECK_FOR_INTERRUPTS();
	if (n < SRM_RADIX_MIN || !count_digits(x, n, hibit, count, &shift, &mask))
	{
		if (!in_x)
			memcpy(y, x, n * sizeof(SrmTuple));
		insertion_sort(res, n);
		return;
	}
	nb = (int) mask + 1;
	/* count[] becomes each bucket's start, then (scattered) its end */
	for (b = 0, pos = 0; b < nb; b++)
	{
		int64		c = count[b];

		count[b] = pos;
		pos += c;
	}
	for (i = 0; i < n; i++)
		y[count[((uint64) x[i].datum1 >> shift) & mask]++] = x[i];

	/*
	 * The buckets are in y now.  Large ones are sorted on the next digit,
	 * into whichever array holds the result; small ones go to it as they
	 * are (each stretch of them in one copy), for one insertion sort over
	 * the whole range (as radix_sort).
	 */
	pos = 0;					/* where the small buckets not copied begin */
	for (b = 0, i = 0; b < nb; b++)
	{
		int64		m = count[b] - i;

		if (m >= SRM_RADIX_MIN)
		{
			if (in_x && i > pos)
				memcpy(x + pos, y + pos, (i - pos) * sizeof(SrmTuple));
			sort_apart(y + i, x + i, m, shift, !in_x);
			pos = count[b];
		}
		else
			small |= m > 1;
		i = count[b];
	}
	if (in_x && n > pos)
		memcpy(x + pos, y + pos, (n - pos) * sizeof(SrmTuple));
	if (small)
		insertion_sort(res, n);
}

/*
 * radix_sort
 *		Sort tuples whose datum1 agree on the bits from hibit up, on the bits
 *		below hibit, a digit at a time: in place while there are more than
 *		nscratch, then out of place with scratch.
 */
static void
radix_sort(SrmTuple *a, int64 n, int hibit, SrmTuple *scratch, int64 nscratch)
{
	/*
	 * 32kB of stack per level; a level takes 8 bits, or at least 6 below
	 * SRM_RADIX_WIDE, so there are a dozen levels at most.
	 */
	int64		count[1 << SRM_RADIX_MAX_BITS];
	int64		next[1 << SRM_RADIX_MAX_BITS];
	int			shift;
	uint64		mask;
	int64		i;
	int			b;
	int			nb;
	bool		small = false;

	CHECK_FOR_INTERRUPTS();
	if (n < SRM_RADIX_MIN)
	{
		insertion_sort(a, n);
		return;
	}
	if (n <= nscratch)
	{
		sort_apart(a, scratch, n, hibit, true);
		return;
	}
	if (!count_digits(a, n, hibit, count, &shift, &mask))
		return;					/* all keys equal */
	nb = (int) mask + 1;

	next[0] = 0;
	for (b = 1; b < nb; b++)
		next[b] = next[b - 1] + count[b - 1];
	/* count[] becomes each bucket's end */
	for (b = 0; b < nb; b++)
		count[b] += next[b];

	/*
	 * Permute in place: cycle each misplaced element into its bucket.  In
	 * an array larger than the caches every bucket head is a miss, one
	 * after the other; fetching a few elements ahead of each head hides
	 * them.
	 */
	for (b = 0; b < nb; b++)
	{
		while (next[b] < count[b])
		{
			SrmTuple	t = a[next[b]];
			int			tb = ((uint64) t.datum1 >> shift) & mask;

			while (tb != b)
			{
				SrmTuple	u = a[next[tb]];

				a[next[tb]++] = t;
#ifdef __GNUC__
				if (n >= SRM_RADIX_PREFETCH)
					__builtin_prefetch(&a[next[tb] + 8], 1);
#endif
				t = u;
				tb = ((uint64) t.datum1 >> shift) & mask;
			}
			a[next[b]++] = t;
		}
	}

	/*
	 * next[b] is now bucket b's end.  Large buckets are sorted on the next
	 * digit.  The small ones -- nearly all of them after a run's second
	 * digit, one or two tuples each -- are left to one insertion sort over
	 * the whole range: no tuple moves out of its bucket, so it costs a
	 * comparison per tuple and the few moves inside buckets, where a call
	 * per bucket cost more than the sorting.
	 */
	for (b = 0, i = 0; b < nb; b++)
	{
		if (next[b] - i >= SRM_RADIX_MIN)
			radix_sort(a + i, next[b] - i, shift, scratch, nscratch);
		else if (next[b] - i > 1)
			small = true;
		i = next[b];
	}
	if (small)
		insertion_sort(a, n);
}

/*
 * sort_nulls
 *		Radix sort a[0..n), NULLs of the first key, if their keys differ.
 */
static void
sort_nulls(SrmTuple *a, int64 n, SrmTuple *scratch, int64 nscratch)
{
	uint64		any = 0,
				all = ~UINT64CONST(0);
	int64		i;

	for (i = 0; i < n; i++)
	{
		any |= (uint64) a[i].datum1;
		all &= (uint64) a[i].datum1;
	}
	if (n > 1 && (any ^ all) != 0)
		radix_sort(a, n, pg_leftmost_one_pos64(any ^ all) + 1, scratch,
				   nscratch);
}

/*
 * SrmRadixSort
 *		NULLS FIRST nulls to the front, NULLS LAST nulls to the back, the
 *		values between radix sorted on datum1; nothing moves if a[] is in
 *		order already.  Returns false when a[] was found in strictly
 *		ascending order (no two equal keys: SrmRadixFixTies has nothing to
 *		do), true otherwise.
 */
bool
SrmRadixSort(SrmTuple *a, int64 n, SrmTuple *scratch, int64 nscratch)
{
	int64		lo = 0,
				hi = n;
	int64		i;
	uint64		any = 0,
				all = ~UINT64CONST(0);
	bool		ties = false;

	/*
	 * Input already in order (an index rebuilt after CLUSTER, a table
	 * loaded in key order) costs one pass; other input stops at its first
	 * descent, a few tuples in.
	 */
	for (i = 1; i < n; i++)
	{
		if (a[i].nrank != a[i - 1].nrank)
		{
			if (a[i].nrank < a[i - 1].nrank)
				break;
		}
		else if ((uint64) a[i].datum1 <= (uint64) a[i - 1].datum1)
		{
			if ((uint64) a[i].datum1 < (uint64) a[i - 1].datum1)
				break;
			ties = true;
		}
	}
	if (i >= n)
		return ties;

	for (i = 0; i < hi;)
	{
		if (a[i].nrank == SRM_NRANK_FIRST)
		{
			SrmTuple	t = a[lo];

			a[lo++] = a[i];
			a[i++] = t;
		}
		else if (a[i].nrank == SRM_NRANK_LAST)
		{
			SrmTuple	t = a[--hi];

			a[hi] = a[i];
			a[i] = t;
		}
		else
		{
			/* each value once: the bits set in any key, and in all keys */
			any |= (uint64) a[i].datum1;
			all &= (uint64) a[i].datum1;
			i++;
		}
	}
	/* start below the bits all keys share (small ranges skip passes) */
	if (hi - lo > 1 && (any ^ all) != 0)
		radix_sort(a + lo, hi - lo, pg_leftmost_one_pos64(any ^ all) + 1,
				   scratch, nscratch);
	/* NULLs' keys are 0 but where a second key shares them (pair_key) */
	sort_nulls(a, lo, scratch, nscratch);
	sort_nulls(a + hi, n - hi, scratch, nscratch);
	return true;
}

/*
 * SrmRadixFixTies
 *		Sort every group of equal (nrank, datum1) in a[0..n) -- sorted by
 *		SrmRadixSort -- with the full comparison, where ties need it.
 */
void
SrmRadixFixTies(SrmTuple *a, int64 n, SrmKeys *keys)
{
	int64		i,
				j;

	for (i = 0; i < n; i = j)
	{
		for (j = i + 1; j < n && a[j].datum1 == a[i].datum1 &&
			 a[j].nrank == a[i].nrank; j++)
			;
		if (j - i > 1 && SrmKeysTieAt(keys, (uint64) a[i].datum1))
			srm_qsort_norm(a + i, j - i, keys);
	}
}
