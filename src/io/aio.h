/*-------------------------------------------------------------------------
 *
 * aio.h
 *	  Asynchronous block I/O for workfiles: io_uring, or synchronous.
 *
 * A caller owns SrmIo request structs and their buffers.  It prepares
 * requests (SrmIoPrepRead/SrmIoPrepWrite), submits all prepared requests in
 * one batch (SrmIoSubmit), and later waits for a particular one (SrmIoWait)
 * or for all of its set (SrmIoDrain).  A request's buffer must stay valid
 * until the request is done: the owner of a set must drain it before its
 * buffers are freed, also on error (the sorter does this from a memory
 * context reset callback).
 *
 * One io_uring per backend, created lazily on first use (never in the
 * postmaster); several sets share it.  With srmsort.io_method = sync, or
 * when the ring cannot be set up (the backend then warns once and falls
 * back), requests are carried out by pread/pwrite at submit time.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/io/aio.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef SRM_AIO_H
#define SRM_AIO_H

#include <sys/types.h>

#include "portability/instr_time.h"

#include "base/settings.h"

typedef enum SrmIoState
{
	SRM_IO_IDLE = 0,			/* not in use */
	SRM_IO_PREPARED,			/* queued, not yet submitted */
	SRM_IO_INFLIGHT,			/* submitted to the kernel */
	SRM_IO_DONE					/* completed; result holds the outcome */
} SrmIoState;

struct SrmIoSet;

/*
 * Largest write into the page cache (SrmIoSet.write_piece).  Writes of
 * 64kB and more get large folios, whose first fill the kernel copies
 * several times slower per byte on the VMs measured (docs/design.md,
 * "Writes in pieces").
 */
#define SRM_WRITE_PIECE		(32 * 1024)

typedef struct SrmIo
{
	int			fd;				/* stable kernel fd */
	char	   *buf;
	uint32		len;
	off_t		offset;
	bool		is_write;
	SrmIoState	state;
	int			result;			/* bytes transferred, or -errno */
	const char *path;			/* for error messages */
	int			tag;			/* caller's (the tape layer: disk index) */
	instr_time	submitted;		/* when it reached the kernel */
	struct SrmIoSet *set;
	struct SrmIo *next;			/* prepared queue link */
	/* a write sent to io_uring in pieces (SrmIoSet.write_piece) */
	uint16		pieces_left;	/* pieces not yet completed */
	uint32		piece_bytes;	/* bytes the completed pieces wrote */
} SrmIo;

/* A set of requests belonging to one sort, and its time spent waiting. */
typedef struct SrmIoSet
{
	SrmIoMethod method;			/* method actually in use */
	bool		async_reads;	/* buffered files: reads to io_uring's worker */
	uint32		write_piece;	/* buffered files: write at most this much
								 * per request; 0: whole requests */
	int			inflight;		/* submitted, not yet reaped */
	SrmIo	   *prep_head;		/* prepared, not yet submitted */
	SrmIo	   *prep_tail;
	double		wait_ms;		/* time blocked in SrmIoWait/SrmIoDrain */
	bool		relation_writes;	/* writes extend a relation: errors in
									 * the storage manager's words */
	bool		soft_errors;	/* SrmIoWait leaves a failed request's
								 * result to the caller, no ERROR */
	/* called when a request completes, with its service time (never ERRORs) */
	void		(*on_complete) (struct SrmIo *io, double ms, void *arg);
	void	   *on_complete_arg;
} SrmIoSet;

/*
 * Create a set in CurrentMemoryContext using srmsort.io_method, falling
 * back to sync (WARNING once per backend, with a hint) if io_uring cannot
 * be set up.
 */
extern SrmIoSet *SrmIoSetCreate(void);

extern void SrmIoPrepRead(SrmIoSet *set, SrmIo *io, int fd, const char *path,
						  char *buf, uint32 len, off_t offset);
extern void SrmIoPrepWrite(SrmIoSet *set, SrmIo *io, int fd, const char *path,
						   char *buf, uint32 len, off_t offset);

/* Submit every prepared request of the set in one batch; never waits. */
extern void SrmIoSubmit(SrmIoSet *set);

/*
 * Wait until io is done (submitting it first if it is only prepared);
 * CHECK_FOR_INTERRUPTS while waiting.  ERRORs (errcode_for_file_access,
 * "could not read/write file ...") on an I/O error or short transfer; the
 * request is then IDLE again.  On success the request is IDLE again too.
 * With the set's soft_errors, a failure does not ERROR: io->result says
 * what happened (bytes transferred, or -errno).
 */
extern void SrmIoWaitBusy(SrmIoSet *set, SrmIo *io);

/* An idle request (never used, or waited for) returns at once, inline. */
static inline void
SrmIoWait(SrmIoSet *set, SrmIo *io)
{
	if (io->state != SRM_IO_IDLE)
		SrmIoWaitBusy(set, io);
}

/*
 * Wait for every request of the set, ignoring errors and interrupts.  Safe
 * in abort paths (never ERRORs); after it no request of the set is in
 * flight.
 */
extern void SrmIoDrain(SrmIoSet *set);

/*
 * Ask io_uring's worker to fault in [addr, addr + len) of fresh memory
 * ahead of its use, off the backend's CPU.  No-op without io_uring.
 */
extern void SrmIoPrefault(void *addr, Size len);

/*
 * Close fd in io_uring's worker, not waiting: the last close of an unlinked
 * file frees its blocks, which on a filesystem mounted with online discard
 * waits for the disk to discard them.  False, fd untouched, when this
 * backend has no usable ring.
 */
extern bool SrmIoCloseAsync(int fd);

#endif							/* SRM_AIO_H */
