/*-------------------------------------------------------------------------
 *
 * record.h
 *	  The compact record format of runs: a tuple as stored in a block.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/keys/record.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_RECORD_H
#define SRM_RECORD_H

#include "keys/keys.h"

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
	bool		fast_int;		/* key an integer column found at key_off
								 * when the tuple has no NULLs */
	bool		fast_bytes;		/* key a SRM_NORM_BYTES varlena found at
								 * key_off (no pad byte can come first)
								 * when the tuple has no NULLs */
	bool		fast_pair;		/* key of two columns (SrmKeysPairKey),
								 * found at key_off and key2_off when the
								 * tuple has no NULLs */
	int			key2_att;		/* fast_pair: the second key's attribute */
	int			key2_off;		/* ... its aligned data offset */
	int16		key2_len;		/* ... its attlen (a by-value type) */
	bool		pair_u32;		/* fast_pair of two 4-byte int4, date or oid
								 * keys, both whole: the key is their bits
								 * xor pair_xor */
	uint64		pair_xor;		/* ... sign bits and DESC, as one xor */
	int			last_att;		/* the last key attribute of the record's
								 * key: key_att, or key2_att if later */
	bool		key_desc;
	/* the first key's type, for forecast keys without a normalized form */
	bool		key0_byval;
	int16		key0_typlen;
} SrmRecFormat;

/* The size of the normalized key and NULL rank a record may carry. */
#define SRM_REC_KEYSZ		(sizeof(uint64) + 1)

extern void SrmRecFormatInit(SrmRecFormat *fmt, SrmKeys *keys);

extern Size SrmRecEncode(SrmRecFormat *fmt, char *dst, Size room,
						 const void *tuple, uint32 len, uint64 key,
						 uint8 nrank);
extern Size SrmRecKey(SrmRecFormat *fmt, const char *rec, uint64 *key,
					  uint8 *nrank);

/*
 * The data offset where the first natts attributes of desc end when all of
 * them have a fixed length and none is NULL; -1 if one has not.
 */
extern int	SrmFixedAttsEnd(TupleDesc desc, int natts);

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

/*
 * SrmRecCopy
 *		memcpy for the few dozen bytes of a narrow row: word moves rather
 *		than a call, and no loop: 8 to 32 bytes are two or four words, the
 *		last ones overlapping the first (dst and src never overlap).
 */
static inline void
SrmRecCopy(char *dst, const char *src, Size n)
{
	uint64		a,
				b,
				c,
				d;

	if (n > 4 * sizeof(uint64))
		memcpy(dst, src, n);
	else if (n > 2 * sizeof(uint64))
	{
		memcpy(&a, src, sizeof(uint64));
		memcpy(&b, src + sizeof(uint64), sizeof(uint64));
		memcpy(&c, src + n - 2 * sizeof(uint64), sizeof(uint64));
		memcpy(&d, src + n - sizeof(uint64), sizeof(uint64));
		memcpy(dst, &a, sizeof(uint64));
		memcpy(dst + sizeof(uint64), &b, sizeof(uint64));
		memcpy(dst + n - 2 * sizeof(uint64), &c, sizeof(uint64));
		memcpy(dst + n - sizeof(uint64), &d, sizeof(uint64));
	}
	else if (n >= sizeof(uint64))
	{
		memcpy(&a, src, sizeof(uint64));
		memcpy(&b, src + n - sizeof(uint64), sizeof(uint64));
		memcpy(dst, &a, sizeof(uint64));
		memcpy(dst + n - sizeof(uint64), &b, sizeof(uint64));
	}
	else
	{
		Size		i;

		for (i = 0; i < n; i++)
			dst[i] = src[i];
	}
}

/* heap bodies begin with t_infomask2, t_infomask and t_hoff */
#define SRM_REC_HEAP_FIXED	(sizeof(uint16) * 2 + sizeof(uint8))
#define SRM_REC_HOFF		(sizeof(uint16) * 2)

