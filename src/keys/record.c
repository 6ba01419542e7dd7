/*-------------------------------------------------------------------------
 *
 * record.c
 *	  The compact record format of runs: a tuple as stored in a block.
 *
 * Every byte of a record is written and read once per merge pass, so a
 * record holds only what cannot be rebuilt, with no alignment padding:
 *
 *	 length word  1, 2 or 5 bytes (see SrmRecHeader): the bytes that follow
 *	 key		  8 bytes of normalized first key and a NULL rank byte, only
 *				  when the column does not give the key back cheaply
 *	 body		  heap sorts: a MinimalTuple without t_len, its padding and
 *				  the padding between null bitmap and data -- t_infomask2,
 *				  t_infomask, t_hoff, the null bitmap (if any), the data;
 *				  index sorts: the IndexTuple as it is
 *
 * An (int8, int8) row thus takes 22 bytes, against 26 in PostgreSQL's own
 * sort (a 4-byte length and the MinimalTuple from t_infomask2 on): fewer
 * bytes per record are fewer blocks to write and read in every pass.
 *
 * The normalized first key (keys.c) orders the merges.  When the first key
 * is a fixed-length column, or a varlena column stored inline, and every
 * attribute before it has a fixed length, the key is re-derived from the
 * column's bytes on read, at a fixed offset into the data (a varlena's
 * offset depends only on whether it begins with a pad byte); otherwise
 * (a NULL before it, a value the tuple lacks, a compressed or toasted
 * value, an abbreviated, ICU text or numeric key, which cost more to make
 * again than to store) the record stores it.  A key of two columns (keys.c's
 * SrmKeysPairKey) is derived likewise when both are by-value columns at
 * fixed offsets and the tuple has no NULL up to the later of them.  The
 * writer decides per record, and
 * derivation runs the same code as the original normalization, so the keys
 * are identical.
 *
 * A record is read in place, unaligned, for its key; it is rebuilt into an
 * aligned MinimalTuple (or IndexTuple) only where a tuple is needed: to
 * break a tie, for the caller of a final merge or scan, for a forecast key.
 * Intermediate merges copy records from block to block as bytes.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/keys/record.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/itup.h"
#include "access/tupmacs.h"
#include "utils/memutils.h"

#include "keys/record.h"


/*
 * SrmFixedAttsEnd
 *		See record.h.
 */
int
SrmFixedAttsEnd(TupleDesc desc, int natts)
{
	int			off = 0;
	int			i;

	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attlen <= 0)
			return -1;
		off = att_align_nominal(off, att->attalign) + att->attlen;
	}
	return off;
}

/* Is att a by-value column that SrmRecByvalAt reads? */
static bool
byval_column(Form_pg_attribute att)
{
	return att->attbyval &&
		(att->attlen == 1 || att->attlen == 2 || att->attlen == 4 ||
		 att->attlen == 8);
}

/*
 * pair_format
 *		A key of two columns (SrmKeysPairKey) is derived on read when both
 *		are by-value columns at fixed offsets, as a one-column integer key
 *		is: then the pair costs the records nothing.  Otherwise (a second
 *		key of uuid, bytea or text, or one after a varlena) records store
 *		it.
 */
static void
pair_format(SrmRecFormat *fmt, SrmKeys *keys)
{
	TupleDesc	desc = keys->tupdesc;
	int			key2_att = fmt->heap ? keys->sortKeys[1].ssup_attno - 1 : 1;
	int			off = SrmFixedAttsEnd(desc, fmt->key_att);
	int			off2 = SrmFixedAttsEnd(desc, key2_att);
	Form_pg_attribute katt = TupleDescAttr(desc, fmt->key_att);
	Form_pg_attribute k2att = TupleDescAttr(desc, key2_att);

	if (off < 0 || off2 < 0 || !byval_column(katt) || !byval_column(k2att))
		return;
	fmt->key_end = off;
	fmt->key_off = att_align_nominal(off, katt->attalign);
	fmt->key_len = katt->attlen;
	fmt->key_byval = true;
	fmt->key_align = katt->attalign;
	fmt->key2_att = key2_att;
	fmt->key2_off = att_align_nominal(off2, k2att->attalign);
	fmt->key2_len = k2att->attlen;
	fmt->last_att = Max(fmt->key_att, key2_att);
	fmt->derive = true;
	fmt->fast_pair = true;

	/*
	 * (int4, int4), (date, int4) and the like: SrmKeysPairKey's halves
	 * are SrmNorm32's (the bits, the sign flipped for signed types), each
	 * inverted if DESC -- one xor of the two columns' bits.
	 */
	if (katt->attlen == 4 && k2att->attlen == 4 && keys->norm2_exact &&
		(keys->norm == SRM_NORM_INT32 || keys->norm == SRM_NORM_OID) &&
		(keys->norm2 == SRM_NORM_INT32 || keys->norm2 == SRM_NORM_OID))
	{
		uint32		hi = (keys->norm == SRM_NORM_INT32 ? 0x80000000 : 0) ^
			(keys->norm_desc ? PG_UINT32_MAX : 0);
		uint32		lo = (keys->norm2 == SRM_NORM_INT32 ? 0x80000000 : 0) ^
			(keys->norm2_desc ? PG_UINT32_MAX : 0);

		fmt->pair_u32 = true;
		fmt->pair_xor = ((uint64) hi << 32) | lo;
	}
}

