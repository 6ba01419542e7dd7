/*-------------------------------------------------------------------------
 *
 * aio.c
 *	  Asynchronous block I/O for workfiles: io_uring, or synchronous.
 *
 * One io_uring per backend, created on first use (never in the postmaster:
 * a ring inherited over fork would be shared by every backend; a ring is
 * recreated when the pid changes).  Requests of all sets share it; each
 * SQE's user_data is the SrmIo, so reaping a completion -- whoever reaps
 * it -- marks that request done and decrements its set's in-flight count.
 * The memory behind every request in flight belongs to a live set, because
 * every set is drained (SrmIoDrain) before its buffers are freed.
 *
 * Waiting uses io_uring_wait_cqe_timeout with a short timeout and
 * CHECK_FOR_INTERRUPTS in between, so cancels and statement timeouts work
 * during I/O.  If CHECK_FOR_INTERRUPTS throws, requests stay in flight
 * until the owner's reset callback drains them -- SrmIoDrain never throws.
 *
 * When io_uring cannot be set up (ENOSYS, EPERM from seccomp or
 * kernel.io_uring_disabled, ENOMEM from the memory-lock limit) the backend
 * warns once and uses pread/pwrite, carried out at submit time.  The
 * developer option srmsort.debug_fail_io_uring makes setup fail on
 * purpose; the fault tests use it.
 *
 * Portions Copyright (c) 2026, the srmsort developers
 *
 * IDENTIFICATION
 *	  src/io/aio.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <liburing.h>
#include <sys/mman.h>
#include <unistd.h>

#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/fd.h"

#include "base/settings.h"
#include "io/aio.h"

#define SRM_RING_DEPTH		256

static struct io_uring ring;
static bool ring_ok = false;
static pid_t ring_pid = 0;
static bool ring_failed = false;	/* setup failed in this backend */
static bool ring_async = false;	/* the kernel knows IOSQE_ASYNC (5.6+) */
static uint32 ring_pending = 0;	/* requests given to the ring whose
								 * completions are not reaped yet */


/*
 * ring_init
 *		Set up the ring.  Completions of buffered I/O are posted by io-wq
 *		workers, which by default interrupt the backend with an IPI for each,
 *		a noticeable share of its time; cooperative task running delivers
 *		them at the backend's next system call instead.  Older kernels
 *		refuse the flags: then plain set-up.
 */
static int
ring_init(void)
{
	int			ret = -EINVAL;

#if defined(IORING_SETUP_COOP_TASKRUN) && defined(IORING_SETUP_TASKRUN_FLAG)
	{
		static const unsigned flagsets[] = {
#ifdef IORING_SETUP_SINGLE_ISSUER
			IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_SINGLE_ISSUER,
#endif
			IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG
		};
		int			i;

		for (i = 0; i < lengthof(flagsets); i++)
		{
			struct io_uring_params p;

			memset(&p, 0, sizeof(p));
			p.flags = flagsets[i];
			ret = io_uring_queue_init_params(SRM_RING_DEPTH, &ring, &p);
			if (ret != -EINVAL)
			{
				/* these flags came with 5.19 */
				ring_async = (ret == 0);
				return ret;
			}
		}
	}
#endif
	return io_uring_queue_init(SRM_RING_DEPTH, &ring, 0);
}
/*
 * ring_ready
 *		This backend has set up its own ring (a ring inherited over fork is
 *		the parent's: not to be touched).
 */
static inline bool
ring_ready(void)
{
	return ring_ok && ring_pid == MyProcPid;
}

/*
 * ring_setup
 *		Make sure this backend has a ring; false if io_uring is unusable.
 */
