/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The simulation's scheduler (na_sim_sched.h), and na_clock.h / na_wait.h
 * for code built with NA_SIM.
 *
 * Coroutines are ucontext contexts with their own mmap'd stacks (1 MB,
 * reserved, not committed, with a guard page: the requester keeps a block
 * buffer of up to 64 KB on its stack). A coroutine that waits records what
 * it waits on (a condition variable, a coroutine to join, or nothing for a
 * sleep) and a generation; a wake is an event carrying that generation, so
 * a timeout and a signal for the same wait cannot both resume it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "na_clock.h"
#include "na_sim_sched.h"

#define CO_STACK   (1u << 20)
#define NEVER      UINT64_MAX
#define HEAP_FIRST 1024u

enum co_state {
	CO_READY,
	CO_RUNNING,
	CO_WAITING,
	CO_DONE,
};

struct na_sim_co {
	ucontext_t uc;
	uint8_t *stack; /* CO_STACK bytes, the lowest page a guard */
	void *(*fn)(void *);
	void *arg;
	enum co_state state;
	const void *key;          /* what it waits on; NULL: a sleep */
	uint64_t gen;             /* of the current wait */
	bool timed_out;           /* why it last woke */
	struct na_sim_co *joiner; /* waiting for this one to return */
	uint64_t ready;           /* runs again no earlier (na_sim_on_park) */
	struct na_sim_co *next;   /* all coroutines, oldest first */
};

struct sim_ev {
	uint64_t at, order;
	na_sim_fn fn;
	void *ctx, *arg;
};

static struct {
	uint64_t now;
	uint64_t order; /* events scheduled so far: ties run in this order */
	uint64_t taken;
	struct sim_ev *heap;
	uint32_t n, cap;
	ucontext_t main_uc;
	struct na_sim_co *cur; /* running coroutine, NULL in the scheduler */
	struct na_sim_co *all, **tail;
	uint32_t live;
	uint64_t (*on_park)(uint64_t now);
} S;

uint64_t
na_sim_now_ns(void)
{
	return S.now;
}

uint64_t
na_sim_events(void)
{
	return S.taken;
}

uint32_t
na_sim_live(void)
{
	return S.live;
}

/* ---- the event queue: a binary min-heap on (at, order) ------------------ */

static bool
ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->at < b->at || (a->at == b->at && a->order < b->order);
}

void
na_sim_at(uint64_t at_ns, na_sim_fn fn, void *ctx, void *arg)
{
	struct sim_ev e = {
		.at = at_ns > S.now ? at_ns : S.now,
		.order = S.order++,
		.fn = fn,
		.ctx = ctx,
		.arg = arg,
	};
	uint32_t i;

	if (S.n == S.cap) {
		uint32_t cap = S.cap ? S.cap * 2 : HEAP_FIRST;
		struct sim_ev *h = realloc(S.heap, sizeof(*h) * cap);

		if (!h) {
			/* A lost event would be a silent wrong result. */
			fprintf(stderr, "na-sim: out of memory for events\n");
			abort();
		}
		S.heap = h;
		S.cap = cap;
	}
	for (i = S.n++; i > 0; i = (i - 1) / 2) {
		struct sim_ev *parent = &S.heap[(i - 1) / 2];

		if (!ev_before(&e, parent))
			break;
		S.heap[i] = *parent;
	}
	S.heap[i] = e;
}

static struct sim_ev
ev_pop(void)
{
	struct sim_ev top = S.heap[0], last = S.heap[--S.n];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= S.n)
			break;
		if (c + 1 < S.n && ev_before(&S.heap[c + 1], &S.heap[c]))
			c++;
		if (!ev_before(&S.heap[c], &last))
			break;
		S.heap[i] = S.heap[c];
		i = c;
	}
	if (S.n)
		S.heap[i] = last;
	return top;
}

/* ---- coroutines ----------------------------------------------------------- */

/* A returned coroutine's stack; its record stays until na_sim_fini, as
 * events (a timeout of its last wait) may still name it. */
static void
co_unmap(struct na_sim_co *co)
{
	if (co->stack)
		munmap(co->stack, CO_STACK);
	co->stack = NULL;
}

/* Wake events carry the wait's generation and whether it is the timeout. */
static void *
wake_arg(uint64_t gen, bool timeout)
{
	return (void *)(uintptr_t)(gen << 1 | timeout);
}

static void wake_ev(void *ctx, void *arg);

static void
resume(struct na_sim_co *co)
{
	co->state = CO_RUNNING;
	S.cur = co;
	swapcontext(&S.main_uc, &co->uc);
	S.cur = NULL;
	if (co->state == CO_DONE && co->joiner &&
	    co->joiner->state == CO_WAITING && co->joiner->key == co) {
		co->joiner->key = NULL;
		na_sim_at(S.now, wake_ev, co->joiner,
			  wake_arg(co->joiner->gen, false));
	}
}