/* The body of the record at rec, its length, and its stored key or NULL. */
static inline const char *
SrmRecBody(const char *rec, uint32 *bodylen, const char **key)
{
	uint32		pay;
	bool		haskey;
	const char *p = SrmRecHeader(rec, &pay, &haskey);

	*key = haskey ? p : NULL;
	if (haskey)
	{
		p += SRM_REC_KEYSZ;
		pay -= SRM_REC_KEYSZ;
	}
	*bodylen = pay;
	return p;
}

/* The data of a heap record's body: after the fixed fields and the bitmap. */
static inline const char *
SrmRecHeapData(const char *body)
{
	uint16		infomask2,
				infomask;

	memcpy(&infomask2, body, sizeof(uint16));
	memcpy(&infomask, body + sizeof(uint16), sizeof(uint16));
	return body + SRM_REC_HEAP_FIXED +
		((infomask & HEAP_HASNULL) ? BITMAPLEN(infomask2 & HEAP_NATTS_MASK) : 0);
}

/*
 * A reader's buffer for the tuples it rebuilds: grown to the tuple at hand
 * and, once it has held one longer than a block (a BIG record's), shrunk
 * again at the next tuple that fits in a block, so that one huge row does
 * not keep its memory for the rest of the sort.
 */
typedef struct SrmTupleBuf
{
	char	   *data;
	Size		size;
} SrmTupleBuf;

extern void SrmTupleBufResize(SrmTupleBuf *buf, Size len, Size block_size,
							  MemoryContext cxt);

/*
 * SrmRecPlainTuple
 *		The common heap record's tuple in fixed-size moves: a short record
 *		(SrmRecShortHeader) without a stored key,
 *		whose tuple has no NULLs and the usual header of SRM_REC_PLAIN_HOFF
 *		bytes, rebuilt into buf when buf needs no resizing; NULL for any
 *		other record (buf's contents are then undefined).
 */
#define SRM_REC_PLAIN_HOFF	(2 * sizeof(uint64))

/*
 * SrmRecShortHeader
 *		The length word of a record without a stored key that is 1 or 2
 *		bytes long (a payload under 8kB): its size into *hdr, the payload's
 *		into *pay; false for any other record.  Rows of 100 bytes take two
 *		bytes, so the common paths read both forms.
 */
static pg_attribute_always_inline bool
SrmRecShortHeader(const char *rec, Size *hdr, Size *pay)
{
	uint32		paylen;
	bool		haskey;

	if ((uint8) rec[0] >= 0xC0)
		return false;
	*hdr = SrmRecHeader(rec, &paylen, &haskey) - rec;
	*pay = paylen;
	return !haskey;
}

/*
 * SrmRecPutHeader
 *		Write the length word of value v (the payload's bytes shifted left
 *		once, the low bit set for a stored key) at dst; returns its size,
 *		SrmRecHeaderSize's.
 */
static pg_attribute_always_inline Size
SrmRecPutHeader(char *dst, uint32 v)
{
	if (v < 0x80)
	{
		dst[0] = (char) v;
		return 1;
	}
	if (v < 0x4000)
	{
		dst[0] = (char) (0x80 | (v >> 8));
		dst[1] = (char) (v & 0xFF);
		return 2;
	}
	dst[0] = (char) 0xC0;
	memcpy(dst + 1, &v, sizeof(v));
	return 1 + sizeof(v);
}

/*
 * SrmRecPutShortHeader
 *		Write the length word of a record of pay bytes without a stored key
 *		at dst if the record (word and payload) fits in room; its size, or
 *		0 if it does not fit or needs the 5-byte word.
 */
static pg_attribute_always_inline Size
SrmRecPutShortHeader(char *dst, Size room, Size pay)
{
	Size		v = pay << 1;

	if (v >= 0x4000 || pay + SrmRecHeaderSize(pay) > room)
		return 0;
	return SrmRecPutHeader(dst, (uint32) v);
}

/*
 * SrmRecPlainHeader
 *		A MinimalTuple's usual 16-byte header without a null bitmap, in
 *		fixed-size moves: zeros, then the record's t_infomask2 and
 *		t_infomask (head) and t_hoff.
 */