/*
 * SrmRecFormatInit
 *		Work out the record format of a sort with these keys.
 */
void
SrmRecFormatInit(SrmRecFormat *fmt, SrmKeys *keys)
{
	TupleDesc	desc = keys->tupdesc;
	int			off;
	Form_pg_attribute katt;

	memset(fmt, 0, sizeof(SrmRecFormat));
	fmt->keys = keys;
	fmt->heap = (keys->kind == SRM_KEYS_HEAP);
	fmt->normalized = (keys->norm != SRM_NORM_NONE);
	fmt->key_att = fmt->heap ? keys->sortKeys[0].ssup_attno - 1 : 0;
	SrmKeysKey0Type(keys, &fmt->key0_byval, &fmt->key0_typlen);
	fmt->last_att = fmt->key_att;
	/* keys costly to make (ICU's, abbreviated ones, numeric's) are stored */
	if (!fmt->normalized || keys->norm == SRM_NORM_ABBREV ||
		keys->norm == SRM_NORM_ICU || keys->norm == SRM_NORM_NUMERIC)
		return;
	if (keys->norm2 != SRM_NORM_NONE)
	{
		pair_format(fmt, keys);
		return;
	}

	/* the attributes before the key must all have a fixed length */
	off = SrmFixedAttsEnd(desc, fmt->key_att);
	if (off < 0)
		return;
	katt = TupleDescAttr(desc, fmt->key_att);
	if (katt->attlen == -2)
		return;
	if (katt->attlen > 0 && !katt->attbyval && !keys->norm_uuid)
		return;
	if (katt->attlen > 0 && katt->attbyval && katt->attlen != 1 &&
		katt->attlen != 2 && katt->attlen != 4 && katt->attlen != 8)
		return;
	fmt->key_end = off;
	fmt->key_off = att_align_nominal(off, katt->attalign);
	fmt->key_len = katt->attlen;
	fmt->key_byval = katt->attbyval;
	fmt->key_align = katt->attalign;
	fmt->derive = true;
	fmt->key_desc = keys->norm_desc;
	fmt->fast_int =
		(keys->norm == SRM_NORM_INT16 || keys->norm == SRM_NORM_INT32 ||
		 keys->norm == SRM_NORM_INT64);
	fmt->fast_bytes = keys->norm == SRM_NORM_BYTES && !keys->norm_uuid &&
		fmt->key_len == -1 && fmt->key_end == fmt->key_off;
}

/*
 * locate_key
 *		Where the first key of a tuple lies, if the record can do without
 *		it: hdr points at a heap tuple's t_infomask2 (or at an IndexTuple),
 *		data at its data.  *p is the column's first byte, or NULL if the key
 *		is NULL (a two-column key's: data).  False if the key cannot be had
 *		from the column.
 */
