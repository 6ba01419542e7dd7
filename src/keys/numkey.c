/*-------------------------------------------------------------------------
 *
 * numkey.c
 *	  Normalized keys of numeric: sign, weight and leading digits.
 *
 * A numeric is stored (PostgreSQL's numeric.c) as a header word, then in
 * the long form an int16 weight, then int16 digits of base 10000, the
 * first of them worth 10000^weight, no leading or trailing zero digits;
 * zero has none.  The header word says which form:
 * 11 in its top two bits is a special value (NaN, +-Infinity: the next two
 * bits), 10 the short form (the sign and a 7-bit weight in the word
 * itself), 00 or 01 the long form, positive or negative.
 *
 * The keys are order-preserving prefixes, never exhaustive: a < b gives
 * key(a) <= key(b), equal numerics (1.0, 1.00) equal keys, and ties go to
 * the full comparison.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/keys/numkey.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include "base/compat.h"
#include "keys/numkey.h"

#define SRM_NUM_FORM_MASK	0xC000
#define SRM_NUM_NEG			0x4000
#define SRM_NUM_SHORT		0x8000
#define SRM_NUM_SPECIAL		0xC000
#define SRM_NUM_SPECIAL_MASK 0xF000
#define SRM_NUM_PINF		0xD000
#define SRM_NUM_NINF		0xF000
#define SRM_NUM_SHORT_NEG	0x2000
#define SRM_NUM_SHORT_WSIGN 0x0040
#define SRM_NUM_SHORT_WMASK 0x003F

/* the header and four digits: what a key reads of a toasted numeric */
#define SRM_NUM_SLICE		(2 * sizeof(uint16) + 4 * sizeof(int16))

/* a numeric's place in numeric order, the finite ones by sign */
typedef enum SrmNumClass
{
	SRM_NUM_C_NINF,
	SRM_NUM_C_NEG,
	SRM_NUM_C_ZERO,
	SRM_NUM_C_POS,
	SRM_NUM_C_PINF,
	SRM_NUM_C_NAN
} SrmNumClass;

/*
 * numeric_decode
 *		The class of the numeric whose bytes (after the varlena header) are
 *		p[0..len); of a nonzero finite one also the weight of its first
 *		nonzero digit and that digit and the next three (0 past the last).
 */
static SrmNumClass
numeric_decode(const char *p, Size len, int *weight, int *digits)
{
	uint16		h;
	Size		hdr;
	int			w;
	bool		neg;
	Size		n;
	int			i;

	if (len < sizeof(uint16))
		return SRM_NUM_C_ZERO;	/* no numeric; the full comparison decides */
	memcpy(&h, p, sizeof(h));
	if ((h & SRM_NUM_FORM_MASK) == SRM_NUM_SPECIAL)
	{
		if ((h & SRM_NUM_SPECIAL_MASK) == SRM_NUM_PINF)
			return SRM_NUM_C_PINF;
		if ((h & SRM_NUM_SPECIAL_MASK) == SRM_NUM_NINF)
			return SRM_NUM_C_NINF;
		return SRM_NUM_C_NAN;
	}
	if ((h & SRM_NUM_FORM_MASK) == SRM_NUM_SHORT)
	{
		neg = (h & SRM_NUM_SHORT_NEG) != 0;
		w = h & SRM_NUM_SHORT_WMASK;
		if (h & SRM_NUM_SHORT_WSIGN)
			w -= SRM_NUM_SHORT_WMASK + 1;
		hdr = sizeof(uint16);
	}
	else
	{
		int16		w16;

		if (len < 2 * sizeof(uint16))
			return SRM_NUM_C_ZERO;
		memcpy(&w16, p + sizeof(uint16), sizeof(w16));
		neg = (h & SRM_NUM_FORM_MASK) == SRM_NUM_NEG;
		w = w16;
		hdr = 2 * sizeof(uint16);
	}
	p += hdr;
	n = (len - hdr) / sizeof(int16);
	/* stored numerics have no leading zero digits; skip any all the same */
	for (;;)
	{
		int16		d;

		if (n == 0)
			return SRM_NUM_C_ZERO;
		memcpy(&d, p, sizeof(d));
		if (d != 0)
			break;
		p += sizeof(int16);
		n--;
		w--;
	}
	for (i = 0; i < 4; i++)
	{
		int16		d = 0;

		if ((Size) i < n)
			memcpy(&d, p + i * sizeof(int16), sizeof(d));
		digits[i] = d;
	}
	*weight = w;
	return neg ? SRM_NUM_C_NEG : SRM_NUM_C_POS;
}