static pg_attribute_always_inline void
SrmRecPlainHeader(char *dst, uint32 head, uint8 hoffbyte)
{
	uint64		zero = 0;

	memcpy(dst, &zero, sizeof(zero));
	memcpy(dst + sizeof(uint64), &zero, sizeof(zero));
	memcpy(dst + MINIMAL_TUPLE_DATA_OFFSET, &head, sizeof(head));
	dst[MINIMAL_TUPLE_DATA_OFFSET + SRM_REC_HOFF] = (char) hoffbyte;
}

static pg_attribute_always_inline void *
SrmRecPlainTuple(const char *rec, SrmTupleBuf *buf, Size block_size)
{
	const char *body;
	uint32		head;
	uint16		infomask;
	uint8		hoffbyte;
	Size		hdr,
				pay;
	Size		len;
	char	   *dst;

	if (!SrmRecShortHeader(rec, &hdr, &pay))
		return NULL;
	body = rec + hdr;
	memcpy(&head, body, sizeof(head));
	memcpy(&infomask, body + sizeof(uint16), sizeof(uint16));
	hoffbyte = (uint8) body[SRM_REC_HOFF];
	len = SRM_REC_PLAIN_HOFF + pay - SRM_REC_HEAP_FIXED;
	if ((infomask & HEAP_HASNULL) ||
		hoffbyte != MINIMAL_TUPLE_OFFSET + SRM_REC_PLAIN_HOFF ||
		buf->size < len || buf->size > block_size)
		return NULL;
	dst = buf->data;
	SrmRecPlainHeader(dst, head, hoffbyte);
	((MinimalTuple) dst)->t_len = (uint32) len;
	SrmRecCopy(dst + SRM_REC_PLAIN_HOFF, body + SRM_REC_HEAP_FIXED,
			   len - SRM_REC_PLAIN_HOFF);
	return dst;
}

/*
 * SrmRecMaterializeInto
 *		Rebuild the tuple of the record at rec into buf (resized in cxt if
 *		need be) and return it, MAXALIGNed; valid until buf's next use.
 *		The record is parsed once and every field read before the first
 *		store: to the compiler the stores into buf may alias the record,
 *		and it would read the record again after each.
 *
 *		SrmRecMaterializeInline is the same, inlined wherever it is called
 *		(the final merge, which rebuilds every tuple it hands out);
 *		SrmRecMaterializeInto leaves the choice to the compiler.
 */
static pg_attribute_always_inline void *
SrmRecMaterializeInline(SrmRecFormat *fmt, const char *rec, SrmTupleBuf *buf,
					  Size block_size, MemoryContext cxt)
{
	uint32		bodylen;
	const char *kp;
	const char *body;
	const char *data;
	Size		fixed = 0;
	Size		hoff = 0;
	Size		len;
	uint32		head = 0;
	uint8		hoffbyte = 0;
	bool		heap = fmt->heap;
	char	   *dst;

	if (heap && (dst = SrmRecPlainTuple(rec, buf, block_size)) != NULL)
		return dst;
	body = SrmRecBody(rec, &bodylen, &kp);
	data = body;
	len = bodylen;
	if (heap)
	{
		memcpy(&head, body, sizeof(head));
		data = SrmRecHeapData(body);
		fixed = data - body;
		hoffbyte = (uint8) body[SRM_REC_HOFF];
		hoff = hoffbyte - MINIMAL_TUPLE_OFFSET;
		len = hoff + (bodylen - fixed);
	}
	if (unlikely(buf->size < len ||
				 (buf->size > block_size && len <= block_size)))
		SrmTupleBufResize(buf, len, block_size, cxt);
	dst = buf->data;
	if (!heap)
	{
		memcpy(dst, body, bodylen);
		return dst;
	}
	if (likely(fixed == SRM_REC_HEAP_FIXED && hoff == SRM_REC_PLAIN_HOFF))
		SrmRecPlainHeader(dst, head, hoffbyte);
	else
	{
		/* the header, its padding zero, then the fields kept */
		memset(dst, 0, hoff);
		memcpy(dst + MINIMAL_TUPLE_DATA_OFFSET, body, fixed);
	}
	((MinimalTuple) dst)->t_len = (uint32) len;
	SrmRecCopy(dst + hoff, data, len - hoff);
	return dst;
}

