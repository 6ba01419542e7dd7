/*-------------------------------------------------------------------------
 *
 * runmeta.c
 *	  Run bookkeeping paged through a metadata workfile (SRM paper §4.1.2).
 *
 * A run's bookkeeping -- a slot reference and a forecast key per block --
 * is small beside the run (about 24 bytes per block), but a big sort in
 * little memory has so many blocks that all of it no longer fits in the
 * budget (10M 136-byte records at 4MB: 2MB in 16kB blocks).  The merge only
 * ever looks at a run's bookkeeping near two points, the forecast frontier
 * and the block being consumed, so each array is kept in a workfile and
 * only a few small pages of it are cached while the run is being written
 * or merged.  Pages are written back when evicted if they changed (slots
 * are released during merges) and read back on demand; the file is in the
 * page cache in practice, and one page covers SRM_PAGE_ENTRIES blocks.
 *
 * First keys passed by reference that have no normalized form go to a
 * third file, the keys file (SrmKeyFile), appended to as runs are written;
 * a paged run's forecast entries hold their positions in it.
 *
 * IDENTIFICATION
 *	  src/runs/runmeta.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "pgstat.h"
#include "utils/wait_event.h"

#include "runs/runmeta.h"

#define SRM_MAX_PAGE_SLOTS	8

struct SrmPageCache
{
	int			last;			/* slot of the last hit, tried first */
	uint32		tick;
	int64		pageno[SRM_MAX_PAGE_SLOTS]; /* -1: empty */
	uint32		used[SRM_MAX_PAGE_SLOTS];
	bool		dirty[SRM_MAX_PAGE_SLOTS];
	char		data[FLEXIBLE_ARRAY_MEMBER];
};

/*
 * SrmMetaFileInit
 *		A metadata file of entsz-byte entries on the temporary file vfd;
 *		arrays in use cache nslots pages each, allocated in cxt.
 */
void
SrmMetaFileInit(SrmMetaFile *mf, File vfd, int entsz, int nslots,
				MemoryContext cxt)
{
	Assert(nslots > 0 && nslots <= SRM_MAX_PAGE_SLOTS);
	mf->vfd = vfd;
	mf->entsz = entsz;
	mf->nslots = nslots;
	mf->eof = 0;
	mf->cxt = cxt;
}

/*
 * SrmMetaCacheBytes
 *		Memory of one array's page cache (what an open array costs).
 */
Size
SrmMetaCacheBytes(SrmMetaFile *mf)
{
	return offsetof(SrmPageCache, data) +
		(Size) mf->nslots * SRM_PAGE_ENTRIES * mf->entsz;
}

static inline char *
slot_data(SrmMetaFile *mf, SrmPageCache *c, int slot)
{
	return c->data + (Size) slot * SRM_PAGE_ENTRIES * mf->entsz;
}

/* Entries of page k that exist: the last page of an array is partial. */
static inline int
page_count(SrmPaged *pa, int64 k)
{
	return (int) Min((int64) SRM_PAGE_ENTRIES, pa->n - k * SRM_PAGE_ENTRIES);
}

static inline off_t
page_offset(SrmMetaFile *mf, SrmPaged *pa, int64 k)
{
	return (off_t) (pa->base + k * SRM_PAGE_ENTRIES) * mf->entsz;
}

/*
 * meta_write
 *		Write len bytes at pos of a metadata file, or ERROR.
 */
static void
meta_write(File vfd, const char *p, int len, off_t pos)
{
	int			rc = FileWrite(vfd, (char *) p, len, pos, WAIT_EVENT_BUFFILE_WRITE);

	if (rc != len)
	{
		/* a short write without an error: assume the disk is full */
		if (rc >= 0)
			errno = ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write to file \"%s\": %m",
						FilePathName(vfd))));
	}
}

/*
 * meta_read
 *		Read up to len bytes at pos of a metadata file (fewer at its end);
 *		the bytes read, or ERROR.
 */
static int
meta_read(File vfd, char *p, int len, off_t pos)
{
	int			rc = FileRead(vfd, p, len, pos, WAIT_EVENT_BUFFILE_READ);

	if (rc < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m",
						FilePathName(vfd))));
	return rc;
}

/*
 * write_back
 *		Write the valid entries of a dirty cached page to the file; only
 *		those, as the next run's entries follow right after.
 */
static void
write_back(SrmMetaFile *mf, SrmPaged *pa, int slot)
{
	SrmPageCache *c = pa->cache;
	int			bytes = page_count(pa, c->pageno[slot]) * mf->entsz;

	if (bytes > 0)
		meta_write(mf->vfd, slot_data(mf, c, slot), bytes,
					 page_offset(mf, pa, c->pageno[slot]));
	c->dirty[slot] = false;
}

/*
 * load_page
 *		Read page k into a slot, evicting the least recently used page.
 *		Entries past the end of the file are the newest array's appends
 *		not yet written back: they start zeroed.
 */
