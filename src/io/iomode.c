/*-------------------------------------------------------------------------
 *
 * iomode.c
 *	  Buffered or direct workfiles: srmsort.direct_io = auto's choice.
 *
 * Buffered workfiles go through the page cache: when they fit in it, a
 * sort never waits for a disk (its runs are read back before the kernel
 * has written them), and when they do not, the kernel still writes them
 * back behind the sort.  Direct I/O (O_DIRECT) skips the page cache: every
 * block crosses the disk, with no copy on a CPU and no other data evicted
 * from the cache; write-behind (writering.c) overlaps the writes with the
 * next memory load as the kernel does for buffered files.
 *
 * auto takes direct I/O for a sort whose workfiles would not fit in its
 * share of the page cache it can use -- the cache the server's memory
 * bound leaves (a cgroup's limit, over its processes' own memory) or the
 * memory the kernel counts as available, whichever is less, shared by the
 * sorts running on srmsort's disks now -- and buffered I/O otherwise,
 * including when the sort's size is not known.  The measurements behind
 * the rule are bench/results/disk_bound_* (README, "Choosing disks").
 *
 * IDENTIFICATION
 *	  src/io/iomode.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <stdio.h>

#include "base/settings.h"
#include "base/shmem.h"
#include "io/iomode.h"
#include "io/workfile.h"

/*
 * read_number
 *		The first number in file path after the line prefix key (NULL: the
 *		file's first line), or -1 if there is none.
 */
static double
read_number(const char *path, const char *key)
{
	FILE	   *f = fopen(path, "r");
	char		line[256];
	double		v = -1;
	size_t		klen = key ? strlen(key) : 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		if (key != NULL && strncmp(line, key, klen) != 0)
			continue;
		if (strncmp(line + klen, "max", 3) == 0)
			v = -1;				/* cgroup v2: no limit */
		else if (sscanf(line + klen, "%lf", &v) != 1)
			v = -1;
		break;
	}
	fclose(f);
	return v;
}

/* a cgroup's directory, its limit, usage and stat files, the cache line */
static const char *const v1_files[] = {
	"/sys/fs/cgroup/memory%s/%s", "memory.limit_in_bytes", "memory.usage_in_bytes",
	"memory.stat", "cache "
};
static const char *const v2_files[] = {
	"/sys/fs/cgroup%s/%s", "memory.max", "memory.current", "memory.stat", "file "
};

/*
 * cgroup_room
 *		What the memory cgroup of this process leaves for page cache: its
 *		limit less what its processes use themselves (usage less cache,
 *		shared memory included), in bytes; -1 without a limit.
 */
static double
cgroup_room(void)
{
	FILE	   *f = fopen("/proc/self/cgroup", "r");
	char		line[MAXPGPATH];
	char		dir[MAXPGPATH] = "";
	bool		v1 = false;
	char		path[MAXPGPATH + 64];
	double		limit,
				usage,
				cache,
				shmem;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		char	   *p = strchr(line, ':');
		char	   *q = p ? strchr(p + 1, ':') : NULL;

		if (q == NULL)
			continue;
		q[strcspn(q, "\n")] = '\0';
		/* v1: "N:memory:/path"; v2: "0::/path" (used only without v1) */
		if (strncmp(p + 1, "memory:", 7) == 0 || strstr(p + 1, ",memory:") != NULL)
		{
			strlcpy(dir, q + 1, sizeof(dir));
			v1 = true;
			break;
		}
		if (p[1] == ':' && dir[0] == '\0')
			strlcpy(dir, q + 1, sizeof(dir));
	}
	fclose(f);
	if (dir[0] == '\0')
		return -1;
	/* v1's files, or v2's */
	{
		const char *const *k = v1 ? v1_files : v2_files;

		snprintf(path, sizeof(path), k[0], dir, k[1]);
		limit = read_number(path, NULL);
		snprintf(path, sizeof(path), k[0], dir, k[2]);
		usage = read_number(path, NULL);
		snprintf(path, sizeof(path), k[0], dir, k[3]);
		cache = read_number(path, k[4]);
		shmem = read_number(path, "shmem ");
	}
	/* a v1 cgroup without a limit shows a huge one */
	if (limit >= (double) PG_INT64_MAX / 2)
		return -1;
	if (limit < 0 || usage < 0 || cache < 0)
		return -1;
	/* shared memory (shared_buffers) is counted as cache, but stays */
	return Max(limit - (usage - cache + Max(shmem, 0)), 0);
}

/*
 * SrmChooseDirectIo
 *		See disks.h.
 */
bool
SrmChooseDirectIo(double expect_bytes)
{
	double		room;
	double		cg;
	int			sorts;

	if (srmsort_direct_io != SRM_DIRECT_IO_AUTO)
		return srmsort_direct_io == SRM_DIRECT_IO_ON;
	if (expect_bytes <= 0)
		return false;
	room = read_number("/proc/meminfo", "MemAvailable:");
	if (room >= 0)
		room *= 1024;			/* kB */
	cg = cgroup_room();
	if (cg >= 0 && (room < 0 || cg < room))
		room = cg;
	if (room < 0)
		return false;
	/* the sorts running on srmsort's disks share it, this one among them */
	sorts = SrmActiveJobs() + 1;
	ereport(DEBUG1,
			(errmsg_internal("srmsort: direct_io auto: %.0f MB of workfiles expected, %.0f MB of page cache for each of %d sorts: %s",
							 expect_bytes / 1e6, room / sorts / 1e6, sorts,
							 expect_bytes > room / sorts ? "direct" : "buffered")));
	return expect_bytes > room / sorts;
}
