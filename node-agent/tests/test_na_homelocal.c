/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The home-local path's decision (na_req_send_home, na_node_send_home_local;
 * lib/model/homelocal.pml): a node 0 with a transport that only counts
 * what it is given, so a copy either reaches node 0's home agent (its
 * replies in the thread's mailbox) or the transport.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "na_home.h"
#include "na_req_mail.h"
#include "na_requester.h"

#define BS 4096u

static uint32_t wire_sends;
static struct topo topo;
static struct dsm *d;

static int
fake_open(struct na_transport *tp, const struct topo *t, uint16_t self,
	  char *err, size_t err_len)
{
	(void)tp, (void)t, (void)self, (void)err, (void)err_len;
	return 0;
}

static int
fake_send(struct na_transport *tp, uint16_t dst, const struct lcf_msg *msg,
	  const void *payload, uint16_t payload_len)
{
	(void)tp, (void)dst, (void)msg, (void)payload, (void)payload_len;
	wire_sends++;
	return 0;
}

static int
fake_recv(struct na_transport *tp, struct lcf_msg *msg, void *payload,
	  uint16_t cap, int timeout_ms)
{
	(void)tp, (void)msg, (void)payload, (void)cap, (void)timeout_ms;
	return -EAGAIN;
}

static void
fake_close(struct na_transport *tp)
{
	(void)tp;
}

static const struct na_transport_ops counting = {
	.name = "counting",
	.open = fake_open,
	.send = fake_send,
	.recv = fake_recv,
	.close = fake_close,
};

static void
node_up(const char *lock_mode)
{
	static const char *fmt =
		"{\"lcf_port\":7340,\"block_size\":4096,\"threads_per_node\":2,"
		"\"switch\":{\"mac\":\"02:00:00:00:00:fe\",\"ip\":\"10.0.0.254\","
		"\"profile\":\"tiny\",\"ways\":2,\"slots_per_way\":64,"
		"\"lock_mode\":\"%s\"},\"nodes\":["
		"{\"id\":0,\"mac\":\"02:00:00:00:00:01\",\"ip\":\"10.0.0.1\","
		"\"port\":0},{\"id\":1,\"mac\":\"02:00:00:00:00:02\","
		"\"ip\":\"10.0.0.2\",\"port\":1}],\"shadow\":1}";
	struct dsm_config dc = { .node = 0, .threads = 1, .mem_mb = 32 };
	char json[1024], err[256];

	snprintf(json, sizeof(json), fmt, lock_mode);
	cr_assert_eq(topo_load_string(json, &topo, err), 0, "%s", err);
	cr_assert_eq(na_dsm_open(&dc, &topo, &counting, true, &d, err,
				 sizeof(err)),
		     0, "%s", err);
	wire_sends = 0;
}

static void
node_down(void)
{
	dsm_close(d);
}

/* Block i of node `home`. */
static uint64_t
tag_of(uint16_t home, int i)
{
	return dsm_static_addr(home, (uint64_t)(2 + i) * BS) >>
	       d->topo.block_shift;
}

/* A copy of a new event of thread 0 on `tag` (its seq the latest). */
static struct dsm_thread *
new_event(uint64_t tag, struct lcf_msg *m)
{
	struct dsm_thread *t = dsm_thread(d, 0);
	uint32_t seq = na_req_next_seq(t);

	t->local_seq = seq;
	na_req_msg(t, m, LCF_T_WRITE_MISS, seq, tag, na_req_home_of(t, tag));
	return t;
}

static struct na_hblock *
block_of(uint64_t tag)
{
	struct lcf_msg m;
	struct na_hreq *rq;
	struct na_hblock *b;

	na_req_msg(dsm_thread(d, 0), &m, LCF_T_WRITE_MISS, 1, tag, 0);
	b = na_home_lookup(&d->node.home, &m, &rq);
	cr_assert_not_null(b);
	return b;
}

static uint8_t *
owner_of(uint64_t tag)
{
	return &block_of(tag)->owner;
}

TestSuite(homelocal, .fini = node_down);

