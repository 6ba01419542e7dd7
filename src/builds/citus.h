/*-------------------------------------------------------------------------
 *
 * citus.h
 *	  Which index statements belong to Citus.
 *
 * IDENTIFICATION
 *	  src/builds/citus.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_CITUS_H
#define SRM_CITUS_H

#include "nodes/nodes.h"

/*
 * Is this CREATE INDEX or REINDEX on a table Citus manages (when the
 * citus extension exists)?  Such statements are left to Citus.
 */
extern bool SrmCitusOwnsStatement(Node *parsetree);

/* Is relid (a table) one Citus manages?  False for InvalidOid. */
extern bool SrmCitusOwnsRelation(Oid relid);

#endif							/* SRM_CITUS_H */