static bool
ring_setup(void)
{
	int			ret;

	if (ring_ready())
		return true;
	if (ring_failed)
		return false;
	if (ring_ok)
		ring_ok = false;		/* inherited over fork: do not touch it */

	if (srmsort_debug_fail_io_uring)
		ret = -EPERM;
	else
		ret = ring_init();
	if (ret < 0)
	{
		ring_failed = true;
		errno = -ret;
		ereport(WARNING,
				(errcode(ret == -ENOMEM ? ERRCODE_OUT_OF_MEMORY :
						 ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("could not set up io_uring, using synchronous I/O: %m"),
				 errhint("Check kernel.io_uring_disabled, seccomp profiles and the memory lock limit, or set srmsort.io_method to sync.")));
		return false;
	}
	ring_ok = true;
	ring_pid = MyProcPid;
	ring_pending = 0;
	return true;
}

/*
 * SrmIoSetCreate
 *		See aio.h.
 */
SrmIoSet *
SrmIoSetCreate(void)
{
	SrmIoSet   *set = palloc0(sizeof(SrmIoSet));

	set->method = SRM_IO_METHOD_SYNC;
	if (srmsort_io_method == SRM_IO_METHOD_IO_URING && ring_setup())
		set->method = SRM_IO_METHOD_IO_URING;
	return set;
}

static void
prep(SrmIoSet *set, SrmIo *io, int fd, const char *path, char *buf,
	 uint32 len, off_t offset, bool is_write)
{
	Assert(io->state == SRM_IO_IDLE);
	io->fd = fd;
	io->path = path;
	io->buf = buf;
	io->len = len;
	io->offset = offset;
	io->is_write = is_write;
	io->state = SRM_IO_PREPARED;
	io->result = 0;
	io->set = set;
	io->next = NULL;
	io->pieces_left = 0;
	io->piece_bytes = 0;
	if (set->prep_tail)
		set->prep_tail->next = io;
	else
		set->prep_head = io;
	set->prep_tail = io;
}

void
SrmIoPrepRead(SrmIoSet *set, SrmIo *io, int fd, const char *path, char *buf,
			  uint32 len, off_t offset)
{
	prep(set, io, fd, path, buf, len, offset, false);
}

void
SrmIoPrepWrite(SrmIoSet *set, SrmIo *io, int fd, const char *path, char *buf,
			   uint32 len, off_t offset)
{
	prep(set, io, fd, path, buf, len, offset, true);
}

/*
 * complete
 *		Record the outcome of io.
 */
static void
complete(SrmIo *io, int result)
{
	SrmIoSet   *set = io->set;

	if (set->on_complete != NULL)
	{
		instr_time	now;

		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, io->submitted);
		set->on_complete(io, INSTR_TIME_GET_MILLISEC(now), set->on_complete_arg);
	}
	io->result = result;
	if (io->state == SRM_IO_INFLIGHT)
		set->inflight--;
	io->state = SRM_IO_DONE;
}

/*
 * do_sync
 *		Carry out io with pread/pwrite, completing short transfers.
 */
