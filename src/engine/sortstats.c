/*-------------------------------------------------------------------------
 *
 * sortstats.c
 *	  The facts of a sort in words: EXPLAIN's properties in every format,
 *	  and the server log's line.
 *
 * The facts (SrmSortStats, sortstats.h) are gathered by the sorter
 * (SrmSorterGetStats).  They are shown in three places, and one table,
 * facts[] below, says for each fact how to read it and what it looks like
 * in each place:
 *
 *	 - EXPLAIN ANALYZE in JSON, XML and YAML: a property per fact, in the
 *	   table's order.  The first three are core's Sort's ("Sort Method",
 *	   "Sort Space Used", "Sort Space Type"), so that tools that read
 *	   those read ours.  Most facts are shown only for sorts that wrote
 *	   runs, the disks' only under VERBOSE;
 *	 - EXPLAIN's TEXT format: a few lines of several facts each ("Runs: 12
 *	   Merge Order: 6  Passes: 2"), as core's Sort prints "Sort Method:
 *	   quicksort  Memory: 25kB".  A fact names its line and its place on
 *	   it, and its words there: a printf format of its value, with its
 *	   own label ("  Merge Order: %lld") except at the start of a line,
 *	   whose label is the line's.  A parallel worker's sort gets one line
 *	   in its leader's EXPLAIN, of the facts marked for it;
 *	 - the server log's line (srmsort.trace, the index build's DETAIL):
 *	   every fact with words for it, in the order of its places.
 *
 * The places order the facts differently (the log line as scripts have
 * parsed it, the TEXT lines as readers know them), hence places of their
 * own rather than the table's order.  A fact shown in only some places
 * leaves the others empty (a NULL name, TL_NONE, log place 0).  Adding a
 * fact is adding a row.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/engine/sortstats.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#endif
#include "lib/stringinfo.h"

#include "base/settings.h"
#include "engine/sortstats.h"
#include "io/placement.h"

/* how a fact is read from SrmSortStats */
typedef enum SrmFactHow
{
	FACT_INT,					/* an int or int64 field */
	FACT_KB,					/* a field of bytes, in kB */
	FACT_FLOAT,					/* a double field */
	FACT_CHARS,					/* a char array field */
	FACT_METHOD,				/* the method's name */
	FACT_SPACE,					/* core's space used: disk if written, kB */
	FACT_SPACE_TYPE,			/* core's space type: "Disk" or "Memory" */
	FACT_TEMP_RATIO,			/* workfiles' peak over the input */
	FACT_PAGED,					/* bookkeeping paged out, kB rounded up */
	FACT_DIRECT,				/* direct I/O: a boolean, or words */
	FACT_WEIGHTS				/* where the stripe's weights came from */
} SrmFactHow;

/* which sorts EXPLAIN ANALYZE shows a fact for */
typedef enum SrmFactWhen
{
	SHOWN_NEVER,				/* the log line's only */
	SHOWN_ALWAYS,
	SHOWN_EXTERNAL,				/* sorts that wrote runs */
	SHOWN_VERBOSE				/* ... under VERBOSE */
} SrmFactWhen;

/* the lines of EXPLAIN's TEXT format, in their order */
typedef enum SrmTextLine
{
	TL_NONE,
	TL_METHOD,
	TL_DISKS,
	TL_RUNS,
	TL_READS,
	TL_TEMP,
	TL_MEMORY,
	TL_DISKIO,
	TL_COUNT
} SrmTextLine;

static const char *const text_line_label[TL_COUNT] = {
	NULL, "Sort Method", "Disks", "Runs", "Parallel Reads", "Temp", "Memory",
	"Disk I/O"
};

static const SrmFactWhen text_line_when[TL_COUNT] = {
	SHOWN_NEVER, SHOWN_ALWAYS, SHOWN_EXTERNAL, SHOWN_EXTERNAL, SHOWN_EXTERNAL,
	SHOWN_EXTERNAL, SHOWN_EXTERNAL, SHOWN_VERBOSE
};

/* flags of a fact in the TEXT format */
#define TEXT_IF_NONZERO		0x01	/* shown only when not 0 */
#define TEXT_ON_WORKER		0x02	/* on a parallel worker's line too */