static inline void *
SrmRecMaterializeInto(SrmRecFormat *fmt, const char *rec, SrmTupleBuf *buf,
					  Size block_size, MemoryContext cxt)
{
	return SrmRecMaterializeInline(fmt, rec, buf, block_size, cxt);
}

/*
 * SrmRecVarlenaAt
 *		The data and length of the varlena stored (unaligned) at p; false
 *		if it is toasted or compressed, whose bytes are not there.
 */
static inline bool
SrmRecVarlenaAt(const char *p, const unsigned char **data, Size *len)
{
	if (VARATT_IS_1B(p))
	{
		if (VARATT_IS_1B_E(p))
			return false;
		*data = (const unsigned char *) p + VARHDRSZ_SHORT;
		*len = VARSIZE_1B(p) - VARHDRSZ_SHORT;
	}
	else
	{
		uint32		h;

		memcpy(&h, p, sizeof(h));
		if (!VARATT_IS_4B_U(&h))
			return false;
		*data = (const unsigned char *) p + VARHDRSZ;
		*len = VARSIZE_4B(&h) - VARHDRSZ;
	}
	return true;
}

/*
 * SrmRecIntAt
 *		The normalized key of the integer first key (fast_int) stored at p.
 */
static inline uint64
SrmRecIntAt(SrmRecFormat *fmt, const char *p)
{
	int64		v;

	if (fmt->key_len == 8)
		memcpy(&v, p, sizeof(int64));
	else if (fmt->key_len == 4)
	{
		int32		v32;

		memcpy(&v32, p, sizeof(int32));
		v = v32;
	}
	else
	{
		int16		v16;

		memcpy(&v16, p, sizeof(int16));
		v = v16;
	}
	return SrmNormFold(SrmIntNorm(v), fmt->key_desc);
}

/* A by-value column of len bytes stored (unaligned) at p, as a Datum. */
static inline Datum
SrmRecByvalAt(const char *p, int16 len)
{
	switch (len)
	{
		case 1:
			return CharGetDatum(*p);
		case 2:
			{
				int16		v;

				memcpy(&v, p, sizeof(v));
				return Int16GetDatum(v);
			}
		case 4:
			{
				int32		v;

				memcpy(&v, p, sizeof(v));
				return Int32GetDatum(v);
			}
		default:
			{
				int64		v;

				memcpy(&v, p, sizeof(v));
				return Int64GetDatum(v);
			}
	}
}

/* The two-column key of a fast_pair record whose data begins at data. */
static inline uint64
SrmRecPairAt(SrmRecFormat *fmt, const char *data)
{
	if (fmt->pair_u32)
	{
		uint32		a,
					b;

		memcpy(&a, data + fmt->key_off, sizeof(a));
		memcpy(&b, data + fmt->key2_off, sizeof(b));
		return (((uint64) a << 32) | b) ^ fmt->pair_xor;
	}
	return SrmKeysPairKey(fmt->keys,
						  SrmRecByvalAt(data + fmt->key_off, fmt->key_len),
						  SrmRecByvalAt(data + fmt->key2_off, fmt->key2_len));
}

/* Whether the format has a key read in place from a tuple without NULLs. */
static inline bool
SrmRecFast(SrmRecFormat *fmt)
{
	return fmt->fast_int || fmt->fast_bytes || fmt->fast_pair;
}

/*
 * SrmRecFastKeyAt
 *		The normalized key of a fast_int, fast_bytes or fast_pair key of a
 *		tuple whose data begins at data; false for a varlena that is
 *		compressed or toasted.
 */
static inline bool
SrmRecFastKeyAt(SrmRecFormat *fmt, const char *data, uint64 *key)
{
	const unsigned char *d;
	Size		len;

	if (fmt->fast_pair)
	{
		*key = SrmRecPairAt(fmt, data);
		return true;
	}
	if (fmt->fast_int)
	{
		*key = SrmRecIntAt(fmt, data + fmt->key_off);
		return true;
	}
	if (!SrmRecVarlenaAt(data + fmt->key_off, &d, &len))
		return false;
	*key = SrmNormFold(SrmBytesNorm(d, len), fmt->key_desc);
	return true;
}

