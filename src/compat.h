/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  The differences between the PostgreSQL versions srmsort builds for
 *	  (15, 16, 17, 18), behind one name each.
 *
 * IDENTIFICATION
 *	  src/compat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_COMPAT_H
#define SRM_COMPAT_H

#include "storage/lock.h"

/* 17 added "or a stronger lock" */
#if PG_VERSION_NUM >= 170000
#define SrmLockHeldByMe(tag, mode)	LockHeldByMe((tag), (mode), false)
#else
#define SrmLockHeldByMe(tag, mode)	LockHeldByMe((tag), (mode))
#endif

#endif							/* SRM_COMPAT_H */