static void
do_sync(SrmIo *io)
{
	uint32		done = 0;
	uint32		piece = io->set->write_piece;

	while (done < io->len)
	{
		uint32		want = io->len - done;
		ssize_t		r;

		if (io->is_write && piece > 0)
			want = Min(want, piece);
		r = io->is_write ?
			pwrite(io->fd, io->buf + done, want, io->offset + done) :
			pread(io->fd, io->buf + done, want, io->offset + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
		{
			complete(io, -errno);
			return;
		}
		if (r == 0)
			break;
		done += r;
	}
	complete(io, (int) done);
}

/*
 * piece_done
 *		A completion of io, or of one of its pieces: io is complete with the
 *		last.  A piece that failed or was short (and so cancelled the pieces
 *		linked after it) makes the result -EAGAIN: SrmIoWait then writes
 *		the whole request again with pwrite, which reports the real error.
 */
static void
piece_done(SrmIo *io, int res)
{
	if (io->pieces_left == 0)
	{
		complete(io, res);
		return;
	}
	/* a failed or short piece leaves the sum short of the request */
	if (res > 0)
		io->piece_bytes += res;
	if (--io->pieces_left > 0)
		return;
	complete(io, io->piece_bytes != io->len ? -EAGAIN : (int) io->len);
}

/*
 * reap
 *		Collect completions without waiting.
 */
static void
reap(void)
{
	struct io_uring_cqe *cqe;

	while (io_uring_peek_cqe(&ring, &cqe) == 0)
	{
		SrmIo	   *io = (SrmIo *) io_uring_cqe_get_data(cqe);

		/*
		 * no SrmIo: a prefault (SrmIoPrefault) or a close
		 * (SrmIoCloseAsync), done whatever its result
		 */
		if (io != NULL)
			piece_done(io, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
		if (ring_pending > 0)
			ring_pending--;
	}
}

/*
 * get_sqe
 *		A submission entry, once the ring has room for its completion too;
 *		without wait, NULL if it has none now.
 *
 * The completion queue holds 2 * SRM_RING_DEPTH entries.  A completion
 * that finds it full is kept aside only if the kernel can allocate for it
 * -- under a memory cgroup's limit a DSM merge over eight disks, with 2280
 * reads in flight, lost six and waited for them forever -- so the ring
 * never has more requests in flight than its completion queue holds.
 */
static struct io_uring_sqe *
get_sqe(bool wait)
{
	struct io_uring_sqe *sqe;

	reap();
	for (;;)
	{
		if (ring_pending < ring.cq.ring_entries &&
			(sqe = io_uring_get_sqe(&ring)) != NULL)
		{
			ring_pending++;
			return sqe;
		}
		if (!wait)
			return NULL;
		/* hand over what is queued, then make room */
		io_uring_submit(&ring);
		reap();
		if (ring_pending >= ring.cq.ring_entries)
		{
			struct io_uring_cqe *cqe;

			if (io_uring_wait_cqe(&ring, &cqe) == 0)
				reap();
		}
	}
}

/*
 * SrmIoPrefault
 *		See aio.h.  The kernel zeroes every page a process touches for the
 *		first time; a sort held in memory touches its whole input so, on its
 *		own CPU (large budgets pay most: smaller ones reuse their arena).
 *		MADV_POPULATE_WRITE sent through
 *		io_uring runs in its worker, on the other CPU, ahead of the backend
 *		filling the range.  It faults pages in without writing to them, so
 *		it is harmless whatever the range holds by the time it runs, and an
 *		unmapped range only fails; nobody waits for it.
 */
void
SrmIoPrefault(void *addr, Size len)
{
#ifdef MADV_POPULATE_WRITE
	struct io_uring_sqe *sqe;

	if (srmsort_io_method != SRM_IO_METHOD_IO_URING || !ring_setup() ||
		!ring_async)
		return;
	sqe = get_sqe(false);
	if (sqe == NULL)
		return;					/* the queue is full of I/O: not worth it */
	io_uring_prep_madvise(sqe, addr, len, MADV_POPULATE_WRITE);
	io_uring_sqe_set_data(sqe, NULL);
	io_uring_submit(&ring);
#endif
}

/*
 * SrmIoCloseAsync
 *		See aio.h.  The request carries no SrmIo: nobody waits for it, and
 *		reap() passes over its completion.
 */
bool
SrmIoCloseAsync(int fd)
{
	struct io_uring_sqe *sqe;

	if (srmsort_io_method != SRM_IO_METHOD_IO_URING || !ring_ready() ||
		!ring_async)
		return false;
	sqe = get_sqe(false);
	if (sqe == NULL)
		return false;
	io_uring_prep_close(sqe, fd);
	io_uring_sqe_set_flags(sqe, IOSQE_ASYNC);
	io_uring_sqe_set_data(sqe, NULL);
	if (io_uring_submit(&ring) < 0)
	{
		/* not queued after all: take the slot back as a no-op */
		io_uring_prep_nop(sqe);
		return false;
	}
	return true;
}

/*
 * prep_pieces
 *		Prepare the write io as linked writes of at most write_piece bytes,
 *		the first in sqe; returns the last piece's entry.  The link runs
 *		them in order in one io_uring worker.  If the ring fills before the
 *		last, get_sqe submits what is queued, which ends the chain there:
 *		the pieces after it may then run beside those before, which is as
 *		correct, only less orderly.
 */
static struct io_uring_sqe *
prep_pieces(SrmIoSet *set, SrmIo *io, struct io_uring_sqe *sqe)
{
	uint32		done = 0;

	io->pieces_left = (io->len + set->write_piece - 1) / set->write_piece;
	for (;;)
	{
		uint32		n = Min(io->len - done, set->write_piece);

		io_uring_prep_write(sqe, io->fd, io->buf + done, n, io->offset + done);
		done += n;
		if (done == io->len)
			return sqe;
		io_uring_sqe_set_flags(sqe, IOSQE_IO_LINK);
		io_uring_sqe_set_data(sqe, io);
		sqe = get_sqe(true);
	}
}

/*
 * SrmIoSubmit
 *		See aio.h.
 */
void
SrmIoSubmit(SrmIoSet *set)
{
	SrmIo	   *io = set->prep_head;
	bool		any = false;

	set->prep_head = set->prep_tail = NULL;
	while (io != NULL)
	{
		SrmIo	   *next = io->next;

		io->next = NULL;
		INSTR_TIME_SET_CURRENT(io->submitted);
		if (set->method == SRM_IO_METHOD_SYNC)
		{
			instr_time	start,
						end;

			INSTR_TIME_SET_CURRENT(start);
			do_sync(io);
			INSTR_TIME_SET_CURRENT(end);
			INSTR_TIME_SUBTRACT(end, start);
			set->wait_ms += INSTR_TIME_GET_MILLISEC(end);
		}
		else
		{
			struct io_uring_sqe *sqe = get_sqe(true);

			/* (the wait for room above is not the request's) */
			INSTR_TIME_SET_CURRENT(io->submitted);
			if (io->is_write && set->write_piece > 0 &&
				io->len > set->write_piece)
				sqe = prep_pieces(set, io, sqe);
			else if (io->is_write)
				io_uring_prep_write(sqe, io->fd, io->buf, io->len, io->offset);
			else
			{
				io_uring_prep_read(sqe, io->fd, io->buf, io->len, io->offset);

				/*
				 * A buffered read of a cached block completes inside
				 * io_uring_submit, copying the block on the sort's own CPU;
				 * issued async from the start it is copied by io_uring's
				 * worker, on another CPU, while the merge goes on.  The
				 * extra latency costs nothing: forecasting issues reads
				 * well before they are needed.
				 */
#ifdef IOSQE_ASYNC
				if (set->async_reads && ring_async)
					io_uring_sqe_set_flags(sqe, IOSQE_ASYNC);
#endif
			}
			io_uring_sqe_set_data(sqe, io);
			io->state = SRM_IO_INFLIGHT;
			set->inflight++;
			any = true;
		}
		io = next;
	}
	if (any)
	{
		int			ret;

		do
			ret = io_uring_submit(&ring);
		while (ret == -EINTR);
	}
}

/*
 * raise_error
 *		Report a failed or short transfer of io.
 */
static void
raise_error(SrmIo *io)
{
	int			result = io->result;

	io->state = SRM_IO_IDLE;
	if (result < 0)
		errno = -result;
	else
		errno = EIO;
	if (io->is_write)
	{
		if (result >= 0)
			errno = ENOSPC;		/* a short write means a full disk */
		if (io->set->relation_writes)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not extend file \"%s\": %m", io->path),
					 errhint("Check free disk space.")));
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write to file \"%s\": %m", io->path)));
	}
	ereport(ERROR,
			(errcode_for_file_access(),
			 errmsg("could not read file \"%s\": %m", io->path)));
}

