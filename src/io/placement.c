/*-------------------------------------------------------------------------
 *
 * placement.c
 *	  Weighted striping: which disk holds block i of a run.
 *
 * SRM stripes a run's blocks round robin from a random start disk: block
 * i of a run that starts on disk s lives on disk (s + i) mod D.  Every
 * disk gets the same share of every run, so on disks of different speeds
 * the slowest sets the pace of run formation and of every merge (four
 * disks, two of them at half speed: 1.81 times the time of four
 * full-speed disks, where the bandwidth they add up to allows 1.33).
 *
 * Weighted striping gives disk d a share of the blocks in proportion to
 * its weight w_d (its bandwidth, NOW-Sort's calibration): the weights are
 * rounded to small integers n_d (the fastest disk SRM_STRIPE_RESOLUTION,
 * the others in proportion, at least 1), and a period of L = sum(n_d)
 * blocks, the stripe, lists the disk of each of its blocks, every disk d
 * n_d times, spread as evenly as the shares allow (smooth weighted round
 * robin).  Block i of a run whose start is s lives on disk
 * pattern[(s + i) mod L], s drawn uniformly from [0, L): the randomized
 * start of SRM, over the stripe instead of the disks.  Equal weights give
 * L = D and pattern[j] = j, round robin exactly; they are the special
 * case, not another mechanism.  The merge reads up to n_d blocks of disk
 * d in each Parallel_Read (merge.c), DSM reads a period at a time
 * (dsmread.c), and the planner sizes buffers for L blocks where it sized
 * them for D disks.  The period depends on the budget too (SrmStripeBuild's
 * maxwidth): a run read by another process (a parallel build's leader)
 * takes its writer's stripe with it (runexport.c), not the reader's.
 *
 * The weights come from srmsort.disk_weights: "auto" (the default) takes
 * each disk's bandwidth as learned in shared memory -- measured by a short
 * calibration the first time a tablespace is used, then refreshed from the
 * busy time of sorts with direct I/O (diskspeed.c) --; "equal" is round
 * robin; a list "tablespace:weight, ..." says what the administrator
 * knows (a tablespace not listed weighs 1).
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/io/placement.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "base/compat.h"
#include "io/diskspeed.h"
#include "io/placement.h"

/* srmsort.disk_weights, parsed */
typedef enum SrmWeightsMode
{
	SRM_WEIGHTS_AUTO = 0,
	SRM_WEIGHTS_EQUAL,
	SRM_WEIGHTS_LIST
} SrmWeightsMode;

typedef struct SrmWeightsSetting
{
	SrmWeightsMode mode;
	int			n;
	char		names[SRM_MAX_DISKS][NAMEDATALEN];
	double		weights[SRM_MAX_DISKS];
} SrmWeightsSetting;

static const SrmWeightsSetting *weights_setting = NULL;

/* the largest weight a list may give, against the smallest */
#define SRM_MAX_WEIGHT		1e6

/*
 * stripe_shares
 *		Shares of the blocks of a period for weights w[0..n), the largest
 *		k; *width their sum.  Reduced by their greatest common divisor, so
 *		that equal weights give one block each.
 */
static void
stripe_shares(const double *w, int n, int k, uint8 *share, int *width)
{
	double		wmax = 0;
	int			g = 0;
	int			d;

	for (d = 0; d < n; d++)
		wmax = Max(wmax, w[d]);
	for (d = 0; d < n; d++)
	{
		/*
		 * Rounded up from a fifth of a share below: measurements of equal
		 * disks differ by a tenth or so, and should stripe round robin.
		 */
		int			s = (wmax > 0 && w[d] > 0) ? (int) ceil(k * w[d] / wmax - 0.2) : k;

		share[d] = (uint8) Min(Max(s, 1), k);
	}
	for (d = 0; d < n; d++)
	{
		int			a = share[d],
					b = g;

		while (b != 0)
		{
			int			t = a % b;

			a = b;
			b = t;
		}
		g = a;
	}
	*width = 0;
	for (d = 0; d < n; d++)
	{
		share[d] /= g;
		*width += share[d];
	}
}

