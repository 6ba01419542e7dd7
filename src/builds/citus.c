/*-------------------------------------------------------------------------
 *
 * citus.c
 *	  Which index statements belong to Citus.
 *
 * Citus (the distributed engine built as an extension) must be first in
 * shared_preload_libraries, so srmsort's ProcessUtility hook runs before
 * Citus's.  For a table Citus manages (distributed, reference or Citus
 * local: every table listed in its catalog pg_dist_partition) a CREATE
 * INDEX or REINDEX on the coordinator is Citus's business: it builds the
 * local (shell) index through core and sends each shard's own statement to
 * the node holding that shard, where it arrives as a plain statement on the
 * shard table, which is not listed, and srmsort builds it there.  srmsort
 * therefore arms nothing for a statement on a listed table and leaves it
 * entirely to Citus and core.
 *
 * Statements that reach many tables (REINDEX SCHEMA and DATABASE, CLUSTER
 * and VACUUM FULL without a table name) are decided per table instead, at
 * each build or sort: the tables Citus lists are left to core there.
 *
 * Without Citus this costs one syscache lookup per statement or build
 * (the catalog's name, negatively cached); the catalog is read only when
 * it exists and the citus extension is installed.
 *
 * IDENTIFICATION
 *	  src/builds/citus.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "nodes/parsenodes.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "builds/citus.h"

/*
 * listed
 *		Is relid a row of the catalog pg_dist_partition (relation catalog)?
 *		A catalog of an unexpected shape counts as listing every table, so
 *		that srmsort stays out of the way of a Citus it does not know.
 */
static bool
listed(Oid catalog, Oid relid)
{
	AttrNumber	col = get_attnum(catalog, "logicalrelid");
	Oid			type = OidIsValid(col) ? get_atttype(catalog, col) : InvalidOid;
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	bool		found;

	if (col == InvalidAttrNumber || (type != REGCLASSOID && type != OIDOID))
		return true;
	rel = table_open(catalog, AccessShareLock);
	ScanKeyInit(&key, col, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	/* one row per Citus table: a heap scan, whatever its indexes are */
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * citus_catalog
 *		pg_dist_partition's OID when the citus extension is installed, else
 *		InvalidOid.
 */
static Oid
citus_catalog(void)
{
	Oid			catalog = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);

	if (!OidIsValid(catalog) || !OidIsValid(get_extension_oid("citus", true)))
		return InvalidOid;
	return catalog;
}

/*
 * SrmCitusOwnsRelation
 *		Is relid a table Citus manages?  For the statements that reach many
 *		tables (REINDEX SCHEMA and DATABASE, CLUSTER and VACUUM FULL of all
 *		tables), decided per table at its build or sort.
 */
bool
SrmCitusOwnsRelation(Oid relid)
{
	Oid			catalog = citus_catalog();

	return OidIsValid(catalog) && OidIsValid(relid) && listed(catalog, relid);
}

/*
 * SrmCitusOwnsStatement
 *		Is parsetree, a CREATE INDEX, an ALTER TABLE or a REINDEX INDEX or
 *		TABLE, on a table Citus manages?  Names are looked up without locks
 *		and without errors: this only decides whether srmsort arms, and the
 *		statement itself then resolves, locks and complains as it always
 *		does.
 */
bool
SrmCitusOwnsStatement(Node *parsetree)
{
	Oid			catalog = citus_catalog();
	RangeVar   *rv = NULL;
	Oid			relid;

	if (!OidIsValid(catalog))
		return false;
	if (IsA(parsetree, IndexStmt))
		rv = ((IndexStmt *) parsetree)->relation;
	else if (IsA(parsetree, AlterTableStmt))
		rv = ((AlterTableStmt *) parsetree)->relation;
	else if (IsA(parsetree, ReindexStmt))
		rv = ((ReindexStmt *) parsetree)->relation;
	if (rv == NULL)
		return false;
	/* a database name: core decides whether it is this one (or complains) */
	if (rv->catalogname != NULL)
		return true;
	relid = RangeVarGetRelid(rv, NoLock, true);
	if (OidIsValid(relid) && IsA(parsetree, ReindexStmt) &&
		((ReindexStmt *) parsetree)->kind == REINDEX_OBJECT_INDEX)
		relid = IndexGetRelation(relid, true);
	return OidIsValid(relid) && listed(catalog, relid);
}