/*
 * numeric_pack
 *		An order-preserving key of 1 + wbits + mbits bits (64 or 32) from a
 *		decoded numeric: -Infinity 0, zero the top bit alone, NaN the
 *		greatest value, +Infinity the one below; a positive value the top
 *		bit, its weight biased by 2^(wbits-1) and its first ndigits digits
 *		as one number below 10000^ndigits (< 2^mbits), a negative value the
 *		complement of its absolute value's.  Digits past ndigits are left
 *		out, so that keys only never decrease; equal numerics (1.0, 1.00)
 *		have equal digits, so equal keys.  A weight past the field's range
 *		takes its end, with the digits as small (below) or as large
 *		(above: 10000^ndigits, which no value's digits reach) as can be,
 *		so that order still holds, and the largest positive key stays
 *		below +Infinity's, the least negative above -Infinity's.
 */
static uint64
numeric_pack(SrmNumClass cls, int weight, const int *digits, int ndigits,
			 int wbits, int mbits)
{
	int			nbits = 1 + wbits + mbits;
	uint64		top = UINT64CONST(1) << (nbits - 1);
	uint64		all = top | (top - 1);
	int			wmax = (1 << wbits) - 1;
	int			e = weight + (1 << (wbits - 1));
	uint64		mag = 0;
	uint64		u;
	int			i;

	switch (cls)
	{
		case SRM_NUM_C_NINF:
			return 0;
		case SRM_NUM_C_ZERO:
			return top;
		case SRM_NUM_C_PINF:
			return all - 1;
		case SRM_NUM_C_NAN:
			return all;
		case SRM_NUM_C_NEG:
		case SRM_NUM_C_POS:
			break;
	}
	for (i = 0; i < ndigits; i++)
		mag = mag * 10000 + (uint64) digits[i];
	if (e < 0)
	{
		e = 0;
		mag = 0;
	}
	else if (e > wmax)
	{
		e = wmax;
		for (mag = 1, i = 0; i < ndigits; i++)
			mag *= 10000;
	}
	u = top | ((uint64) e << mbits) | mag;
	return cls == SRM_NUM_C_NEG ? ~u & all : u;
}

/*
 * numeric_norm
 *		The key of numeric d, 64 bits or with half 32 (see numkey.h).  A
 *		compressed or toasted value is read only as far as the key needs.
 */
static uint64
numeric_norm(Datum d, bool half)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);
	struct varlena *s = v;
	int			weight = 0;
	int			digits[4];
	SrmNumClass cls;

	if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
		s = pg_detoast_datum_slice(v, 0, SRM_NUM_SLICE);
	cls = numeric_decode(VARDATA_ANY(s), VARSIZE_ANY_EXHDR(s), &weight, digits);
	if (s != v)
		pfree(s);
	if (half)
		return numeric_pack(cls, weight, digits, 2, 4, 27);
	return numeric_pack(cls, weight, digits, 4, 9, 54);
}

/*
 * SrmNumericNorm
 *		See numkey.h.
 */
uint64
SrmNumericNorm(Datum d)
{
	return numeric_norm(d, false);
}

/*
 * SrmNumericNorm32
 *		See numkey.h.
 */
uint32
SrmNumericNorm32(Datum d)
{
	return (uint32) numeric_norm(d, true);
}