typedef struct SrmFact
{
	/* EXPLAIN in JSON, XML and YAML */
	const char *name;			/* the property; NULL: not shown */
	const char *unit;
	int			digits;			/* of a float */
	SrmFactWhen when;
	/* the value */
	SrmFactHow	how;
	size_t		off;			/* the field, for how FACT_INT to FACT_CHARS */
	size_t		size;
	/* EXPLAIN's TEXT format */
	SrmTextLine line;			/* TL_NONE: not shown */
	int			place;			/* on the line, from 1 */
	const char *text;			/* words: a printf format of the value */
	int			flags;			/* TEXT_* */
	/* the log line */
	int			at;				/* place in it, from 1; 0: not there */
	const char *log;			/* words: a printf format of the value */
} SrmFact;

#define FIELD(f)	offsetof(SrmSortStats, f), sizeof(((SrmSortStats *) 0)->f)
#define NOFIELD		0, 0

/*
 * A row per fact, in the order of EXPLAIN's JSON, XML and YAML: property,
 * unit, digits, when shown; the value; TEXT line, place, words, flags; log
 * line place, words.
 */
static const SrmFact facts[] = {
	{"Sort Method", NULL, 0, SHOWN_ALWAYS, FACT_METHOD, NOFIELD, TL_METHOD, 1, "%s", TEXT_ON_WORKER, 1, "Sort method %s"},
	{"Sort Space Used", "kB", 0, SHOWN_ALWAYS, FACT_SPACE, NOFIELD, TL_METHOD, 3, ": %lldkB", TEXT_ON_WORKER, 0, NULL},
	{"Sort Space Type", NULL, 0, SHOWN_ALWAYS, FACT_SPACE_TYPE, NOFIELD, TL_METHOD, 2, "  %s", TEXT_ON_WORKER, 0, NULL},
	{"Memory Peak", "kB", 0, SHOWN_ALWAYS, FACT_KB, FIELD(mem_peak), TL_MEMORY, 1, "peak=%lldkB", 0, 20, ", memory peak %lld kB"},
	{NULL, NULL, 0, SHOWN_NEVER, FACT_KB, FIELD(mem_budget), TL_MEMORY, 2, " budget=%lldkB", 0, 21, " of %lld kB"},
	{"Disks", NULL, 0, SHOWN_EXTERNAL, FACT_INT, FIELD(ndisks), TL_DISKS, 1, "%lld", 0, 2, ", disks %lld"},
	{"Disk Names", NULL, 0, SHOWN_EXTERNAL, FACT_CHARS, FIELD(disk_names), TL_DISKS, 2, " (%s)", 0, 3, " (%s)"},
	{"Disks Left Out for Memory", NULL, 0, SHOWN_EXTERNAL, FACT_INT, FIELD(disks_left_out), TL_DISKS, 3, "  Left Out for Memory: %lld", TEXT_IF_NONZERO, 4, ", %lld left out for memory"},
	{"Block Size", "kB", 0, SHOWN_EXTERNAL, FACT_KB, FIELD(block_size), TL_DISKS, 4, "  Block Size: %lldkB", 0, 5, ", block %lld kB"},
	{"Runs", NULL, 0, SHOWN_EXTERNAL, FACT_INT, FIELD(runs), TL_RUNS, 1, "%lld", TEXT_ON_WORKER, 9, ", runs %lld"},
	{"Merge Order", NULL, 0, SHOWN_EXTERNAL, FACT_INT, FIELD(merge_order), TL_RUNS, 2, "  Merge Order: %lld", 0, 10, ", merge order %lld"},
	{"Passes", NULL, 0, SHOWN_EXTERNAL, FACT_INT, FIELD(passes), TL_RUNS, 3, "  Passes: %lld", TEXT_ON_WORKER, 11, ", passes %lld"},
	{"Parallel Reads", NULL, 0, SHOWN_EXTERNAL, FACT_INT, FIELD(parallel_reads), TL_READS, 1, "%lld", 0, 13, ", parallel reads %lld"},
	{"Nu", NULL, 3, SHOWN_EXTERNAL, FACT_FLOAT, FIELD(nu), TL_READS, 2, "  Nu: %.3f", TEXT_ON_WORKER, 12, ", nu %.3f"},
	{"Flushes", NULL, 0, SHOWN_EXTERNAL, FACT_INT, FIELD(flushes), TL_READS, 3, "  Flushes: %lld", 0, 14, ", flushes %lld"},
	{"Stalls", NULL, 0, SHOWN_EXTERNAL, FACT_INT, FIELD(stalls), TL_READS, 4, "  Stalls: %lld", 0, 15, ", stalls %lld"},
	{"Temp Written", "kB", 0, SHOWN_EXTERNAL, FACT_KB, FIELD(temp_written), TL_TEMP, 1, "written=%lldkB", 0, 16, ", temp written %lld kB"},
	{"Temp Read", "kB", 0, SHOWN_EXTERNAL, FACT_KB, FIELD(temp_read), TL_TEMP, 2, " read=%lldkB", 0, 17, ", read %lld kB"},
	{"Peak Temp", "kB", 0, SHOWN_EXTERNAL, FACT_KB, FIELD(temp_peak), TL_TEMP, 3, " peak=%lldkB", 0, 18, ", peak %lld kB"},
	{"Input", "kB", 0, SHOWN_EXTERNAL, FACT_KB, FIELD(input_bytes), TL_TEMP, 5, " of %lldkB)", 0, 0, NULL},
	{"Peak Temp Ratio", NULL, 2, SHOWN_EXTERNAL, FACT_TEMP_RATIO, NOFIELD, TL_TEMP, 4, " (%.2f x input", 0, 0, NULL},
	{"I/O Wait", "ms", 3, SHOWN_EXTERNAL, FACT_FLOAT, FIELD(io_wait_ms), TL_TEMP, 6, "  I/O Wait: %.3f ms", 0, 19, ", I/O wait %.1f ms"},
	{"Paged Bookkeeping", "kB", 0, SHOWN_EXTERNAL, FACT_PAGED, NOFIELD, TL_MEMORY, 3, "  Paged Bookkeeping: %lldkB", TEXT_IF_NONZERO, 22, ", paged bookkeeping %lld kB"},
	{"Direct I/O", NULL, 0, SHOWN_VERBOSE, FACT_DIRECT, NOFIELD, TL_DISKIO, 1, "%s", 0, 6, ", direct I/O %s"},
	{"Stripe Width", NULL, 0, SHOWN_VERBOSE, FACT_INT, FIELD(stripe_width), TL_DISKIO, 2, "  Stripe: %lld blocks", 0, 7, ", stripe of %lld blocks"},
	{"Weights From", NULL, 0, SHOWN_VERBOSE, FACT_WEIGHTS, NOFIELD, TL_DISKIO, 3, "  Weights: %s", 0, 8, " (weights %s)"},
	{NULL, NULL, 0, SHOWN_NEVER, FACT_INT, FIELD(tuples), TL_NONE, 0, NULL, 0, 23, ", input %lld tuples"},
	{NULL, NULL, 0, SHOWN_NEVER, FACT_INT, FIELD(input_bytes), TL_NONE, 0, NULL, 0, 24, " of %lld bytes"},
};