/*
 * redo_sync
 *		Carry out part (a copy of a request that io_uring completed) with
 *		pread/pwrite.  Its completion was already reported, so the callback
 *		is held off (it would count the bytes in flight twice).
 */
static int
redo_sync(SrmIo *part)
{
	SrmIoSet   *set = part->set;
	void		(*on_complete) (struct SrmIo *io, double ms, void *arg);

	on_complete = set->on_complete;
	set->on_complete = NULL;
	part->state = SRM_IO_PREPARED;
	do_sync(part);				/* reports errors in part->result, never ERRORs */
	set->on_complete = on_complete;
	return part->result;
}

/*
 * finish_short
 *		A short transfer from io_uring: do the rest synchronously.
 */
static void
finish_short(SrmIo *io)
{
	uint32		got = (uint32) io->result;
	SrmIo		rest = *io;
	int			r;

	if (got == 0)
		return;
	rest.buf += got;
	rest.len -= got;
	rest.offset += got;
	r = redo_sync(&rest);
	io->result = r >= 0 ? (int) got + r : r;
}

/*
 * SrmIoWaitBusy
 *		SrmIoWait of a request that is not idle; see aio.h.
 */
void
SrmIoWaitBusy(SrmIoSet *set, SrmIo *io)
{
	if (io->state == SRM_IO_PREPARED)
		SrmIoSubmit(set);
	if (io->state == SRM_IO_INFLIGHT)
	{
		instr_time	start,
					end;

		INSTR_TIME_SET_CURRENT(start);
		reap();
		while (io->state == SRM_IO_INFLIGHT)
		{
			struct io_uring_cqe *cqe;
			struct __kernel_timespec ts = {0, 100 * 1000 * 1000};

			(void) io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
			reap();
			if (io->state == SRM_IO_INFLIGHT)
				CHECK_FOR_INTERRUPTS();
		}
		INSTR_TIME_SET_CURRENT(end);
		INSTR_TIME_SUBTRACT(end, start);
		set->wait_ms += INSTR_TIME_GET_MILLISEC(end);
	}
	/* (also for a request reaped before this wait) */
	if (set->method != SRM_IO_METHOD_SYNC)
	{
		if (io->result == -EAGAIN || io->result == -EINTR ||
			io->result == -ECANCELED)
		{
			/*
			 * A transient refusal (say, io_uring could not start a worker
			 * for an async request), or a piece of a write that failed:
			 * do it ourselves.
			 */
			SrmIo		again = *io;

			io->result = redo_sync(&again);
		}
		else if (io->result >= 0 && (uint32) io->result < io->len)
			finish_short(io);
	}
	if ((io->result < 0 || (uint32) io->result != io->len) &&
		!set->soft_errors)
		raise_error(io);
	io->state = SRM_IO_IDLE;
}

/*
 * SrmIoDrain
 *		See aio.h.  Never ERRORs, never checks for interrupts.
 */
void
SrmIoDrain(SrmIoSet *set)
{
	SrmIo	   *io;

	/* prepared but never submitted: nothing reached the kernel */
	for (io = set->prep_head; io != NULL;)
	{
		SrmIo	   *next = io->next;

		io->state = SRM_IO_IDLE;
		io->next = NULL;
		io = next;
	}
	set->prep_head = set->prep_tail = NULL;

	if (set->method != SRM_IO_METHOD_IO_URING || !ring_ready())
		return;
	while (set->inflight > 0)
	{
		struct io_uring_cqe *cqe;

		reap();
		if (set->inflight > 0 && io_uring_wait_cqe(&ring, &cqe) == 0)
			reap();
	}
}