/*
 * SrmRecHeapFastKey
 *		The normalized key of a heap sort's fast first key (SrmRecFast),
 *		read from a tuple whose t_infomask2 is at hdr and whose data
 *		begins at data; false if the tuple has NULLs or lacks the column,
 *		or the value is compressed or toasted.
 */
static inline bool
SrmRecHeapFastKey(SrmRecFormat *fmt, const char *hdr, const char *data,
			 uint64 *key)
{
	uint16		infomask2,
				infomask;

	memcpy(&infomask2, hdr, sizeof(uint16));
	memcpy(&infomask, hdr + sizeof(uint16), sizeof(uint16));
	if ((infomask & HEAP_HASNULL) ||
		(infomask2 & HEAP_NATTS_MASK) <= fmt->last_att)
		return false;
	return SrmRecFastKeyAt(fmt, data, key);
}

/*
 * SrmRecIndexFastKey
 *		The same for an index sort's first key, of the IndexTuple at itup
 *		(unaligned).
 */
static inline bool
SrmRecIndexFastKey(SrmRecFormat *fmt, const char *itup, uint64 *key)
{
	unsigned short info;

	memcpy(&info, itup + offsetof(IndexTupleData, t_info), sizeof(info));
	if (info & INDEX_NULL_MASK)
		return false;
	return SrmRecFastKeyAt(fmt, itup + IndexInfoFindDataOffset(0), key);
}

/*
 * SrmRecFastKey
 *		The common case of SrmRecKey, inline: a short record of a sort on
 *		an integer or bytewise-ordered column, with no NULLs, whose key the
 *		column gives back (its NULL rank SRM_NRANK_VALUE).  Returns the
 *		record's size, or 0 for any other record (then SrmRecKey).  Always
 *		inline: a merge reads every record's key through it, and a call
 *		would cost as much as the common case.
 */
static pg_attribute_always_inline Size
SrmRecFastKey(SrmRecFormat *fmt, const char *rec, uint64 *key)
{
	Size		hdr,
				pay;

	if (SrmRecFast(fmt) && SrmRecShortHeader(rec, &hdr, &pay) &&
		(fmt->heap ?
		 SrmRecHeapFastKey(fmt, rec + hdr, rec + hdr + SRM_REC_HEAP_FIXED,
						   key) :
		 SrmRecIndexFastKey(fmt, rec + hdr, key)))
		return hdr + pay;
	return 0;
}

/*
 * SrmRecTakePlain
 *		For a reader that hands out every tuple (a final merge): the tuple
 *		of a SrmRecPlainTuple record with a 1-byte length word rebuilt into
 *		buf and its fast key (SrmRecFast formats of heap sorts) read from
 *		the aligned tuple, in one pass over the record; NULL for any other
 *		record, whose key and tuple SrmRecFastKey (or SrmRecKey) and
 *		SrmRecMaterializeInto then give.
 */
static pg_attribute_always_inline void *
SrmRecTakePlain(SrmRecFormat *fmt, const char *rec, SrmTupleBuf *buf,
				Size block_size, uint64 *key)
{
	char	   *tuple;

	Assert(fmt->heap && SrmRecFast(fmt));

	/*
	 * Rows of 64 bytes or more (a 2-byte length word): the key is read in
	 * place and the tuple rebuilt when it wins.  Read back from the tuple
	 * just copied, it measured slower (bench/results/
	 * 2026-11-28-profile-records-pg19).
	 */
	if ((uint8) rec[0] >= 0x80)
		return NULL;
	tuple = SrmRecPlainTuple(rec, buf, block_size);
	if (tuple == NULL ||
		HeapTupleHeaderGetNatts((MinimalTuple) tuple) <= fmt->last_att ||
		!SrmRecFastKeyAt(fmt, tuple + SRM_REC_PLAIN_HOFF, key))
		return NULL;
	return tuple;
}

/*
 * SrmRecInt8Key
 *		Whether the format's key is one int8 column of a heap tuple
 *		(fast_int, 8 bytes).  *keyxor is set either way: what turns the
 *		column's bits into its normalized key, DESC folded in, since
 *		SrmNormFold(SrmIntNorm(v), desc) is v ^ *keyxor.  For readers that
 *		test the format once rather than for every tuple.
 */
