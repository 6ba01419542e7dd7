/*-------------------------------------------------------------------------
 *
 * icukey.h
 *	  Normalized keys of text under ICU collations: the leading primary
 *	  weights of ICU's sort key, from a table for ASCII characters.
 *
 * IDENTIFICATION
 *	  src/keys/icukey.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_ICUKEY_H
#define SRM_ICUKEY_H

/* One ICU collation's key maker, per backend (opaque; see icukey.c). */
typedef struct SrmIcuKey SrmIcuKey;

/*
 * The key maker of collation coll, or NULL if coll is not an ICU
 * collation, the database encoding is not UTF-8, or the server was built
 * without ICU.  Lives as long as the backend.
 */
extern SrmIcuKey *SrmIcuKeyLookup(Oid coll);

/* K(s) of the UTF-8 string s[0..len) (see icukey.c); may ERROR. */
extern uint64 SrmIcuKeyMake(SrmIcuKey *ik, const char *s, int len);

/*
 * K(s) from the first len bytes of a longer string alone, if they decide
 * it (the table's case); false otherwise.  Never calls ICU.
 */
extern bool SrmIcuKeyMakePrefix(SrmIcuKey *ik, const char *s, int len,
								uint64 *key);

#endif							/* SRM_ICUKEY_H */
