/*-------------------------------------------------------------------------
 *
 * unit_record.c
 *	  srmsort_unit_record(): unit tests of the record format (src/keys/record.c,
 *	  record.h).
 *
 * Its round trip: tuples encoded and rebuilt byte for byte, their keys read
 * back equal to SrmKeysNormalize's, the key stored exactly when the column
 * cannot give it back, at the edges -- NULLs, zero-length and long
 * varlenas, short and 4-byte varlena headers, pad bytes, by-value and
 * by-reference types, up to 1600 columns, DESC and NULLS FIRST, the length
 * word's size classes, a room too small, unaligned records.  Every run and
 * every merge goes through this format, and those edges are rare in a
 * sort's data, so they are made here one by one.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  test/unit/unit_record.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/typcache.h"
#include "utils/uuid.h"

#include "base/compat.h"
#include "keys/keys.h"
#include "keys/record.h"
#include "unit.h"

PG_FUNCTION_INFO_V1(srmsort_unit_record);

/* a record format under test: its tuple descriptor, keys and format */
typedef struct RecCase
{
	const char *name;
	TupleDesc	desc;
	SrmKeys    *keys;
	SrmRecFormat fmt;
	int			keyatt;			/* 0-based */
} RecCase;

/* the record format of a sort on column keyatt (0-based) of desc */
static void
rec_case(RecCase *c, const char *name, TupleDesc desc, int keyatt, bool descending,
		 bool nulls_first, Oid coll)
{
	Oid			typid = TupleDescAttr(desc, keyatt)->atttypid;
	TypeCacheEntry *tc = lookup_type_cache(typid, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	AttrNumber	attno = keyatt + 1;
	Oid			op = descending ? tc->gt_opr : tc->lt_opr;

	c->name = name;
	c->desc = desc;
	c->keyatt = keyatt;
	c->keys = SrmKeysMakeHeap(desc, 1, &attno, &op, &coll, &nulls_first);
	SrmRecFormatInit(&c->fmt, c->keys);
}

/*
 * rec_roundtrip
 *		Encode the tuple of values/isnull (formed with form_desc, NULL:
 *		the case's) and read it back: same bytes, same key, the key stored
 *		as expect_key says (-1: either).
 */
static void
rec_roundtrip(RecCase *c, TupleDesc form_desc, Datum *values, bool *isnull,
			  int expect_key, const char *what)
{
	SrmRecFormat *fmt = &c->fmt;
	MinimalTuple mt = form_minimal(form_desc ? form_desc : c->desc, values, isnull);
	uint32		len = mt->t_len;
	uint64		ekey = 0;
	uint8		erank = 0;
	Size		size,
				sz;
	char	   *buf,
			   *rec,
			   *copy;
	uint32		paylen;
	bool		haskey;
	const char *body;
	int			off;
	bool		keynull;

	keynull = (form_desc && form_desc->natts <= c->keyatt) || isnull[c->keyatt];
	if (c->keys->norm != SRM_NORM_NONE)
	{
		SrmTuple	t = {0};

		SrmKeysNormalize(c->keys, keynull ? (Datum) 0 : values[c->keyatt], keynull,
						 &ekey, &erank);
		t.tuple = mt;
		SrmKeysSetDatum1(c->keys, &t, false);
		CHECK((uint64) t.datum1 == ekey && t.nrank == erank,
			  "%s %s: the tuple's key %016llx/%d, the value's %016llx/%d", c->name,
			  what, (unsigned long long) t.datum1, t.nrank,
			  (unsigned long long) ekey, erank);
	}

	/* the size alone: nothing written when the room is too small */
	size = SrmRecEncode(fmt, NULL, 0, mt, len, ekey, erank);
	buf = palloc(size + 16);
	for (off = 1; off <= 3; off += 2)
	{
		memset(buf, 0xA5, size + 16);
		sz = SrmRecEncode(fmt, buf + off, size - 1, mt, len, ekey, erank);
		CHECK(sz == size && (uint8) buf[off] == 0xA5,
			  "%s %s: with %zu bytes of room: %zu, wrote %s", c->name, what,
			  size - 1, sz, (uint8) buf[off] == 0xA5 ? "nothing" : "anyway");
		sz = SrmRecEncode(fmt, buf + off, size, mt, len, ekey, erank);
		rec = buf + off;
		CHECK(sz == size && (uint8) rec[size] == 0xA5 && (uint8) buf[off - 1] == 0xA5,
			  "%s %s: record of %zu bytes, then %zu, or written past", c->name, what,
			  size, sz);
		CHECK(SrmRecSize(rec) == size, "%s %s: SrmRecSize %zu of a %zu-byte record",
			  c->name, what, SrmRecSize(rec), size);
		body = SrmRecHeader(rec, &paylen, &haskey);
		CHECK((Size) (body - rec) == SrmRecHeaderSize(paylen) &&
			  (Size) (body - rec) == (paylen < 0x40 ? 1 : paylen < 0x2000 ? 2 : 5),
			  "%s %s: a %ld-byte length word for %u bytes", c->name, what,
			  (long) (body - rec), paylen);
		CHECK(expect_key < 0 || haskey == (expect_key == 1),
			  "%s %s: key %s, expected %s", c->name, what,
			  haskey ? "stored" : "not stored", expect_key ? "stored" : "not stored");
		CHECK(fmt->normalized || !haskey, "%s %s: a key stored without normalization",
			  c->name, what);
		if (fmt->normalized)
		{
			uint64		key = ~ekey;
			uint8		nrank = 99;

			sz = SrmRecKey(fmt, rec, &key, &nrank);
			CHECK(sz == size && key == ekey && nrank == erank,
				  "%s %s: SrmRecKey %016llx/%d (%zu bytes), expected %016llx/%d (%zu)",
				  c->name, what, (unsigned long long) key, nrank, sz,
				  (unsigned long long) ekey, erank, size);
			key = ~ekey;
			sz = SrmRecFastKey(fmt, rec, &key);
			CHECK(sz == 0 || (sz == size && key == ekey && erank == SRM_NRANK_VALUE),
				  "%s %s: SrmRecFastKey %016llx (%zu bytes), expected %016llx/%d (%zu)",
				  c->name, what, (unsigned long long) key, sz,
				  (unsigned long long) ekey, erank, size);
		}
		if (fmt->heap && SrmRecFast(fmt))
		{
			/*
			 * the final merge's one pass: the tuple and the key, for every
			 * short record without a stored key of a tuple without NULLs
			 */
			SrmTupleBuf tb;
			uint64		key = ~ekey;
			bool		plain = !haskey && paylen < 0x40 &&
				!(((MinimalTuple) mt)->t_infomask & HEAP_HASNULL) &&
				((MinimalTuple) mt)->t_hoff == MINIMAL_TUPLE_OFFSET + SRM_REC_PLAIN_HOFF;

			tb.size = len + 8;
			tb.data = palloc(tb.size);
			memset(tb.data, 0x5A, tb.size);
			copy = SrmRecTakePlain(fmt, rec, &tb, BLCKSZ, &key);
			CHECK((copy != NULL) == plain,
				  "%s %s: SrmRecTakePlain %s a record it should %s", c->name, what,
				  copy != NULL ? "took" : "left", plain ? "take" : "leave");
			CHECK(copy == NULL ||
				  (copy == tb.data && key == ekey && erank == SRM_NRANK_VALUE &&
				   ((MinimalTuple) copy)->t_len == len &&
				   memcmp(copy, mt, len) == 0 && (uint8) copy[len] == 0x5A),
				  "%s %s: SrmRecTakePlain's tuple or key %016llx differs (%016llx)",
				  c->name, what, (unsigned long long) key,
				  (unsigned long long) ekey);
			pfree(tb.data);
		}
		{
			/* into a buffer with room: nothing written past the tuple */
			SrmTupleBuf tb;
			SrmTupleBuf fresh = {0};

			tb.size = len + 8;
			tb.data = palloc(tb.size);
			memset(tb.data, 0x5A, tb.size);
			copy = SrmRecMaterializeInto(fmt, rec, &tb, BLCKSZ, CurrentMemoryContext);
			CHECK(copy == tb.data && ((MinimalTuple) copy)->t_len == len,
				  "%s %s: rebuilds %u bytes of %u, or in another buffer", c->name,
				  what, ((MinimalTuple) copy)->t_len, len);
			CHECK(memcmp(copy, mt, len) == 0 && (uint8) copy[len] == 0x5A,
				  "%s %s: the rebuilt tuple differs", c->name, what);
			pfree(tb.data);
			/* into an empty buffer, which it allocates */
			copy = SrmRecMaterializeInto(fmt, rec, &fresh, BLCKSZ, CurrentMemoryContext);
			CHECK(fresh.size >= len && memcmp(copy, mt, len) == 0,
				  "%s %s: the tuple rebuilt into a new buffer differs", c->name, what);
			pfree(fresh.data);
		}
	}
	/*
	 * the inline common case writes the same record, and takes every heap
	 * tuple without NULLs whose record has a short word and no key
	 */
	{
		char	   *plain = palloc(size + 1);
		bool		take = fmt->heap && SrmRecFast(fmt) && !haskey &&
			paylen < 0x2000 && !(mt->t_infomask & HEAP_HASNULL);

		sz = SrmRecEncodePlain(fmt, plain, size, mt, len);
		CHECK(sz == 0 || (sz == size && memcmp(plain, buf + 3, size) == 0),
			  "%s %s: SrmRecEncodePlain wrote %zu bytes, SrmRecEncode %zu", c->name,
			  what, sz, size);
		CHECK(!take || sz == size,
			  "%s %s: SrmRecEncodePlain left a plain record of %zu bytes",
			  c->name, what, size);
		sz = SrmRecEncodePlain(fmt, plain, size - 1, mt, len);
		CHECK(sz == 0, "%s %s: SrmRecEncodePlain wrote %zu bytes into %zu",
			  c->name, what, sz, size - 1);
		pfree(plain);
	}
	pfree(buf);
	pfree(mt);
}

/* the text (or bytea) of len bytes, from seed */
static Datum
rec_bytes(Size len, int seed)
{
	struct varlena *v = palloc(VARHDRSZ + len);
	Size		i;

	SET_VARSIZE(v, VARHDRSZ + len);
	for (i = 0; i < len; i++)
		VARDATA(v)[i] = (char) ('a' + (i * 7 + seed) % 26);
	return PointerGetDatum(v);
}

/*
 * unit_rec_scalars
 *		One-column sorts of by-value and by-reference types, ASC and DESC,
 *		NULLS FIRST and LAST: the key derived from the column, and ordered.
 */
static void
unit_rec_scalars(void)
{
	static const int64 ints[] = {PG_INT64_MIN, PG_INT32_MIN - (int64) 1, PG_INT16_MIN,
	-1, 0, 1, PG_INT16_MAX, PG_INT32_MAX, PG_INT64_MAX};
	static const Oid int_types[] = {INT2OID, INT4OID, INT8OID, DATEOID, TIMESTAMPOID, OIDOID};
	int			t,
				i,
				order;
	char		what[64];

	for (order = 0; order < 4; order++)
	{
		bool		descending = order & 1;
		bool		nulls_first = order & 2;

		for (t = 0; t < lengthof(int_types); t++)
		{
			Oid			typid = int_types[t];
			RecCase		c;
			uint64		prev = 0;
			bool		have_prev = false;

			rec_case(&c, format_type_be(typid), rec_desc(1, &typid, 1, false), 0,
					 descending, nulls_first, InvalidOid);
			CHECK(c.fmt.derive && c.fmt.normalized,
				  "%s: a key not derived from the column", c.name);
			for (i = 0; i < lengthof(ints); i++)
			{
				Datum		v;
				bool		n = false;
				uint64		key;
				uint8		nrank;
				int64		x = ints[i];

				if (typid == INT2OID && (x < PG_INT16_MIN || x > PG_INT16_MAX))
					continue;
				if ((typid == INT4OID || typid == DATEOID) && (x < PG_INT32_MIN || x > PG_INT32_MAX))
					continue;
				if (typid == OIDOID && (x < 0 || x > PG_UINT32_MAX))
					continue;
				v = typid == INT2OID ? Int16GetDatum((int16) x) :
					(typid == INT4OID || typid == DATEOID) ? Int32GetDatum((int32) x) :
					typid == OIDOID ? ObjectIdGetDatum((Oid) x) : Int64GetDatum(x);
				snprintf(what, sizeof(what), "%s %lld", descending ? "DESC" : "ASC",
						 (long long) x);
				rec_roundtrip(&c, NULL, &v, &n, 0, what);
				SrmKeysNormalize(c.keys, v, false, &key, &nrank);
				if (typid != OIDOID)
				{
					uint64		u = (uint64) x ^ UINT64CONST(0x8000000000000000);

					CHECK(key == (descending ? ~u : u),
						  "%s %s: key %016llx, expected the sign flip%s", c.name, what,
						  (unsigned long long) key, descending ? " folded" : "");
				}
				CHECK(!have_prev || (descending ? key < prev : key > prev),
					  "%s %s: key %016llx out of order after %016llx", c.name, what,
					  (unsigned long long) key, (unsigned long long) prev);
				prev = key;
				have_prev = true;
			}
			{
				Datum		v = 0;
				bool		n = true;

				rec_roundtrip(&c, NULL, &v, &n, 0, nulls_first ? "NULL first" : "NULL last");
			}
		}

		/* floats: -inf < -1 < -0 = 0 < 1 < inf < NaN; bool; uuid */
		{
			static const double fl[] = {-INFINITY, -1e30, -1, -0.0, 0.0, 1e-30, 1, INFINITY, NAN};
			Oid			ftypes[] = {FLOAT4OID, FLOAT8OID};

			for (t = 0; t < 2; t++)
			{
				RecCase		c;
				uint64		prev = 0;

				rec_case(&c, format_type_be(ftypes[t]), rec_desc(1, &ftypes[t], 1, false), 0,
						 descending, nulls_first, InvalidOid);
				for (i = 0; i < lengthof(fl); i++)
				{
					Datum		v = t == 0 ? Float4GetDatum((float4) fl[i]) : Float8GetDatum(fl[i]);
					bool		n = false;
					uint64		key;
					uint8		nrank;

					snprintf(what, sizeof(what), "%s %g", descending ? "DESC" : "ASC", fl[i]);
					rec_roundtrip(&c, NULL, &v, &n, 0, what);
					SrmKeysNormalize(c.keys, v, false, &key, &nrank);
					if (i > 0)
						CHECK(i == 4 ? key == prev : (descending ? key < prev : key > prev),
							  "%s %s: key %016llx, before it %016llx", c.name, what,
							  (unsigned long long) key, (unsigned long long) prev);
					prev = key;
				}
			}
		}
		{
			Oid			typid = BOOLOID;
			RecCase		c;
			Datum		v;
			bool		n = false;

			rec_case(&c, "bool", rec_desc(1, &typid, 1, false), 0, descending,
					 nulls_first, InvalidOid);
			v = BoolGetDatum(false);
			rec_roundtrip(&c, NULL, &v, &n, -1, "false");
			v = BoolGetDatum(true);
			rec_roundtrip(&c, NULL, &v, &n, -1, "true");
		}
		{
			Oid			types[] = {INT2OID, UUIDOID};
			RecCase		c;
			Datum		v[2];
			bool		n[2] = {false, false};
			pg_uuid_t	u;
			int			j;

			/* uuid: by reference, fixed length, after an int2 (aligned 'c') */
			rec_case(&c, "(int2, uuid)", rec_desc(2, types, 2, false), 1, descending,
					 nulls_first, InvalidOid);
			CHECK(c.keys->norm_uuid && c.fmt.derive, "uuid: not derived");
			for (j = 0; j < 3; j++)
			{
				for (i = 0; i < UUID_LEN; i++)
					u.data[i] = (unsigned char) (j == 0 ? 0 : j == 1 ? 0xFF : i * 17);
				v[0] = Int16GetDatum(j);
				v[1] = UUIDPGetDatum(&u);
				rec_roundtrip(&c, NULL, v, n, 0, "uuid");
			}
		}
	}
}

/*
 * unit_rec_varlena
 *		Text and bytea keys: every length around the length word's classes
 *		and the short-header limit, 4-byte headers (plain storage) with and
 *		without pad bytes before them, long values, NULLs, DESC.
 */
static void
unit_rec_varlena(void)
{
	static const Size lens[] = {0, 1, 7, 8, 9, 57, 58, 59, 60, 120, 125, 126, 127, 128,
	8180, 8181, 8182, 8183, 8184, 8190, 65535, 1024 * 1024, 8 * 1024 * 1024};
	int			shape,
				order,
				i;
	char		what[64];

	for (shape = 0; shape < 7; shape++)
		for (order = 0; order < 2; order++)
		{
			/*
			 * text; bytea; (bool, text); the same plain; text plain; (int4,
			 * text); (bytea, text), a key before a payload of 90 bytes
			 */
			Oid			text = TEXTOID;
			Oid			bytea = BYTEAOID;
			Oid			bt[] = {BOOLOID, TEXTOID};
			Oid			it[] = {INT4OID, TEXTOID};
			Oid			bpt[] = {BYTEAOID, TEXTOID};
			RecCase		c;
			TupleDesc	desc;
			int			keyatt = (shape == 2 || shape == 3 || shape == 5) ? 1 : 0;
			Datum		v[2];
			bool		n[2] = {false, false};
			static const char *names[] = {"text", "bytea", "(bool, text)",
			"(bool, text plain)", "text plain", "(int4, text)", "(bytea, text)"};

			desc = shape == 0 ? rec_desc(1, &text, 1, false) :
				shape == 1 ? rec_desc(1, &bytea, 1, false) :
				shape == 2 ? rec_desc(2, bt, 2, false) :
				shape == 3 ? rec_desc(2, bt, 2, true) :
				shape == 4 ? rec_desc(1, &text, 1, true) :
				shape == 5 ? rec_desc(2, it, 2, false) :
				rec_desc(2, bpt, 2, false);
			rec_case(&c, names[shape], desc, keyatt, order == 1, order == 1,
					 C_COLLATION_OID);
			CHECK(c.keys->norm == SRM_NORM_BYTES && c.fmt.derive,
				  "%s: not a derived bytewise key (norm %d)", c.name, c.keys->norm);
			v[0] = BoolGetDatum(true);
			if (shape == 5)
				v[0] = Int32GetDatum(-7);
			if (shape == 6)
				v[1] = rec_bytes(90, 5);
			for (i = 0; i < lengthof(lens); i++)
			{
				v[keyatt] = rec_bytes(lens[i], i);
				snprintf(what, sizeof(what), "%s length %zu", order ? "DESC" : "ASC",
						 lens[i]);
				rec_roundtrip(&c, NULL, v, n, 0, what);
				pfree(DatumGetPointer(v[keyatt]));
			}
			n[keyatt] = true;
			rec_roundtrip(&c, NULL, v, n, 0, "NULL");
			if (keyatt == 1)
			{
				/* a NULL before the key moves it: stored */
				n[0] = true;
				n[1] = false;
				v[1] = rec_bytes(10, 3);
				rec_roundtrip(&c, NULL, v, n, 1, "after a NULL");
			}
		}

	/* a varlena before the key: the key is stored */
	{
		Oid			ti[] = {TEXTOID, INT8OID};
		RecCase		c;
		Datum		v[2];
		bool		n[2] = {false, false};

		rec_case(&c, "(text, int8)", rec_desc(2, ti, 2, false), 1, false, false,
				 InvalidOid);
		CHECK(!c.fmt.derive, "(text, int8): derives a key after a varlena");
		v[0] = rec_bytes(3, 1);
		v[1] = Int64GetDatum(42);
		rec_roundtrip(&c, NULL, v, n, 1, "42");
		n[1] = true;
		rec_roundtrip(&c, NULL, v, n, 1, "NULL");
	}
	/* abbreviated (bpchar, "C"): stored, NULL too; no normalization: none */
	{
		Oid			bp = BPCHAROID;
		Oid			iv = INTERVALOID;
		RecCase		c;
		Datum		v;
		bool		n = false;

		rec_case(&c, "bpchar", rec_desc(1, &bp, 1, false), 0, false, false,
				 C_COLLATION_OID);
		if (c.keys->norm == SRM_NORM_ABBREV)
		{
			v = rec_bytes(20, 0);
			rec_roundtrip(&c, NULL, &v, &n, 1, "abbreviated");
			n = true;
			rec_roundtrip(&c, NULL, &v, &n, 1, "abbreviated NULL");
		}
		rec_case(&c, "interval", rec_desc(1, &iv, 1, false), 0, false, false,
				 InvalidOid);
		CHECK(!c.fmt.normalized, "interval: normalized");
		{
			Interval	itv = {0};

			itv.time = 12345;
			itv.month = 3;
			v = IntervalPGetDatum(&itv);
			n = false;
			rec_roundtrip(&c, NULL, &v, &n, 0, "no key");
		}
	}
}

/*
 * unit_rec_columns
 *		Wide tuples: the key after up to 1599 fixed-length columns of mixed
 *		alignment, with and without NULLs before it; a tuple that lacks the
 *		key column (added later): stored.
 */
static void
unit_rec_columns(void)
{
	static const Oid mixed[] = {INT2OID, INT8OID, BOOLOID, INT4OID, FLOAT8OID, CHAROID};
	static const int widths[] = {2, 7, 100, 1600};
	int			w,
				i;

	for (w = 0; w < lengthof(widths); w++)
	{
		int			natts = widths[w];
		Oid		   *types = palloc(sizeof(Oid) * natts);
		Datum	   *v = palloc0(sizeof(Datum) * natts);
		bool	   *n = palloc0(sizeof(bool) * natts);
		RecCase		c;
		char		name[64];

		for (i = 0; i < natts - 1; i++)
			types[i] = mixed[i % lengthof(mixed)];
		types[natts - 1] = INT8OID;
		snprintf(name, sizeof(name), "%d columns", natts);
		rec_case(&c, pstrdup(name), rec_desc(natts, types, natts, false), natts - 1,
				 w % 2 == 1, w >= 2, InvalidOid);
		CHECK(c.fmt.derive && c.fmt.fast_int, "%s: key not derived", c.name);
		for (i = 0; i < natts; i++)
			v[i] = types[i] == FLOAT8OID ? Float8GetDatum(i * 0.5) :
				types[i] == BOOLOID ? BoolGetDatum(i & 1) :
				types[i] == CHAROID ? CharGetDatum('a' + i % 26) :
				types[i] == INT2OID ? Int16GetDatum(i) :
				types[i] == INT4OID ? Int32GetDatum(-i) : Int64GetDatum((int64) i << 40);
		rec_roundtrip(&c, NULL, v, n, 0, "no NULLs");
		n[natts - 1] = true;
		rec_roundtrip(&c, NULL, v, n, 0, "key NULL");
		n[natts - 1] = false;
		if (natts > 1)
		{
			n[(natts - 1) / 2] = true;
			rec_roundtrip(&c, NULL, v, n, 1, "a NULL before the key");
			n[0] = true;
			n[natts - 1] = true;
			rec_roundtrip(&c, NULL, v, n, 0, "NULLs and the key NULL");
			memset(n, 0, sizeof(bool) * natts);
			/* a tuple of a descriptor without the key column */
			{
				TupleDesc	shorter = rec_desc(natts - 1, types, natts - 1, false);

				rec_roundtrip(&c, shorter, v, n, 1, "key column missing");
			}
		}
	}
}

/*
 * pair_roundtrip
 *		A tuple of a two-key sort (keys on atts of desc) encoded and read
 *		back: the key SrmKeysSetDatum1 gives, stored as expect_key says.
 */
static void
pair_roundtrip(const char *name, SrmKeys *keys, SrmRecFormat *fmt, TupleDesc desc,
			   Datum *v, bool *n, bool expect_key)
{
	MinimalTuple mt = form_minimal(desc, v, n);
	SrmTuple	t = {0};
	Size		size,
				sz;
	char	   *rec;
	uint32		paylen;
	bool		haskey;
	uint64		key;
	uint8		nrank;

	t.tuple = mt;
	SrmKeysSetDatum1(keys, &t, false);
	size = SrmRecEncode(fmt, NULL, 0, mt, mt->t_len, t.datum1, t.nrank);
	rec = palloc(size);
	SrmRecEncode(fmt, rec, size, mt, mt->t_len, t.datum1, t.nrank);
	SrmRecHeader(rec, &paylen, &haskey);
	CHECK(haskey == expect_key, "%s: key %s", name, haskey ? "stored" : "not stored");
	/* the inline common case: every short record without NULLs or a key */
	key = ~(uint64) t.datum1;
	sz = SrmRecFastKey(fmt, rec, &key);
	CHECK(sz == (!haskey && paylen < 0x2000 && !(mt->t_infomask & HEAP_HASNULL) ?
				 size : 0) &&
		  (sz == 0 || (key == (uint64) t.datum1 && t.nrank == SRM_NRANK_VALUE)),
		  "%s: SrmRecFastKey %016llx (%zu bytes of %zu), the tuple's %016llx/%d",
		  name, (unsigned long long) key, sz, size,
		  (unsigned long long) t.datum1, t.nrank);
	key = ~(uint64) t.datum1;
	nrank = 99;
	CHECK(SrmRecKey(fmt, rec, &key, &nrank) == size && key == (uint64) t.datum1 &&
		  nrank == t.nrank, "%s: SrmRecKey %016llx/%d, the tuple's %016llx/%d",
		  name, (unsigned long long) key, nrank, (unsigned long long) t.datum1,
		  t.nrank);
	pfree(rec);
	pfree(mt);
}

/*
 * unit_rec_pairs
 *		Two-key sorts whose first key has 32 bits or fewer: records derive
 *		the key from both by-value columns, in either column order, and
 *		store it where a NULL is in or before a key, or the second key is
 *		not by value.
 */
static void
unit_rec_pairs(void)
{
	Oid			types[] = {INT2OID, INT4OID, TEXTOID, INT8OID, DATEOID};
	TupleDesc	desc = rec_desc(5, types, 5, false);
	static const struct
	{
		AttrNumber	att[2];
		bool		fast;
	}			cases[] = {
		{{2, 1}, true}, {{1, 2}, true}, {{5, 2}, false}, {{2, 4}, false}, {{1, 3}, false}
	};
	int			c,
				order;

	for (c = 0; c < lengthof(cases); c++)
		for (order = 0; order < 4; order++)
		{
			Oid			ops[2];
			Oid			colls[] = {InvalidOid, DEFAULT_COLLATION_OID};
			bool		nf[] = {(order & 1) != 0, (order & 2) == 0};
			SrmKeys    *keys;
			SrmRecFormat fmt;
			Datum		v[5];
			bool		n[5] = {0};
			char		name[64];
			int			k;

			for (k = 0; k < 2; k++)
			{
				Oid			typid = types[cases[c].att[k] - 1];
				TypeCacheEntry *tc = lookup_type_cache(typid, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);

				ops[k] = (order >> k) & 1 ? tc->gt_opr : tc->lt_opr;
			}
			colls[0] = InvalidOid;
			colls[1] = types[cases[c].att[1] - 1] == TEXTOID ? C_COLLATION_OID : InvalidOid;
			keys = SrmKeysMakeHeap(desc, 2, (AttrNumber *) cases[c].att, ops, colls, nf);
			SrmRecFormatInit(&fmt, keys);
			snprintf(name, sizeof(name), "pair (%d, %d) order %d", cases[c].att[0],
					 cases[c].att[1], order);
			CHECK(keys->norm2 != SRM_NORM_NONE && fmt.fast_pair == cases[c].fast,
				  "%s: norm2 %d, fast_pair %d", name, keys->norm2, fmt.fast_pair);
			v[0] = Int16GetDatum(-7);
			v[1] = Int32GetDatum(PG_INT32_MIN + order);
			v[2] = CStringGetTextDatum("pair");
			v[3] = Int64GetDatum(INT64CONST(1) << 40);
			v[4] = Int32GetDatum(PG_INT32_MAX - order);
			pair_roundtrip(name, keys, &fmt, desc, v, n, !cases[c].fast);
			n[2] = true;
			pair_roundtrip(name, keys, &fmt, desc, v, n,
						   !cases[c].fast || cases[c].att[1] > 2);
			n[2] = false;
			n[cases[c].att[1] - 1] = true;
			pair_roundtrip(name, keys, &fmt, desc, v, n, true);
			n[cases[c].att[1] - 1] = false;
			n[cases[c].att[0] - 1] = true;
			pair_roundtrip(name, keys, &fmt, desc, v, n, true);
		}
}

static void
unit_record(void)
{
	unit_rec_scalars();
	unit_rec_varlena();
	unit_rec_columns();
	unit_rec_pairs();
}

/*
 * srmsort_unit_record
 *		SQL: the record format's failed checks.
 */
Datum
srmsort_unit_record(PG_FUNCTION_ARGS)
{
	return unit_srf(fcinfo, unit_record, 2000);
}