/* a fact's value, as one of these */
typedef enum SrmFactKind
{
	KIND_INT,
	KIND_FLOAT,
	KIND_TEXT,
	KIND_BOOL
} SrmFactKind;

typedef struct SrmFactValue
{
	SrmFactKind kind;
	int64		i;				/* KIND_INT, KIND_BOOL */
	double		f;
	const char *s;
} SrmFactValue;

/*
 * method_name
 *		The name EXPLAIN shows for a method.
 */
static const char *
method_name(SrmSortMethod method)
{
	switch (method)
	{
		case SRM_METHOD_STILL_RUNNING:
			return "still in progress";
		case SRM_METHOD_QUICKSORT:
			return "quicksort";
		case SRM_METHOD_RADIX:
			return "radix sort";
		case SRM_METHOD_SRM:
			return "external SRM merge";
		case SRM_METHOD_DSM:
			return "external DSM merge";
		case SRM_METHOD_SRM_MATERIALIZED:
			return "external SRM sort";
		case SRM_METHOD_PARTICIPANT_RUNS:
			return "runs for the parallel merge";
		case SRM_METHOD_DSM_MATERIALIZED:
			return "external DSM sort";
	}
	return "unknown";
}

/*
 * fact_value
 *		Fact f of st.  words: for the lines (TEXT format, log), where a
 *		boolean is a word; log: the log line's words rather than EXPLAIN's.
 */
