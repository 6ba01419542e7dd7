/*-------------------------------------------------------------------------
 *
 * record.h
 *	  The compact record format of runs: a tuple as stored in a block.
 *
 * IDENTIFICATION
 *	  src/record.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_RECORD_H
#define SRM_RECORD_H

#include "keys.h"

/*
 * What a sort's records look like, worked out once from its keys: whether
 * they are heap or index tuples, whether they carry normalized first keys,
 * and whether (and where) such a key can be re-derived from the tuple.
 */
typedef struct SrmRecFormat
{
	SrmKeys    *keys;
	bool		heap;			/* MinimalTuples (else IndexTuples) */
	bool		normalized;		/* records have a normalized first key */
	bool		derive;			/* ... that the column usually gives back */
	int			key_att;		/* first key's attribute, 0-based */
	int			key_end;		/* data offset where the fixed-length
								 * attributes before it end */
	int			key_off;		/* its aligned data offset (fixed types) */
	int16		key_len;		/* its attlen */
	bool		key_byval;
	char		key_align;
} SrmRecFormat;

/* The size of the normalized key and NULL rank a record may carry. */
#define SRM_REC_KEYSZ		(sizeof(uint64) + 1)

extern void SrmRecFormatInit(SrmRecFormat *fmt, SrmKeys *keys);

extern Size SrmRecEncodedSize(SrmRecFormat *fmt, const void *tuple,
							  uint32 len, bool *storekey);
extern char *SrmRecEncode(SrmRecFormat *fmt, char *dst, const void *tuple,
						  uint32 len, uint64 key, uint8 nrank, bool storekey);
extern void SrmRecKey(SrmRecFormat *fmt, const char *rec, uint64 *key,
					  uint8 *nrank);
extern Size SrmRecTupleLen(SrmRecFormat *fmt, const char *rec);
extern void SrmRecMaterialize(SrmRecFormat *fmt, const char *rec, void *dst);

/*
 * A record begins with a length word of 1, 2 or 5 bytes: the number of
 * bytes that follow it, shifted left by one, with the low bit set when they
 * begin with a stored normalized key.
 */
static inline const char *
SrmRecHeader(const char *p, uint32 *paylen, bool *haskey)
{
	uint8		b = (uint8) p[0];
	uint32		v;

	if (b < 0x80)
	{
		v = b;
		p += 1;
	}
	else if (b < 0xC0)
	{
		v = ((uint32) (b & 0x3F) << 8) | (uint8) p[1];
		p += 2;
	}
	else
	{
		memcpy(&v, p + 1, sizeof(v));
		p += 5;
	}
	*paylen = v >> 1;
	*haskey = (v & 1) != 0;
	return p;
}

/* Bytes of the length word for a payload of paylen bytes. */
static inline Size
SrmRecHeaderSize(Size paylen)
{
	Size		v = paylen << 1 | 1;

	return v < 0x80 ? 1 : v < 0x4000 ? 2 : 5;
}

/* Total bytes of the record at p. */
static inline Size
SrmRecSize(const char *p)
{
	uint32		paylen;
	bool		haskey;
	const char *q = SrmRecHeader(p, &paylen, &haskey);

	return (q - p) + paylen;
}

#endif							/* SRM_RECORD_H */
