#include "postgres.h"
#include "merge/mergeplan.h"
#include <stdio.h>
#undef printf
int main(void)
{
	SrmPlanLimits l = {.max_disks = 64, .max_block = 256 * 1024, .max_order = 1024, .block_meta = 24};
	double rows = 50e6, tb = 118.0;
	struct { const char *what; Size budget; double first_tuples; } cs[] = {
		{"4MB", 4 << 20, 0}, {"64MB whole", 64 << 20, 0}, {"64MB 2 parts", 64 << 20, 0}};
	int i;
	for (i = 0; i < 3; i++)
	{
		int minb, D = SrmPlanDisks(l, cs[i].budget, false, &minb);
		double nruns = i == 0 ? 1852 : i == 1 ? 105 : 212;
		double ft = rows / nruns;
		int B = SrmPlanBlockSize(l, cs[i].budget, false, 4, minb, rows, 0, ft, ft * tb);
		SrmMergeMem mm = {.limits = l, .budget = cs[i].budget, .dsm = false, .ndisks = 4,
			.block_size = B, .meta = (Size) (rows * 109.5 / B * 1.33 * 24), .load = 0, .open_bytes = 0, .nruns = (int) nruns};
		SrmMergePlan p;
		if (mm.meta > cs[i].budget / 16) mm.meta = cs[i].budget / 16;
		SrmPlanMerges(&mm, &p);
		printf("%s: maxdisks %d min_block %d B %d kB; runs %.0f: final order %d inter %d merge_order %d passes %d avail %.1f MB final bufs %d\n",
			   cs[i].what, D, minb, B / 1024, nruns, p.final_order, p.inter_order, p.merge_order, p.passes, p.avail / 1048576, SrmPlanFinalBuffers(&mm));
	}
	return 0;
}