static SrmFactValue
fact_value(const SrmFact *f, const SrmSortStats *st, bool words, bool log)
{
	const char *field = (const char *) st + f->off;
	bool		external = SRM_METHOD_IS_EXTERNAL(st->method);
	SrmFactValue v = {KIND_INT, 0, 0.0, NULL};

	switch (f->how)
	{
		case FACT_INT:
		case FACT_KB:
			if (f->size == sizeof(int64))
				v.i = *(const int64 *) field;
			else
				v.i = *(const int *) field;
			if (f->how == FACT_KB)
				v.i /= 1024;
			break;
		case FACT_FLOAT:
			v.kind = KIND_FLOAT;
			v.f = *(const double *) field;
			break;
		case FACT_CHARS:
			v.kind = KIND_TEXT;
			v.s = field;
			break;
		case FACT_METHOD:
			v.kind = KIND_TEXT;
			v.s = method_name(st->method);
			break;
		case FACT_SPACE:
			/* core's: the workfiles' peak if the sort wrote any */
			v.i = (external ? st->temp_peak : st->mem_peak) / 1024;
			break;
		case FACT_SPACE_TYPE:
			v.kind = KIND_TEXT;
			v.s = external ? "Disk" : "Memory";
			break;
		case FACT_TEMP_RATIO:
			v.kind = KIND_FLOAT;
			v.f = st->input_bytes > 0 ?
				(double) st->temp_peak / st->input_bytes : 0.0;
			break;
		case FACT_PAGED:
			v.i = (st->meta_paged + 1023) / 1024;
			break;
		case FACT_DIRECT:
			v.kind = words ? KIND_TEXT : KIND_BOOL;
			v.i = st->direct_io;
			if (log)
				v.s = st->direct_io ? "on" : "off";
			else
				v.s = st->direct_io ? "direct" : "buffered";
			break;
		case FACT_WEIGHTS:
			v.kind = KIND_TEXT;
			v.s = SrmWeightSourceName(st->weight_source);
			break;
	}
	return v;
}

/*
 * append_words
 *		Fact f of st in words (format fmt) at the end of buf.
 */
static void
append_words(StringInfo buf, const char *fmt, const SrmFact *f,
			 const SrmSortStats *st, bool log)
{
	SrmFactValue v = fact_value(f, st, true, log);

	if (v.kind == KIND_FLOAT)
		appendStringInfo(buf, fmt, v.f);
	else if (v.kind == KIND_TEXT)
		appendStringInfo(buf, fmt, v.s);
	else
		appendStringInfo(buf, fmt, (long long) v.i);
}

/*
 * shown
 *		Does EXPLAIN show what is shown when, for st?
 */
static bool
shown(SrmFactWhen when, const SrmSortStats *st, bool verbose)
{
	/* a participant that got no rows wrote nothing: no disk facts */
	bool		external = SRM_METHOD_IS_EXTERNAL(st->method) &&
		(st->method != SRM_METHOD_PARTICIPANT_RUNS || st->runs > 0);

	switch (when)
	{
		case SHOWN_ALWAYS:
			return true;
		case SHOWN_EXTERNAL:
			return external;
		case SHOWN_VERBOSE:
			return external && verbose;
		case SHOWN_NEVER:
			break;
	}
	return false;
}

/*
 * text_line
 *		Line `line' of the TEXT format, into buf (emptied first); worker:
 *		only the facts for a worker's line, each at the start of the line
 *		after its label.
 */
static void
text_line(StringInfo buf, SrmTextLine line, const SrmSortStats *st,
		  bool worker)
{
	int			place;
	int			i;

	if (!worker)
		resetStringInfo(buf);
	for (place = 1; place <= lengthof(facts); place++)
	{
		for (i = 0; i < lengthof(facts); i++)
		{
			const SrmFact *f = &facts[i];

			if (f->line != line || f->place != place ||
				(worker && !(f->flags & TEXT_ON_WORKER)))
				continue;
			if ((f->flags & TEXT_IF_NONZERO) &&
				fact_value(f, st, true, false).i == 0)
				continue;
			if (worker && place == 1)
				appendStringInfo(buf, "%s%s: ", buf->len > 0 ? "  " : "",
								 text_line_label[line]);
			append_words(buf, f->text, f, st, false);
		}
	}
}

/*
 * explain_disks
 *		Under VERBOSE: per disk its share of each period of the stripe (its
 *		weight, as used), the bytes the sort read and wrote on it and the
 *		time a request of the sort was in flight on it.
 */