/* (a)-(d) hold: delivered locally, its replies in the mailbox. */
Test(homelocal, local_when_all_hold)
{
	struct lcf_msg m;
	struct dsm_thread *t;

	node_up("retry");
	t = new_event(tag_of(0, 0), &m);
	cr_expect(na_req_send_home(t, &m, t->local_seq == m.seq, false));
	cr_expect_eq(wire_sends, 0);
	cr_expect_eq(t->local_seq, m.seq, "the event stays local");
	cr_expect_eq(d->node.st.req.home_local, 1);
	cr_expect_eq(na_req_wait_mail(t, 0), 0, "the home answered");
}

/* A new event's first copy on a block of `home` in `lock_mode`: it takes
 * the wire, and so do the event's later copies. */
static void
expect_wire(const char *lock_mode, uint16_t home)
{
	struct lcf_msg m;
	struct dsm_thread *t;

	node_up(lock_mode);
	t = new_event(tag_of(home, 0), &m);
	cr_expect(!na_req_send_home(t, &m, true, false));
	cr_expect_eq(wire_sends, 1);
	cr_expect_eq(t->local_seq, 0);
	cr_expect_eq(d->node.st.req.home_local, 0);
}

/* (a): a block homed elsewhere. */
Test(homelocal, wire_when_home_remote)
{
	expect_wire("retry", 1);
}

/* (b): queued lock mode keeps the wire. */
Test(homelocal, wire_when_queued)
{
	expect_wire("queued", 0);
}

/* (c): once a copy crossed the switch, the later ones follow it. */
Test(homelocal, wired_event_keeps_the_wire)
{
	struct lcf_msg m;
	struct dsm_thread *t;

	node_up("retry");
	t = new_event(tag_of(0, 0), &m);
	*owner_of(m.tag) = NA_OWN_MIGRATING;
	cr_expect(!na_req_send_home(t, &m, t->local_seq == m.seq, false));
	*owner_of(m.tag) = NA_OWN_HOME;
	cr_expect(!na_req_send_home(t, &m, t->local_seq == m.seq, false),
		  "a retransmission after the ADD failed stays on the wire");
	cr_expect_eq(wire_sends, 2);
	cr_expect_eq(d->node.st.req.home_local, 0);
	/* the next seq starts local again */
	t = new_event(m.tag, &m);
	cr_expect(na_req_send_home(t, &m, t->local_seq == m.seq, false));
}

/* (d): only NA_OWN_HOME serves a request locally; an unlock or ABORT of a
 * local event goes local whatever the owner (the home holds its lock). */
Test(homelocal, owner_not_home)
{
	static const uint8_t owners[] = { NA_OWN_MIGRATING, NA_OWN_SWITCH,
					  NA_OWN_REMOVING, NA_OWN_RECOVERING };
	struct lcf_msg m;
	struct dsm_thread *t;

	node_up("retry");
	for (size_t i = 0; i < sizeof(owners); i++) {
		t = new_event(tag_of(0, (int)i), &m);
		*owner_of(m.tag) = owners[i];
		cr_expect(!na_req_send_home(t, &m, true, false), "owner %u",
			  owners[i]);
		m.type = LCF_T_WRITE_UNLOCK;
		cr_expect(na_req_send_home(t, &m, true, true),
			  "owner %u: the unlock of a local event", owners[i]);
	}
	cr_expect_eq(wire_sends, 4);
}

/* The wrap guard: 2^30 seqs of a parity without the wire take it once. */
Test(homelocal, wrap_guard)
{
	struct lcf_msg m;
	struct dsm_thread *t;

	node_up("retry");
	t = new_event(tag_of(0, 0), &m);
	t->last_wired[m.seq & 1] = m.seq - NA_HOME_LOCAL_WRAP;
	cr_expect(!na_req_send_home(t, &m, t->local_seq == m.seq, false));
	cr_expect_eq(t->last_wired[m.seq & 1], m.seq);
	t = new_event(m.tag, &m);
	t->last_wired[m.seq & 1] = m.seq - NA_HOME_LOCAL_WRAP + 1;
	cr_expect(na_req_send_home(t, &m, t->local_seq == m.seq, false),
		  "one seq short of the guard");
	t = new_event(m.tag, &m); /* the first one's parity, 2 later */
	cr_expect(na_req_send_home(t, &m, t->local_seq == m.seq, false));
	cr_expect_eq(wire_sends, 1);
}

