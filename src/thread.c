/*-------------------------------------------------------------------------
 *
 * thread.c
 *	  The sort thread: sorts segments of a memory load on normalized keys
 *	  while the main thread reads the input.
 *
 * A run's sort is a fifth of a sort's CPU time on normalized keys, and on
 * two cores the second core has little else to do while the backend reads
 * its input (NOW-Sort's overlap of run sorting with reading).  So the
 * memory load is handed to one thread per backend in segments as it fills
 * (runs.c); the thread radix sorts them on (NULL rank, normalized key),
 * and the run is written -- or an in-memory result returned -- by merging
 * the sorted segments.
 *
 * The thread follows pg-internals.md §6: it is created with every signal
 * blocked, calls nothing of PostgreSQL's (SrmRadixSort with interruptible
 * false touches only the array), and owns no memory.  The main thread owns
 * everything else: it waits with timeouts and checks for interrupts in
 * between, and whatever frees an array the thread may be sorting -- the
 * load's reset callback, backend exit -- first waits until the thread is
 * idle (segments take milliseconds).  srmsort.sort_thread = off (the
 * default: on the project's 2-core machine the merge of the segments and
 * the contention for memory ate what the overlap saved, README
 * "Performance"), or a thread that cannot be created (one WARNING per
 * backend), sorts runs on the main thread as before.  The environment variable
 * SRMSORT_FAIL_THREAD=1 (set for the postmaster) makes creation fail, for
 * the tests.
 *
 * IDENTIFICATION
 *	  src/thread.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "miscadmin.h"
#include "storage/ipc.h"

#include "radix.h"
#include "thread.h"

#define SRM_THREAD_QUEUE	64
#define SRM_THREAD_STACK	(256 * 1024)	/* radix recursion: < 64kB */
#define SRM_THREAD_WAIT_NS	(10 * 1000 * 1000)

bool		srmsort_sort_thread = false;

typedef struct SrmThreadJob
{
	SrmTuple   *a;
	int64		n;
} SrmThreadJob;

static pthread_t thread;
static pid_t thread_pid = 0;	/* the backend that created it */
static bool thread_failed = false;
static bool exit_hook = false;

/* protected by mutex */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static SrmThreadJob queue[SRM_THREAD_QUEUE];
static uint64 submitted = 0;
static uint64 started = 0;
static uint64 completed = 0;
static bool stopping = false;

static void *
thread_main(void *arg)
{
	pthread_mutex_lock(&mutex);
	for (;;)
	{
		SrmThreadJob job;

		while (!stopping && started == submitted)
			pthread_cond_wait(&work_cv, &mutex);
		if (stopping)
			break;
		job = queue[started % SRM_THREAD_QUEUE];
		started++;
		pthread_mutex_unlock(&mutex);

		SrmRadixSort(job.a, job.n, false);

		pthread_mutex_lock(&mutex);
		completed++;
		pthread_cond_broadcast(&done_cv);
	}
	pthread_mutex_unlock(&mutex);
	return NULL;
}

static bool
thread_running(void)
{
	return thread_pid != 0 && thread_pid == getpid();
}

/*
 * thread_exit
 *		Backend exit: no thread may run while proc_exit frees things.
 */
static void
thread_exit(int code, Datum arg)
{
	if (!thread_running())
		return;
	SrmThreadQuiesce();
	pthread_mutex_lock(&mutex);
	stopping = true;
	pthread_cond_signal(&work_cv);
	pthread_mutex_unlock(&mutex);
	pthread_join(thread, NULL);
	thread_pid = 0;
}

/*
 * SrmThreadStart
 *		Create the thread on first use, with every signal blocked: signals
 *		are the main thread's.
 */
bool
SrmThreadStart(void)
{
	pthread_attr_t attr;
	sigset_t	all,
				old;
	const char *fail;
	int			rc;

	if (!srmsort_sort_thread || thread_failed)
		return false;
	if (thread_running())
		return true;

	fail = getenv("SRMSORT_FAIL_THREAD");
	if (fail != NULL && strcmp(fail, "1") == 0)
		rc = EAGAIN;
	else
	{
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, SRM_THREAD_STACK);
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		rc = pthread_create(&thread, &attr, thread_main, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0)
	{
		thread_failed = true;
		errno = rc;
		ereport(WARNING,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start the srmsort sort thread, sorting runs in the backend: %m"),
				 errhint("Sorts still work, only without overlapping run sorting with input. Set srmsort.sort_thread = off to stop trying in new sessions.")));
		return false;
	}
	submitted = started = completed = 0;
	stopping = false;
	thread_pid = getpid();
	if (!exit_hook)
	{
		before_shmem_exit(thread_exit, (Datum) 0);
		exit_hook = true;
	}
	return true;
}

/*
 * SrmThreadSubmit
 *		Queue a segment; with the queue full, wait for room first.
 */
void
SrmThreadSubmit(SrmTuple *a, int64 n)
{
	bool		full;

	Assert(thread_running());
	pthread_mutex_lock(&mutex);
	full = (submitted - completed >= SRM_THREAD_QUEUE);
	pthread_mutex_unlock(&mutex);
	if (full)
		SrmThreadWait();
	pthread_mutex_lock(&mutex);
	queue[submitted % SRM_THREAD_QUEUE].a = a;
	queue[submitted % SRM_THREAD_QUEUE].n = n;
	submitted++;
	pthread_cond_signal(&work_cv);
	pthread_mutex_unlock(&mutex);
}

/*
 * wait_done
 *		Wait up to SRM_THREAD_WAIT_NS for the queue to drain; true if it
 *		has.
 */
static bool
wait_done(void)
{
	struct timespec ts;
	bool		done;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += SRM_THREAD_WAIT_NS;
	if (ts.tv_nsec >= 1000000000L)
	{
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&mutex);
	if (completed != submitted)
		pthread_cond_timedwait(&done_cv, &mutex, &ts);
	done = (completed == submitted);
	pthread_mutex_unlock(&mutex);
	return done;
}

void
SrmThreadWait(void)
{
	if (!thread_running())
		return;
	while (!wait_done())
		CHECK_FOR_INTERRUPTS();
}

void
SrmThreadQuiesce(void)
{
	if (!thread_running())
		return;
	while (!wait_done())
		;
}