static inline bool
SrmRecInt8Key(SrmRecFormat *fmt, uint64 *keyxor)
{
	*keyxor = SrmNormFold(SrmIntNorm(0), fmt->key_desc);
	return fmt->heap && fmt->fast_int && !fmt->fast_pair && fmt->key_len == 8;
}

/*
 * SrmRecTakePlainInt8
 *		SrmRecTakePlain for an SrmRecInt8Key format (keyxor its xor): the
 *		key read without testing the format again.
 */
static pg_attribute_always_inline void *
SrmRecTakePlainInt8(SrmRecFormat *fmt, const char *rec, SrmTupleBuf *buf,
					Size block_size, uint64 keyxor, uint64 *key)
{
	char	   *tuple;
	int64		v;

	/* 1-byte length words only, as SrmRecTakePlain */
	if ((uint8) rec[0] >= 0x80)
		return NULL;
	tuple = SrmRecPlainTuple(rec, buf, block_size);
	if (tuple == NULL ||
		HeapTupleHeaderGetNatts((MinimalTuple) tuple) <= fmt->last_att)
		return NULL;
	memcpy(&v, tuple + SRM_REC_PLAIN_HOFF + fmt->key_off, sizeof(v));
	*key = (uint64) v ^ keyxor;
	return tuple;
}

/*
 * SrmRecHeapPlain
 *		Whether the heap tuple mt (a MinimalTuple whose t_len need not be
 *		set) has no NULLs and a fast key (SrmRecFast) its columns give
 *		back: an integer key (of one column or two), or a bytewise one
 *		stored inline.  Its record stores no key.
 */
static inline bool
SrmRecHeapPlain(SrmRecFormat *fmt, const MinimalTupleData *mt)
{
	const unsigned char *d;
	Size		len;

	if (!SrmRecFast(fmt) || !fmt->heap ||
		(mt->t_infomask & HEAP_HASNULL) ||
		HeapTupleHeaderGetNatts(mt) <= fmt->last_att)
		return false;
	return !fmt->fast_bytes ||
		SrmRecVarlenaAt((const char *) mt + mt->t_hoff - MINIMAL_TUPLE_OFFSET +
						fmt->key_off, &d, &len);
}

/*
 * SrmRecEncodePlain
 *		SrmRecEncode's common case inline: a short SrmRecHeapPlain tuple,
 *		or an index tuple without NULLs whose integer key its columns give
 *		back, with a length word of 1 or 2 bytes.  Returns the record's
 *		size, or 0 if the tuple is not such a case or its record needs more
 *		than room bytes: then SrmRecEncode decides.
 */
static inline Size
SrmRecEncodePlain(SrmRecFormat *fmt, char *dst, Size room, const void *tuple,
				  uint32 len)
{
	const MinimalTupleData *mt = tuple;
	Size		hoff;
	Size		pay;
	Size		hdr;

	if (!fmt->heap)
	{
		/* the IndexTuple as it is, after the length word */
		if (!(fmt->fast_int || fmt->fast_pair) ||
			IndexTupleHasNulls((const IndexTupleData *) tuple) ||
			(hdr = SrmRecPutShortHeader(dst, room, len)) == 0)
			return 0;
		SrmRecCopy(dst + hdr, tuple, len);
		return len + hdr;
	}
	if (!SrmRecHeapPlain(fmt, mt))
		return 0;
	hoff = mt->t_hoff - MINIMAL_TUPLE_OFFSET;
	pay = SRM_REC_HEAP_FIXED + (len - hoff);
	if ((hdr = SrmRecPutShortHeader(dst, room, pay)) == 0)
		return 0;
	memcpy(dst + hdr, (const char *) tuple + MINIMAL_TUPLE_DATA_OFFSET,
		   SRM_REC_HEAP_FIXED);
	SrmRecCopy(dst + hdr + SRM_REC_HEAP_FIXED, (const char *) tuple + hoff,
			   len - hoff);
	return pay + hdr;
}

#endif							/* SRM_RECORD_H */