/* A whole event: a local one's unlock goes local, a wired one's on the
 * wire, even when the home owns the block. */
Test(homelocal, unlock_follows_its_event)
{
	struct dsm_thread *t;
	struct na_retry rt = { 0 };
	struct na_collect c;
	uint64_t tag;

	node_up("retry");
	t = dsm_thread(d, 0);
	tag = tag_of(0, 0);
	cr_assert_eq(na_req_event(t, LCF_T_WRITE_MISS, tag, &c, &rt), NA_EV_OK);
	cr_expect_eq(wire_sends, 0);
	na_req_send_unlock(t, LCF_T_WRITE_UNLOCK, rt.seq, tag, LCF_GS_UNSHARED,
			   0, NA_REC_DONE);
	cr_expect(t->unl.local);
	na_req_flush(t); /* the home's ACK is in the mailbox */
	cr_expect_eq(wire_sends, 0);
	cr_expect_eq(d->node.st.req.home_local, 2);

	memset(&rt, 0, sizeof(rt));
	cr_assert_eq(na_req_event(t, LCF_T_WRITE_MISS, tag, &c, &rt), NA_EV_OK);
	t->local_seq = 0; /* as if a copy of it had crossed the switch */
	na_req_send_unlock(t, LCF_T_WRITE_UNLOCK, rt.seq, tag, LCF_GS_UNSHARED,
			   0, NA_REC_DONE);
	cr_expect(!t->unl.local);
	cr_expect_eq(wire_sends, 1);
	t->unl.valid = false; /* nobody answers the wire */
}

/* Migration's hotness (na_migrate.h: +n per request forwarded to n cache
 * agents) counts a local event as it counts the same event from the wire:
 * node 0's write on a block node 1 shares invalidates node 1's copy. */
Test(homelocal, local_event_counts_hot)
{
	struct na_hblock *bl, *bw;
	struct dsm_thread *t;
	struct lcf_msg m;

	node_up("retry");
	bl = block_of(tag_of(0, 0));
	bw = block_of(tag_of(0, 1));
	bl->gs = bw->gs = LCF_GS_SHARED;
	bl->cs = bw->cs = 1u << 1;
	t = new_event(tag_of(0, 0), &m);
	cr_assert(na_req_send_home(t, &m, true, false));
	cr_expect_eq(bl->hot, 1, "one copy forwarded, to node 1");
	t = new_event(tag_of(0, 1), &m);
	t->local_seq = 0;
	na_node_receive(&d->node, &m, NULL); /* a tag miss from the switch */
	cr_expect_eq(bw->hot, bl->hot, "the same event from the wire");
	cr_expect_eq(d->node.st.req.home_local, 1);
	cr_expect_eq(wire_sends, 2, "node 1's invalidations");
}

/* An event and unlock the home answered in this process take no RTT
 * sample: the NACK back-off scales from the RTT (na_req_backoff), and
 * near-zero samples shrank it to nanoseconds (a NACK storm against a
 * remote holder). */
Test(homelocal, a_local_event_is_no_rtt_sample)
{
	struct dsm_thread *t;
	struct na_retry rt = { 0 };
	struct na_collect c;
	uint64_t tag, rtt;

	node_up("retry");
	t = dsm_thread(d, 0);
	rtt = t->rtt_ns;
	tag = tag_of(0, 0);
	cr_assert_eq(na_req_event(t, LCF_T_WRITE_MISS, tag, &c, &rt), NA_EV_OK);
	na_req_send_unlock(t, LCF_T_WRITE_UNLOCK, rt.seq, tag, LCF_GS_UNSHARED,
			   0, NA_REC_DONE);
	na_req_flush(t);
	cr_expect_eq(wire_sends, 0);
	cr_expect_eq(d->node.st.req.home_local, 2);
	cr_expect_eq(t->rtt_ns, rtt, "RTT %llu ns, was %llu",
		     (unsigned long long)t->rtt_ns, (unsigned long long)rtt);
}
