/*-------------------------------------------------------------------------
 *
 * numkey.h
 *	  Normalized keys of numeric (SRM_NORM_NUMERIC).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/keys/numkey.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_NUMKEY_H
#define SRM_NUMKEY_H

/*
 * The normalized key of a non-NULL numeric, before DESC: 64 bits, a 9-bit
 * weight (numbers from 10^-1024 to 10^1024 in full) and the first four
 * base-10000 digits (16 decimal digits); NaN greatest, +Infinity next,
 * -Infinity 0.
 */
extern uint64 SrmNumericNorm(Datum d);

/*
 * The same in 32 bits, for the low half of a pair key (SrmKeysPairKey): a
 * 4-bit weight (10^-32 to 10^32) and two digits (8 decimal digits), where
 * the 64-bit key's leading 32 bits would hold only about six.
 */
extern uint32 SrmNumericNorm32(Datum d);

#endif							/* SRM_NUMKEY_H */
