/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Validate-on-hit's two version checks at the home (docs/VALIDATE.md):
 *  - VOH_VREAD, the one-sided check: answered by the thread that received
 *    it (the dispatch thread, or the sender itself for a local check) from
 *    the version array, without the agents' section or any other lock, as
 *    an RDMA read would be served by the NIC;
 *  - VOH_VRPC, the RPC baseline (the paper's version thread): queued to a
 *    thread of its own, which must be scheduled, enter the agents' section
 *    and answer.
 * Both are routed by na_node.c (voh_route); this file is the version
 * thread. Under NA_SIM it is answered in the agents' section by the
 *    receiving thread (no second thread in the simulation).
 */
#include <errno.h>
#include <sched.h>

#include "na_msg.h"
#include "na_node_int.h"
#include "na_wait.h"

static void
vrpc_run(struct na_node *n, const struct lcf_msg *m)
{
	static __thread struct na_out out;

	na_node_agents_enter(n);
	na_out_reset(&out);
	na_voh_handle(&n->voh, m, NULL, 0, &out);
	na_node_flush(n, &out);
	na_node_agents_leave(n);
}

#ifndef NA_SIM
/*
 * The version thread is an ordinary thread, as the paper's is: whatever
 * scheduling class the process runs in (a benchmark may give the receive
 * path a real-time class, standing in for the NIC), it competes with the
 * application's threads for the CPU.
 */
static void *
vthread_main(void *arg)
{
	struct na_node *n = arg;
	static __thread struct na_mail x;
	struct sched_param sp = { .sched_priority = 0 };

	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);

	while (!__atomic_load_n(&n->stop, __ATOMIC_RELAXED))
		if (na_mbox_wait(&n->vq, &x, na_now_ns() + 10000000ull) == 0)
			vrpc_run(n, &x.m);
	return NULL;
}
#endif

int
na_node_voh_start(struct na_node *n)
{
	int rc = na_voh_home_init(&n->voh, &n->home);

	if (rc)
		return rc;
#ifdef NA_SIM
	(void)vrpc_run;
	return 0;
#else
	if (na_mbox_init(&n->vq))
		return -ENOMEM;
	rc = na_thread_start(&n->vthread, vthread_main, n);
	if (rc)
		return -rc;
	n->vthread_running = true;
	return 0;
#endif
}

void
na_node_voh_stop(struct na_node *n)
{
	if (n->vthread_running) {
		__atomic_store_n(&n->stop, 1, __ATOMIC_RELAXED);
		na_thread_join(n->vthread);
		n->vthread_running = false;
	}
	if (n->vq.q)
		na_mbox_fini(&n->vq);
	na_voh_home_fini(&n->voh);
}