static bool
locate_key(SrmRecFormat *fmt, const char *hdr, const char *data,
		   const char **p)
{
	const uint8 *bits = NULL;
	const char *v;
	const unsigned char *bytes;
	Size		len;
	int			i;

	if (!fmt->derive)
		return false;
	if (fmt->heap)
	{
		uint16		infomask2,
					infomask;

		memcpy(&infomask2, hdr, sizeof(uint16));
		memcpy(&infomask, hdr + sizeof(uint16), sizeof(uint16));
		/* a column added later: its value is the descriptor's */
		if ((infomask2 & HEAP_NATTS_MASK) <= fmt->last_att)
			return false;
		if (infomask & HEAP_HASNULL)
			bits = (const uint8 *) hdr + SRM_REC_HEAP_FIXED;
	}
	else
	{
		unsigned short t_info;

		memcpy(&t_info, hdr + offsetof(IndexTupleData, t_info), sizeof(t_info));
		if (t_info & INDEX_NULL_MASK)
			bits = (const uint8 *) hdr + sizeof(IndexTupleData);
	}
	if (fmt->fast_pair)
	{
		/* a NULL in either key or before one: the record keeps the key */
		if (bits != NULL)
			for (i = 0; i <= fmt->last_att; i++)
				if (att_isnull(i, bits))
					return false;
		*p = data;
		return true;
	}
	if (bits != NULL)
	{
		if (att_isnull(fmt->key_att, bits))
		{
			*p = NULL;
			return true;
		}
		/* a NULL before the key moves it */
		for (i = 0; i < fmt->key_att; i++)
			if (att_isnull(i, bits))
				return false;
	}
	if (fmt->key_len != -1)
	{
		*p = data + fmt->key_off;
		return true;
	}

	/* a varlena begins at once if its first byte is not a pad byte */
	v = data + fmt->key_end;
	if (!VARATT_NOT_PAD_BYTE(v))
		v = data + fmt->key_off;
	/* its bytes must be there: not toasted, not compressed */
	if (!SrmRecVarlenaAt(v, &bytes, &len))
		return false;
	*p = v;
	return true;
}

/* SrmKeysNormalize of an integer key, inline: the merges' common case */
static inline void
int_key(SrmKeys *keys, int64 v, uint64 *key, uint8 *nrank)
{
	*key = SrmNormFold(SrmIntNorm(v), keys->norm_desc);
	*nrank = SRM_NRANK_VALUE;
}

/*
 * key_at
 *		The normalized first key of the column at p (see locate_key), or
 *		two columns' key of the data at p.
 */
static void
key_at(SrmRecFormat *fmt, const char *p, uint64 *key, uint8 *nrank)
{
	SrmKeys    *keys = fmt->keys;
	Datum		d;

	if (fmt->fast_pair)
	{
		*key = SrmRecPairAt(fmt, p);
		*nrank = SRM_NRANK_VALUE;
		return;
	}
	if (p == NULL)
	{
		SrmKeysNormalize(keys, (Datum) 0, true, key, nrank);
		return;
	}
	if (fmt->key_len == -1)
	{
		const unsigned char *bytes;
		Size		len;

		/* locate_key saw that its bytes are there */
		if (!SrmRecVarlenaAt(p, &bytes, &len))
			elog(ERROR, "srmsort: the key column of a record is not inline");
		SrmKeysNormalizeBytes(keys, bytes, len, key, nrank);
		return;
	}
	if (!fmt->key_byval)
		d = PointerGetDatum(p);		/* uuid: read bytewise */
	else
		switch (fmt->key_len)
		{
			case 1:
				d = CharGetDatum(*p);
				break;
			case 2:
				{
					int16		v;

					memcpy(&v, p, sizeof(v));
					if (keys->norm == SRM_NORM_INT16)
					{
						int_key(keys, v, key, nrank);
						return;
					}
					d = Int16GetDatum(v);
					break;
				}
			case 4:
				{
					int32		v;

					memcpy(&v, p, sizeof(v));
					if (keys->norm == SRM_NORM_INT32)
					{
						int_key(keys, v, key, nrank);
						return;
					}
					d = Int32GetDatum(v);
					break;
				}
			default:
				{
					int64		v;

					memcpy(&v, p, sizeof(v));
					if (keys->norm == SRM_NORM_INT64)
					{
						int_key(keys, v, key, nrank);
						return;
					}
					d = Int64GetDatum(v);
					break;
				}
		}
	SrmKeysNormalize(keys, d, false, key, nrank);
}

/*
 * needs_key
 *		Must the record of this tuple store its normalized key?
 */