static void
explain_disks(const SrmSortStats *st, ExplainState *es)
{
	const char *names = st->disk_names;
	int			i;

	if (es->format != EXPLAIN_FORMAT_TEXT)
		ExplainOpenGroup("Disk Usage", "Disk Usage", false, es);
	for (i = 0; i < st->ndisks && i < SRM_STATS_DISKS; i++)
	{
		const SrmSortDiskStats *d = &st->disk[i];
		const char *end = strstr(names, ", ");
		char	   *name;

		/* the list of names may have been cut short: then a number */
		if (*names == '\0')
			name = psprintf("#%d", i + 1);
		else
			name = end ? pnstrdup(names, end - names) : pstrdup(names);
		names = end ? end + 2 : names + strlen(names);
		if (es->format == EXPLAIN_FORMAT_TEXT)
		{
			ExplainPropertyText(psprintf("Disk %s", name),
								psprintf("Weight: %d  Read: " INT64_FORMAT "kB  Written: "
										 INT64_FORMAT "kB  Busy: %.3f ms",
										 d->share, d->bytes_read / 1024,
										 d->bytes_written / 1024, d->busy_ms), es);
			continue;
		}
		ExplainOpenGroup("Disk", NULL, true, es);
		ExplainPropertyText("Tablespace", name, es);
		ExplainPropertyInteger("Weight", NULL, d->share, es);
		ExplainPropertyInteger("Read", "kB", d->bytes_read / 1024, es);
		ExplainPropertyInteger("Written", "kB", d->bytes_written / 1024, es);
		ExplainPropertyFloat("Busy Time", "ms", d->busy_ms, 3, es);
		ExplainCloseGroup("Disk", NULL, true, es);
	}
	if (es->format != EXPLAIN_FORMAT_TEXT)
		ExplainCloseGroup("Disk Usage", "Disk Usage", false, es);
}

/*
 * SrmSortStatsExplain
 *		See sortstats.h.
 */
void
SrmSortStatsExplain(const SrmSortStats *st, ExplainState *es)
{
	int			i;

	if (es->format == EXPLAIN_FORMAT_TEXT)
	{
		StringInfoData buf;
		int			line;

		initStringInfo(&buf);
		for (line = TL_METHOD; line < TL_COUNT; line++)
		{
			if (!shown(text_line_when[line], st, es->verbose))
				continue;
			text_line(&buf, line, st, false);
			ExplainPropertyText(text_line_label[line], buf.data, es);
		}
	}
	else
	{
		for (i = 0; i < lengthof(facts); i++)
		{
			const SrmFact *f = &facts[i];
			SrmFactValue v;

			if (f->name == NULL || !shown(f->when, st, es->verbose))
				continue;
			v = fact_value(f, st, false, false);
			if (v.kind == KIND_FLOAT)
				ExplainPropertyFloat(f->name, f->unit, v.f, f->digits, es);
			else if (v.kind == KIND_TEXT)
				ExplainPropertyText(f->name, v.s, es);
			else if (v.kind == KIND_BOOL)
				ExplainPropertyBool(f->name, v.i != 0, es);
			else
				ExplainPropertyInteger(f->name, f->unit, v.i, es);
		}
	}
	if (shown(SHOWN_VERBOSE, st, es->verbose))
		explain_disks(st, es);
}

/*
 * SrmSortStatsWorkerText
 *		See sortstats.h.
 */
char *
SrmSortStatsWorkerText(const SrmSortStats *st)
{
	StringInfoData buf;
	int			line;

	initStringInfo(&buf);
	for (line = TL_METHOD; line < TL_COUNT; line++)
		if (shown(text_line_when[line], st, false))
			text_line(&buf, line, st, true);
	return buf.data;
}

/*
 * SrmSortStatsText
 *		See sortstats.h.
 */
char *
SrmSortStatsText(const SrmSortStats *st)
{
	StringInfoData buf;
	int			at;
	int			i;

	initStringInfo(&buf);
	for (at = 1; at <= lengthof(facts); at++)
		for (i = 0; i < lengthof(facts); i++)
			if (facts[i].at == at)
				append_words(&buf, facts[i].log, &facts[i], st, true);
	return buf.data;
}

/*
 * SrmTraceSeconds
 *		Is a trace line of a build or CLUSTER sort wanted (srmsort.trace,
 *		or DEBUG1 logged)?  If so, *seconds since start.
 */
bool
SrmTraceSeconds(instr_time start, double *seconds)
{
	instr_time	now;

	if (!srmsort_trace && !message_level_is_interesting(DEBUG1))
		return false;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	*seconds = INSTR_TIME_GET_DOUBLE(now);
	return true;
}
