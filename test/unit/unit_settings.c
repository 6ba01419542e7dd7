/*-------------------------------------------------------------------------
 *
 * unit_settings.c
 *	  srmsort_unit_settings(): every srmsort.* setting's C initial value
 *	  (src/base/settings.c) against the default the server holds.
 *
 * This module links its own copy of settings.c, which no server ever
 * registers, so its variables still hold their C initial values; the
 * server's table of settings (with srmsort preloaded) holds each one's
 * default.  A variable that starts elsewhere than its default would be
 * seen by code that runs before srmsort.c registers the settings, and by
 * whoever reads settings.c to learn the defaults.  Both directions are
 * checked: a setting the server has that this table lacks fails too.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  test/unit/unit_settings.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"
#include "utils/guc_tables.h"

#include "base/compat.h"
#include "base/settings.h"
#include "unit.h"

PG_FUNCTION_INFO_V1(srmsort_unit_settings);

typedef struct UnitSetting
{
	const char *name;
	enum config_type type;
	void	   *var;
} UnitSetting;

static const UnitSetting settings[] = {
	{"srmsort.enabled", PGC_BOOL, &srmsort_enabled},
	{"srmsort.tablespaces", PGC_STRING, &srmsort_tablespaces},
	{"srmsort.partitions", PGC_STRING, &srmsort_partitions_string},
	{"srmsort.block_size", PGC_INT, &srmsort_block_size},
	{"srmsort.min_input_size", PGC_INT, &srmsort_min_input_size},
	{"srmsort.min_work_mem", PGC_INT, &srmsort_min_work_mem},
	{"srmsort.io_method", PGC_ENUM, &srmsort_io_method},
	{"srmsort.direct_io", PGC_ENUM, &srmsort_direct_io},
	{"srmsort.disk_weights", PGC_STRING, &srmsort_disk_weights},
	{"srmsort.merge_strategy", PGC_ENUM, &srmsort_merge_strategy},
	{"srmsort.max_merge_order", PGC_INT, &srmsort_max_merge_order},
	{"srmsort.random_seed", PGC_INT, &srmsort_random_seed},
	{"srmsort.trace", PGC_BOOL, &srmsort_trace},
	{"srmsort.create_index", PGC_BOOL, &srmsort_create_index},
	{"srmsort.parallel_build", PGC_BOOL, &srmsort_parallel_build},
	{"srmsort.cluster", PGC_BOOL, &srmsort_cluster},
	{"srmsort.parallel_sort", PGC_BOOL, &srmsort_parallel_sort},
	{"srmsort.huge_pages", PGC_BOOL, &srmsort_huge_pages},
	{"srmsort.debug_fail_io_uring", PGC_BOOL, &srmsort_debug_fail_io_uring},
	{"srmsort.debug_no_slot_reuse", PGC_BOOL, &srmsort_debug_no_slot_reuse},
	{"srmsort.debug_merge_pause", PGC_INT, &srmsort_debug_merge_pause},
	{"srmsort.debug_icu_table_after", PGC_INT, &srmsort_debug_icu_table_after},
	{"srmsort.debug_slow_disk", PGC_STRING, &srmsort_debug_slow_disk},
	{"srmsort.debug_sorter_misuse", PGC_ENUM, &srmsort_debug_sorter_misuse},
	{"srmsort.debug_participant_mem", PGC_INT, &srmsort_debug_participant_mem},
	{"srmsort.debug_load_part", PGC_INT, &srmsort_debug_load_part},
	{"srmsort.debug_load_cap", PGC_INT, &srmsort_debug_load_cap},
	{"srmsort.debug_gist_split_fail", PGC_INT, &srmsort_debug_gist_split_fail},
	{"srmsort.debug_scan_barrier", PGC_BOOL, &srmsort_debug_scan_barrier},
};

/* One setting's initial value against the server's default. */
static void
check_setting(const UnitSetting *u, struct config_generic *gen)
{
	CHECK(gen->vartype == u->type, "%s: type %d here, %d in the server",
		  u->name, (int) u->type, (int) gen->vartype);
	if (gen->vartype != u->type)
		return;
	switch (u->type)
	{
		case PGC_BOOL:
			CHECK(*(bool *) u->var == SrmGucBool(gen)->boot_val,
				  "%s: starts at %d, default %d", u->name,
				  (int) *(bool *) u->var, (int) SrmGucBool(gen)->boot_val);
			break;
		case PGC_INT:
			CHECK(*(int *) u->var == SrmGucInt(gen)->boot_val,
				  "%s: starts at %d, default %d", u->name,
				  *(int *) u->var, SrmGucInt(gen)->boot_val);
			break;
		case PGC_REAL:
			CHECK(*(double *) u->var == SrmGucReal(gen)->boot_val,
				  "%s: starts at %g, default %g", u->name,
				  *(double *) u->var, SrmGucReal(gen)->boot_val);
			break;
		case PGC_STRING:
			{
				const char *init = *(char **) u->var;
				const char *boot = SrmGucString(gen)->boot_val;

				/* NULL: the server gives the default at registration */
				CHECK(init == NULL || (boot != NULL && strcmp(init, boot) == 0),
					  "%s: starts at \"%s\", default \"%s\"", u->name,
					  init, boot ? boot : "(null)");
				break;
			}
		case PGC_ENUM:
			CHECK(*(int *) u->var == SrmGucEnum(gen)->boot_val,
				  "%s: starts at %d, default %d", u->name,
				  *(int *) u->var, SrmGucEnum(gen)->boot_val);
			break;
	}
}

static void
unit_settings(void)
{
	int			n;
	struct config_generic **gucs = SrmGucVariables(&n);
	int			i;
	int			j;

	for (i = 0; i < lengthof(settings); i++)
	{
		struct config_generic *gen = NULL;

		for (j = 0; j < n; j++)
			if (strcmp(gucs[j]->name, settings[i].name) == 0)
				gen = gucs[j];
		CHECK(gen != NULL, "%s: not a setting of the server (srmsort not loaded?)",
			  settings[i].name);
		if (gen)
			check_setting(&settings[i], gen);
	}
	for (j = 0; j < n; j++)
	{
		bool		known = false;

		if (strncmp(gucs[j]->name, "srmsort.", 8) != 0)
			continue;
		for (i = 0; i < lengthof(settings); i++)
			known |= strcmp(gucs[j]->name, settings[i].name) == 0;
		CHECK(known, "%s: a setting this test does not know", gucs[j]->name);
	}
}

Datum
srmsort_unit_settings(PG_FUNCTION_ARGS)
{
	return unit_srf(fcinfo, unit_settings, lengthof(settings));
}