static bool
needs_key(SrmRecFormat *fmt, const void *tuple)
{
	const char *t = tuple;
	const char *p;

	if (!fmt->normalized)
		return false;
	if (fmt->heap)
		return !locate_key(fmt, t + MINIMAL_TUPLE_DATA_OFFSET,
						   t + ((const MinimalTupleData *) t)->t_hoff -
						   MINIMAL_TUPLE_OFFSET, &p);
	return !locate_key(fmt, t,
					   t + IndexInfoFindDataOffset(((const IndexTupleData *) t)->t_info),
					   &p);
}

/*
 * SrmRecEncode
 *		The record of a tuple of len bytes (a MinimalTuple whose t_len need
 *		not be set, or an IndexTuple) with its normalized first key: its
 *		size, and if that is at most room, the record written at dst.
 */
Size
SrmRecEncode(SrmRecFormat *fmt, char *dst, Size room, const void *tuple,
			 uint32 len, uint64 key, uint8 nrank)
{
	const MinimalTupleData *mt = tuple;
	Size		bitlen = 0,
				hoff = 0;
	Size		body;
	Size		pay;
	Size		total;
	bool		storekey;

	/* the common case without a look at the key: an integer, no NULLs */
	storekey = !SrmRecHeapPlain(fmt, mt) && needs_key(fmt, tuple);

	if (fmt->heap)
	{
		bitlen = (mt->t_infomask & HEAP_HASNULL) ?
			BITMAPLEN(HeapTupleHeaderGetNatts(mt)) : 0;
		hoff = mt->t_hoff - MINIMAL_TUPLE_OFFSET;
		body = SRM_REC_HEAP_FIXED + bitlen + (len - hoff);
	}
	else
		body = len;
	pay = body + (storekey ? SRM_REC_KEYSZ : 0);
	total = SrmRecHeaderSize(pay) + pay;
	if (total > room)
		return total;

	dst += SrmRecPutHeader(dst, (uint32) (pay << 1) | (storekey ? 1 : 0));
	if (storekey)
	{
		memcpy(dst, &key, sizeof(key));
		dst[sizeof(key)] = (char) nrank;
		dst += SRM_REC_KEYSZ;
	}
	if (fmt->heap)
	{
		/* t_infomask2, t_infomask, t_hoff and the bitmap are contiguous */
		memcpy(dst, (const char *) tuple + MINIMAL_TUPLE_DATA_OFFSET,
			   SRM_REC_HEAP_FIXED + bitlen);
		dst += SRM_REC_HEAP_FIXED + bitlen;
		SrmRecCopy(dst, (const char *) tuple + hoff, len - hoff);
	}
	else
		SrmRecCopy(dst, tuple, len);
	return total;
}

/*
 * SrmRecKey
 *		The normalized first key and NULL rank of the record at rec (read
 *		in place: rec need not be aligned); returns the record's size.
 */
Size
SrmRecKey(SrmRecFormat *fmt, const char *rec, uint64 *key, uint8 *nrank)
{
	uint32		bodylen;
	const char *kp;
	const char *body = SrmRecBody(rec, &bodylen, &kp);
	const char *p;
	bool		ok;

	if (kp != NULL)
	{
		memcpy(key, kp, sizeof(uint64));
		*nrank = (uint8) kp[sizeof(uint64)];
		return (body - rec) + bodylen;
	}
	if (fmt->heap)
		ok = locate_key(fmt, body, SrmRecHeapData(body), &p);
	else
	{
		unsigned short t_info;

		memcpy(&t_info, body + offsetof(IndexTupleData, t_info), sizeof(t_info));
		ok = locate_key(fmt, body, body + IndexInfoFindDataOffset(t_info), &p);
	}
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("srmsort workfile record has no sort key")));
	key_at(fmt, p, key, nrank);
	return (body - rec) + bodylen;
}

/*
 * SrmTupleBufResize
 *		Give buf room for a tuple of len bytes, in cxt: a power of two from
 *		64 bytes up to the block size, or len itself past it.
 */
void
SrmTupleBufResize(SrmTupleBuf *buf, Size len, Size block_size,
				  MemoryContext cxt)
{
	Size		size = 64;

	while (size < len && size <= block_size)
		size *= 2;
	size = Max(size, len);
	if (buf->data != NULL)
		pfree(buf->data);
	buf->data = MemoryContextAllocHuge(cxt, size);
	buf->size = size;
}