/*
 * SrmStripeBuild
 *		See placement.h.  The pattern is smooth weighted round robin: at
 *		each block every disk earns its share, and the disk with the most
 *		credit takes the block and pays the period.  Each disk's blocks are
 *		then spread evenly over the period, and equal shares give 0, 1,
 *		..., n - 1.
 */
void
SrmStripeBuild(SrmStripe *st, const double *weights, int n, int maxwidth)
{
	int			credit[SRM_MAX_DISKS];
	int			k;
	int			j,
				d;

	Assert(n >= 1 && n <= SRM_MAX_DISKS);
	st->first = 0;
	st->ndisks = n;
	for (k = SRM_STRIPE_RESOLUTION;; k /= 2)
	{
		stripe_shares(weights, n, k, st->share, &st->width);
		if (st->width <= Max(maxwidth, n) || k <= 1)
			break;
	}
	Assert(st->width <= SRM_MAX_STRIPE);
	memset(credit, 0, sizeof(credit));
	for (j = 0; j < st->width; j++)
	{
		int			best = 0;

		for (d = 0; d < n; d++)
		{
			credit[d] += st->share[d];
			if (credit[d] > credit[best])
				best = d;
		}
		credit[best] -= st->width;
		st->pattern[j] = (uint8) best;
	}
}

/*
 * SrmDiskWeightsResolve
 *		See placement.h; the weights are allocated in
 *		CurrentMemoryContext.  Disks whose bandwidth is not known (another
 *		backend is measuring it, or it could not be) weigh the mean of
 *		those known; with none known, or without shared memory, all weigh
 *		the same.
 */
void
SrmDiskWeightsResolve(SrmDiskSet *set)
{
	const SrmWeightsSetting *ws = weights_setting;
	int			n = set->ndisks;
	int			d,
				i;

	set->weights = palloc(n * sizeof(double));
	for (d = 0; d < n; d++)
		set->weights[d] = 1.0;
	set->weight_source = SRM_WEIGHTS_FROM_EQUAL;
	if (ws == NULL || ws->mode == SRM_WEIGHTS_EQUAL || n <= 1)
		return;
	if (ws->mode == SRM_WEIGHTS_LIST)
	{
		for (d = 0; d < n; d++)
			for (i = 0; i < ws->n; i++)
				if (strcmp(ws->names[i], set->disks[d].spcname) == 0)
					set->weights[d] = ws->weights[i];
		set->weight_source = SRM_WEIGHTS_FROM_SETTING;
		return;
	}
	if (SrmDiskSpeeds(set, set->weights))
		set->weight_source = SRM_WEIGHTS_FROM_MEASURED;
	else
		set->weight_source = SRM_WEIGHTS_FROM_UNMEASURED;
}

/*
 * SrmWeightSourceName
 *		See placement.h.
 */
const char *
SrmWeightSourceName(int source)
{
	switch (source)
	{
		case SRM_WEIGHTS_FROM_SETTING:
			return "srmsort.disk_weights";
		case SRM_WEIGHTS_FROM_MEASURED:
			return "measured";
		case SRM_WEIGHTS_FROM_UNMEASURED:
			return "equal (not measured)";
		default:
			return "equal";
	}
}

/* ---------- srmsort.disk_weights ---------- */

/*
 * parse_name
 *		A tablespace name at *p, as an identifier: double-quoted as is
 *		("" for a quote), or else lower-cased up to a colon, comma or
 *		space.  False if it is empty or too long.
 */
static bool
parse_name(const char **p, char *name)
{
	const char *s = *p;
	int			len = 0;

	if (*s == '"')
	{
		for (s++;; s++)
		{
			if (*s == '\0')
				return false;
			if (*s == '"')
			{
				if (s[1] != '"')
					break;
				s++;
			}
			if (len >= NAMEDATALEN - 1)
				return false;
			name[len++] = *s;
		}
		s++;
	}
	else
	{
		while (*s != '\0' && *s != ':' && *s != ',' && !isspace((unsigned char) *s))
		{
			if (len >= NAMEDATALEN - 1)
				return false;
			name[len++] = (char) pg_tolower((unsigned char) *s);
			s++;
		}
	}
	name[len] = '\0';
	*p = s;
	return len > 0;
}