static void
wake_ev(void *ctx, void *arg)
{
	struct na_sim_co *co = ctx;
	uintptr_t a = (uintptr_t)arg;

	if (co->state == CO_READY) {
		resume(co); /* its start */
		return;
	}
	if (co->state != CO_WAITING || co->gen != (uint64_t)(a >> 1))
		return; /* stale: it woke for the other reason */
	if (S.now < co->ready) {
		/* Its CPU time is not over: the wake-up waits for it. */
		na_sim_at(co->ready, wake_ev, co, arg);
		return;
	}
	co->timed_out = a & 1;
	co->key = NULL;
	resume(co);
}

static void
co_main(void)
{
	struct na_sim_co *co = S.cur;

	co->fn(co->arg);
	if (S.on_park)
		S.on_park(S.now);
	co->state = CO_DONE;
	S.live--;
	swapcontext(&co->uc, &S.main_uc);
	abort(); /* a returned coroutine is never resumed */
}

int
na_sim_spawn(na_thread_t *t, void *(*fn)(void *), void *arg)
{
	struct na_sim_co *co = calloc(1, sizeof(*co));

	if (!co)
		return -ENOMEM;
	co->stack = mmap(NULL, CO_STACK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
				 MAP_STACK,
			 -1, 0);
	if (co->stack == MAP_FAILED) {
		free(co);
		return -ENOMEM;
	}
	mprotect(co->stack, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE);
	getcontext(&co->uc);
	co->uc.uc_stack.ss_sp = co->stack;
	co->uc.uc_stack.ss_size = CO_STACK;
	co->uc.uc_link = NULL;
	makecontext(&co->uc, co_main, 0);
	co->fn = fn;
	co->arg = arg;
	co->state = CO_READY;
	if (!S.tail)
		S.tail = &S.all;
	*S.tail = co;
	S.tail = &co->next;
	S.live++;
	na_sim_at(S.now, wake_ev, co, NULL);
	*t = co;
	return 0;
}

/* Give the processor up until woken on `key` or at `deadline`. */
static bool
park(const void *key, uint64_t deadline)
{
	struct na_sim_co *co = S.cur;

	if (!co) {
		fprintf(stderr, "na-sim: a wait outside a simulated thread\n");
		abort();
	}
	co->ready = S.on_park ? S.on_park(S.now) : 0;
	co->key = key;
	co->gen++;
	co->state = CO_WAITING;
	co->timed_out = false;
	if (deadline != NEVER)
		na_sim_at(deadline, wake_ev, co, wake_arg(co->gen, true));
	swapcontext(&co->uc, &S.main_uc);
	return co->timed_out;
}

static void
wake_waiters(const void *key, bool all)
{
	for (struct na_sim_co *co = S.all; co; co = co->next) {
		if (co->state != CO_WAITING || co->key != key)
			continue;
		co->key = NULL;
		na_sim_at(S.now, wake_ev, co, wake_arg(co->gen, false));
		if (!all)
			return;
	}
}

/* ---- na_wait.h ------------------------------------------------------------ */

int
na_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu,
		   uint64_t deadline_ns)
{
	bool timed_out;

	pthread_mutex_unlock(mu);
	timed_out = park(cv, deadline_ns);
	pthread_mutex_lock(mu);
	return timed_out ? ETIMEDOUT : 0;
}

void
na_cond_signal(pthread_cond_t *cv)
{
	wake_waiters(cv, false);
}

void
na_cond_broadcast(pthread_cond_t *cv)
{
	wake_waiters(cv, true);
}

void
na_sleep_until(uint64_t deadline_ns)
{
	park(NULL, deadline_ns);
}

int
na_thread_start(na_thread_t *t, void *(*fn)(void *), void *arg)
{
	return na_sim_spawn(t, fn, arg) ? EAGAIN : 0;
}

void
na_thread_join(na_thread_t t)
{
	while (t->state != CO_DONE) {
		t->joiner = S.cur;
		park(t, NEVER);
	}
	co_unmap(t);
}

void
na_sim_on_park(uint64_t (*fn)(uint64_t now))
{
	S.on_park = fn;
}

/* ---- running -------------------------------------------------------------- */

int
na_sim_init(void)
{
	na_sim_fini();
	return 0;
}

void
na_sim_fini(void)
{
	while (S.all) {
		struct na_sim_co *co = S.all;

		S.all = co->next;
		co_unmap(co);
		free(co);
	}
	free(S.heap);
	memset(&S, 0, sizeof(S));
}

uint64_t
na_sim_run(uint64_t max_events, volatile int *stop)
{
	uint64_t taken = 0;

	while (S.n && !(stop && *stop) && (!max_events || taken < max_events)) {
		struct sim_ev e = ev_pop();

		S.now = e.at;
		S.taken++;
		taken++;
		e.fn(e.ctx, e.arg);
	}
	return taken;
}