static int
load_page(SrmMetaFile *mf, SrmPaged *pa, int64 k)
{
	SrmPageCache *c = pa->cache;
	int			victim = 0;
	int			s;
	int			want;
	int			got;
	char	   *buf;

	for (s = 0; s < mf->nslots; s++)
	{
		if (c->pageno[s] < 0)
		{
			victim = s;
			break;
		}
		if (c->used[s] < c->used[victim])
			victim = s;
	}
	if (c->pageno[victim] >= 0 && c->dirty[victim])
		write_back(mf, pa, victim);

	buf = slot_data(mf, c, victim);
	want = page_count(pa, k) * mf->entsz;
	got = meta_read(mf->vfd, buf, want, page_offset(mf, pa, k));
	if (got < want)
		memset(buf + got, 0, want - got);
	c->pageno[victim] = k;
	c->dirty[victim] = false;
	return victim;
}

/*
 * SrmPagedAt
 *		Entry i of the array, cached; the pointer is valid until the next
 *		call on the same array.  With dirty, the caller changes the entry.
 */
void *
SrmPagedAt(SrmMetaFile *mf, SrmPaged *pa, int64 i, bool dirty)
{
	SrmPageCache *c = pa->cache;
	int64		k = i / SRM_PAGE_ENTRIES;
	int			slot;

	Assert(i >= 0 && i < pa->n);
	if (c == NULL)
	{
		c = MemoryContextAlloc(mf->cxt, SrmMetaCacheBytes(mf));
		c->last = 0;
		c->tick = 0;
		for (slot = 0; slot < SRM_MAX_PAGE_SLOTS; slot++)
		{
			c->pageno[slot] = -1;
			c->used[slot] = 0;
			c->dirty[slot] = false;
		}
		pa->cache = c;
	}

	slot = c->last;
	if (c->pageno[slot] != k)
	{
		for (slot = 0; slot < mf->nslots; slot++)
			if (c->pageno[slot] == k)
				break;
		if (slot == mf->nslots)
			slot = load_page(mf, pa, k);
		c->last = slot;
	}
	c->used[slot] = ++c->tick;
	if (dirty)
		c->dirty[slot] = true;
	return slot_data(mf, c, slot) + (i - k * SRM_PAGE_ENTRIES) * mf->entsz;
}

/*
 * SrmPagedAppend
 *		A new (zeroed or stale) last entry of the array, to be filled in.
 *		Only the newest array of the file may grow.
 */
void *
SrmPagedAppend(SrmMetaFile *mf, SrmPaged *pa)
{
	if (pa->n == 0)
		pa->base = mf->eof;
	else if (pa->base + pa->n != mf->eof)
		elog(ERROR, "srmsort: run bookkeeping appended to an array that is not the newest");
	pa->n++;
	mf->eof = pa->base + pa->n;
	return SrmPagedAt(mf, pa, pa->n - 1, true);
}

/*
 * SrmPagedClose
 *		Stop using the array for now: write back its changed pages (unless
 *		the array is being dropped) and free its cache.
 */
void
SrmPagedClose(SrmMetaFile *mf, SrmPaged *pa, bool write_back_pages)
{
	SrmPageCache *c = pa->cache;
	int			slot;

	if (c == NULL)
		return;
	if (write_back_pages)
		for (slot = 0; slot < mf->nslots; slot++)
			if (c->pageno[slot] >= 0 && c->dirty[slot])
				write_back(mf, pa, slot);
	pfree(c);
	pa->cache = NULL;
}

/* a value in the keys file: a length word, then the bytes */
typedef uint32 SrmKeyLen;

/* Read exactly len bytes at pos of the keys file, or ERROR. */
static void
key_file_read(SrmKeyFile *kf, char *p, int len, off_t pos)
{
	int			got = meta_read(kf->vfd, p, len, pos);

	if (got != len)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not read file \"%s\": read only %d of %d bytes",
						FilePathName(kf->vfd), got, len)));
}

/*
 * SrmKeyFileAppend
 *		Append the len bytes at p to the keys file; their position.
 */
off_t
SrmKeyFileAppend(SrmKeyFile *kf, const char *p, uint32 len)
{
	SrmKeyLen	l = len;
	off_t		pos = kf->eof;

	meta_write(kf->vfd, (const char *) &l, sizeof(l), pos);
	meta_write(kf->vfd, p, (int) len, pos + sizeof(l));
	kf->eof = pos + sizeof(l) + len;
	return pos;
}

/*
 * SrmKeyFileRead
 *		The value at pos of the keys file, read into *buf (grown in cxt as
 *		needed; valid until the next call with the same buffer).
 */
char *
SrmKeyFileRead(SrmKeyFile *kf, off_t pos, char **buf, Size *bufsize,
			   MemoryContext cxt)
{
	SrmKeyLen	len;

	key_file_read(kf, (char *) &len, sizeof(len), pos);
	if (*buf == NULL || *bufsize < len)
	{
		if (*buf != NULL)
			pfree(*buf);
		*bufsize = Max(len, 64);
		*buf = MemoryContextAlloc(cxt, *bufsize);
	}
	key_file_read(kf, *buf, (int) len, pos + sizeof(len));
	return *buf;
}