/*
 * parse_weights
 *		Parse srmsort.disk_weights into *ws; false (with the GUC's detail
 *		set) if it is not "auto", "equal" or a list of tablespace:weight.
 */
static bool
parse_weights(const char *value, SrmWeightsSetting *ws)
{
	const char *p = value;
	int			i;

	memset(ws, 0, sizeof(*ws));
	while (isspace((unsigned char) *p))
		p++;
	if (pg_strcasecmp(p, "auto") == 0 || *p == '\0')
		return true;
	if (pg_strcasecmp(p, "equal") == 0)
	{
		ws->mode = SRM_WEIGHTS_EQUAL;
		return true;
	}
	ws->mode = SRM_WEIGHTS_LIST;
	for (;;)
	{
		char	   *end;
		double		w;

		while (isspace((unsigned char) *p))
			p++;
		if (ws->n >= SRM_MAX_DISKS)
		{
			GUC_check_errdetail("At most %d tablespaces can be given weights.",
								SRM_MAX_DISKS);
			return false;
		}
		if (!parse_name(&p, ws->names[ws->n]))
		{
			GUC_check_errdetail("List syntax is invalid.");
			GUC_check_errhint("Use auto, equal, or a list of tablespace:weight such as 'disk1:2, disk2:1'.");
			return false;
		}
		while (isspace((unsigned char) *p))
			p++;
		if (*p != ':')
		{
			GUC_check_errdetail("Tablespace \"%s\" has no weight.", ws->names[ws->n]);
			GUC_check_errhint("Use auto, equal, or a list of tablespace:weight such as 'disk1:2, disk2:1'.");
			return false;
		}
		p++;
		errno = 0;
		w = strtod(p, &end);
		if (end == p || errno != 0 || !(w > 0) || w > SRM_MAX_WEIGHT)
		{
			GUC_check_errdetail("The weight of tablespace \"%s\" must be a number greater than 0 and at most %.0f.",
								ws->names[ws->n], SRM_MAX_WEIGHT);
			return false;
		}
		for (i = 0; i < ws->n; i++)
			if (strcmp(ws->names[i], ws->names[ws->n]) == 0)
			{
				GUC_check_errdetail("Tablespace \"%s\" is listed twice.", ws->names[i]);
				return false;
			}
		ws->weights[ws->n++] = w;
		p = end;
		while (isspace((unsigned char) *p))
			p++;
		if (*p == '\0')
			return true;
		if (*p != ',')
		{
			GUC_check_errdetail("List syntax is invalid.");
			GUC_check_errhint("Use auto, equal, or a list of tablespace:weight such as 'disk1:2, disk2:1'.");
			return false;
		}
		p++;
	}
}

/*
 * SrmCheckDiskWeights
 *		GUC check hook of srmsort.disk_weights: parse it once, into extra.
 *		Names are not looked up: a weight for a tablespace no sort uses is
 *		harmless, and the setting may be made before the tablespace.
 */
bool
SrmCheckDiskWeights(char **newval, void **extra, GucSource source)
{
	SrmWeightsSetting ws;
	SrmWeightsSetting *copy;

	if (!parse_weights(*newval, &ws))
		return false;
	copy = SrmGucMalloc(sizeof(SrmWeightsSetting));
	if (copy == NULL)
		return false;
	memcpy(copy, &ws, sizeof(ws));
	*extra = copy;
	return true;
}

/*
 * SrmAssignDiskWeights
 *		GUC assign hook of srmsort.disk_weights.
 */
void
SrmAssignDiskWeights(const char *newval, void *extra)
{
	weights_setting = (const SrmWeightsSetting *) extra;
}
