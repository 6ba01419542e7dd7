/*-------------------------------------------------------------------------
 *
 * iomode.h
 *	  Buffered or direct workfiles: srmsort.direct_io = auto's choice.
 *
 * IDENTIFICATION
 *	  src/io/iomode.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_IOMODE_H
#define SRM_IOMODE_H

/*
 * Should a sort whose workfiles are expected to take expect_bytes (0:
 * unknown) use O_DIRECT?  srmsort.direct_io, or for auto the choice made
 * here.
 */
extern bool SrmChooseDirectIo(double expect_bytes);

#endif							/* SRM_IOMODE_H */
