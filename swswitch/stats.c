/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Statistics: stats_json() builds the one document that both the exit report
 * and /swswitch/stats (telemetry.c) return, so the two never disagree;
 * counter names come from the X-macro lists of lcf_wire.h and lcf_pipeline.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "fault.h"
#include "l2.h"
#include "shard.h"
#include "stats.h"
#include "swswitch.h"

static void
stats_u64(json_t *o, const char *key, uint64_t v)
{
	json_object_set_new(o, key, json_integer((json_int_t)v));
}

static void
stats_hex(json_t *o, const char *key, uint64_t v, int width)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%0*" PRIx64, width, v);
	json_object_set_new(o, key, json_string(buf));
}

static void
stats_switch(json_t *root)
{
	const struct topo *t = &sw_app.topo;
	json_t *o = json_object();

	json_object_set_new(o, "version", json_string(SW_VERSION));
	json_object_set_new(o, "topo", json_string(sw_app.opts.topo_path));
	json_object_set_new(o, "profile", json_string(t->sw.profile));
	stats_u64(o, "ways", t->sw.ways);
	stats_u64(o, "slots_per_way", t->sw.slots_per_way);
	stats_u64(o, "n_ports", sw_app.n_ports);
	stats_u64(o, "n_nodes", t->n_nodes);
	stats_u64(o, "workers", sw_app.n_workers);
	stats_u64(o, "uptime_ms",
		  (rte_rdtsc() - sw_app.start_tsc) * MS_PER_S /
			  rte_get_tsc_hz());
	json_object_set_new(root, "switch", o);
}

/* "port0", "port1", ...: telemetry cannot nest an array of objects. */
static void
stats_ports(json_t *root)
{
	uint16_t p;

	for (p = 0; p < sw_app.n_ports; p++) {
		struct sw_port_stats sum = { 0 };
		struct rte_eth_stats es;
		char key[16];
		json_t *o;
		unsigned int w;

		for (w = 0; w < sw_app.n_workers; w++) {
			const struct sw_port_stats *s = &sw_app.workers[w]
								 ->port[p];

			sum.rx += s->rx;
			sum.tx += s->tx;
			sum.tx_dropped += s->tx_dropped;
			sum.dropped += s->dropped;
		}
		if (rte_eth_stats_get(sw_app.ports[p].port_id, &es) != 0)
			memset(&es, 0, sizeof(es));

		o = json_object();
		json_object_set_new(o, "name",
				    json_string(sw_app.ports[p].name));
		stats_u64(o, "port_id", sw_app.ports[p].port_id);
		stats_u64(o, "rx", sum.rx);
		stats_u64(o, "tx", sum.tx);
		stats_u64(o, "drops", sum.tx_dropped + es.imissed);
		stats_u64(o, "tx_dropped", sum.tx_dropped);
		stats_u64(o, "imissed", es.imissed);
		stats_u64(o, "rx_nombuf", es.rx_nombuf);
		stats_u64(o, "ierrors", es.ierrors);
		stats_u64(o, "oerrors", es.oerrors);
		stats_u64(o, "discarded", sum.dropped);
		stats_u64(o, "startup_discarded",
			  sw_app.ports[p].startup_discarded);
		stats_u64(o, "steer_rules", sw_app.ports[p].steer_rules);
		snprintf(key, sizeof(key), "port%u", p);
		json_object_set_new(root, key, o);
	}
}

/*
 * Pipelines shard the tag space, so their register digests combine; with
 * one worker the digest is the pipeline's own.
 */
static uint64_t
stats_digest(void)
{
	uint64_t d = 0;
	unsigned int w;

	for (w = 0; w < sw_app.n_workers; w++) {
		uint64_t x = lcf_pipeline_digest(sw_app.workers[w]->pipe);

		unsigned int r = w & 63;

		d ^= r == 0 ? x : (x << r) | (x >> (64 - r));
	}
	return d;
}

static void
stats_pipeline(json_t *root)
{
	struct lcf_counters sum;
	uint64_t resubmits = 0, loops = 0, drops = 0;
	json_t *pl = json_object(), *act = json_object(), *drop = json_object();
	unsigned int w, i;

	memset(&sum, 0, sizeof(sum));
	for (w = 0; w < sw_app.n_workers; w++) {
		const struct sw_lcore *lc = sw_app.workers[w];
		const struct lcf_counters *c = lcf_pipeline_counters(lc->pipe);

		sum.packets += c->packets;
		for (i = 0; i < LCF_A_MAX; i++)
			sum.action[i] += c->action[i];
		for (i = 0; i < LCF_DROP_MAX; i++)
			sum.drop[i] += c->drop[i];
		sum.sb_held_overwritten += c->sb_held_overwritten;
		resubmits += lc->resubmits;
		loops += lc->resubmit_loops;
	}
	for (i = 0; i < LCF_A_MAX; i++)
		stats_u64(act, lcf_action_name(i), sum.action[i]);
	for (i = LCF_DROP_NONE + 1; i < LCF_DROP_MAX; i++) {
		stats_u64(drop, lcf_drop_name(i), sum.drop[i]);
		drops += sum.drop[i];
	}

	stats_u64(pl, "passes", sum.packets);
	stats_u64(pl, "resubmits", resubmits);
	stats_u64(pl, "resubmit_loops", loops);
	stats_u64(pl, "nacks",
		  sum.action[LCF_A_NACK_LOCK_BUSY] +
			  sum.action[LCF_A_NACK_CHECK_FAIL] +
			  sum.action[LCF_A_NACK_STALE]);
	stats_u64(pl, "drops", drops);
	stats_u64(pl, "sb_held_overwritten", sum.sb_held_overwritten);
	stats_hex(pl, "digest", stats_digest(), 16);
	json_object_set_new(root, "pipeline", pl);
	json_object_set_new(root, "actions", act);
	json_object_set_new(root, "drops", drop);
}

static void
stats_registers(json_t *root)
{
	const uint32_t ways = sw_app.topo.sw.ways;
	uint64_t used = 0, total[LCF_MAX_WAYS] = { 0 };
	uint32_t occ[LCF_MAX_WAYS];
	struct lcf_footprint fp, fsum;
	json_t *arr = json_array(), *o = json_object();
	unsigned int w, i;

	memset(&fsum, 0, sizeof(fsum));
	for (w = 0; w < sw_app.n_workers; w++) {
		const struct lcf_pipeline *p = sw_app.workers[w]->pipe;

		lcf_pipeline_way_occupancy(p, occ);
		for (i = 0; i < ways; i++)
			total[i] += occ[i];
		lcf_pipeline_footprint(lcf_pipeline_config(p), &fp);
		fsum.tag += fp.tag;
		fsum.lock += fp.lock;
		fsum.gstatus += fp.gstatus;
		fsum.copyset += fp.copyset;
		fsum.scoreboard += fp.scoreboard;
		fsum.last_unlock += fp.last_unlock;
		fsum.version += fp.version;
		fsum.total += fp.total;
	}
	for (i = 0; i < ways; i++) {
		json_array_append_new(arr, json_integer((json_int_t)total[i]));
		used += total[i];
	}
	json_object_set_new(root, "occupancy", arr);

	stats_u64(o, "tag", fsum.tag);
	stats_u64(o, "lock", fsum.lock);
	stats_u64(o, "gstatus", fsum.gstatus);
	stats_u64(o, "copyset", fsum.copyset);
	stats_u64(o, "scoreboard", fsum.scoreboard);
	stats_u64(o, "last_unlock", fsum.last_unlock);
	stats_u64(o, "version", fsum.version);
	stats_u64(o, "total", fsum.total);
	json_object_set_new(root, "footprint_bytes", o);

	o = json_object_get(root, "pipeline");
	stats_u64(o, "blocks", used);
	/* Shards split each way's slots (rounded up): sum what they hold. */
	for (w = 0, used = 0; w < sw_app.n_workers; w++)
		used += (uint64_t)ways *
			lcf_pipeline_config(sw_app.workers[w]->pipe)
				->slots_per_way;
	stats_u64(o, "capacity", used);
}

/*
 * Multi-lcore dispatch: totals in "dispatch", and "workerN" objects (a
 * telemetry dict cannot hold an array of objects) with what each worker
 * received, processed and handed over, so a benchmark can see the balance.
 */
static void
stats_workers(json_t *root)
{
	struct sw_dispatch_stats sum = { 0 };
	unsigned int w;
	uint16_t p;
	json_t *o;

	for (w = 0; w < sw_app.n_workers; w++) {
		const struct sw_lcore *lc = sw_app.workers[w];
		uint64_t rx = 0;
		char key[24];

		for (p = 0; p < sw_app.n_ports; p++)
			rx += lc->port[p].rx;
		sum.sent += lc->dispatch.sent;
		sum.received += lc->dispatch.received;
		sum.ring_full += lc->dispatch.ring_full;
		if (sw_app.n_workers == 1)
			continue;
		o = json_object();
		stats_u64(o, "lcore", lc->lcore_id);
		stats_u64(o, "rx_queues", lc->n_rxq);
		stats_u64(o, "rx", rx);
		stats_u64(o, "passes",
			  lcf_pipeline_counters(lc->pipe)->packets);
		stats_u64(o, "dispatched", lc->dispatch.sent);
		stats_u64(o, "from_ring", lc->dispatch.received);
		stats_u64(o, "ring_full", lc->dispatch.ring_full);
		stats_u64(o, "loops", lc->dispatch.loops);
		stats_u64(o, "idle_loops", lc->dispatch.idle_loops);
		stats_u64(o, "idle_sleeps", lc->dispatch.idle_sleeps);
		stats_u64(o, "backpressure", lc->dispatch.backpressure);
		stats_u64(o, "backpressure_tsc", lc->dispatch.backpressure_tsc);
		snprintf(key, sizeof(key), "worker%u", w);
		json_object_set_new(root, key, o);
	}
	o = json_object();
	stats_u64(o, "workers", sw_app.n_workers);
	stats_u64(o, "tsc_hz",
		  rte_get_tsc_hz()); /* cycles/packet for benches */
	stats_u64(o, "sent", sum.sent);
	stats_u64(o, "received", sum.received);
	stats_u64(o, "ring_full", sum.ring_full);
	json_object_set_new(root, "dispatch", o);
}

static void
stats_l2_egress(json_t *root)
{
	const uint64_t now = rte_rdtsc();
	struct egress_stats e = { 0 };
	struct l2_stats l = { 0 };
	uint64_t live = 0;
	json_t *o;
	unsigned int w;

	for (w = 0; w < sw_app.n_workers; w++) {
		const struct sw_lcore *lc = sw_app.workers[w];
		const struct l2_stats *s = l2_stats(lc->l2);

		l.learned += s->learned;
		l.moved += s->moved;
		l.forwarded += s->forwarded;
		l.flooded += s->flooded;
		l.filtered += s->filtered;
		l.aged += s->aged;
		l.evicted += s->evicted;
		l.runts += s->runts;
		live += l2_live_entries(lc->l2, now);
		e.copies += lc->egress.copies;
		e.multicast += lc->egress.multicast;
		e.chained += lc->egress.chained;
		e.flat_copies += lc->egress.flat_copies;
		e.nombuf += lc->egress.nombuf;
		e.no_destination += lc->egress.no_destination;
	}
	o = json_object();
	stats_u64(o, "entries", live);
	stats_u64(o, "capacity", (uint64_t)L2_ENTRIES * sw_app.n_workers);
	stats_u64(o, "learned", l.learned);
	stats_u64(o, "moved", l.moved);
	stats_u64(o, "forwarded", l.forwarded);
	stats_u64(o, "flooded", l.flooded);
	stats_u64(o, "filtered", l.filtered);
	stats_u64(o, "aged", l.aged);
	stats_u64(o, "evicted", l.evicted);
	stats_u64(o, "runts", l.runts);
	json_object_set_new(root, "l2", o);

	o = json_object();
	stats_u64(o, "copies", e.copies);
	stats_u64(o, "multicast", e.multicast);
	stats_u64(o, "chained", e.chained);
	stats_u64(o, "flat_copies", e.flat_copies);
	stats_u64(o, "nombuf", e.nombuf);
	stats_u64(o, "no_destination", e.no_destination);
	json_object_set_new(root, "egress", o);
}

/* Injected faults, per direction and action (all 0 without --fault). */
static void
stats_faults(json_t *root)
{
	static const char *const dir[FAULT_N_DIR] = { "in", "out" };
	static const char *const act[FAULT_N_ACTION] = { "drop", "dup",
							 "delay" };
	uint64_t count[FAULT_N_DIR][FAULT_N_ACTION] = { { 0 } }, overflow = 0;
	json_t *o = json_object();
	char key[16];
	unsigned int w;

	for (w = 0; w < sw_app.n_workers; w++)
		fault_counters(sw_app.workers[w]->fault, count, &overflow);
	for (int d = 0; d < FAULT_N_DIR; d++)
		for (int a = 0; a < FAULT_N_ACTION; a++) {
			snprintf(key, sizeof(key), "%s_%s", dir[d], act[a]);
			stats_u64(o, key, count[d][a]);
		}
	stats_u64(o, "delay_queue_full", overflow);
	stats_u64(o, "rules", sw_app.opts.fault.n_rules);
	json_object_set_new(root, "faults", o);
}

json_t *
stats_json(void)
{
	json_t *root = json_object();

	if (root == NULL)
		return NULL;
	stats_switch(root);
	stats_ports(root);
	stats_pipeline(root);
	stats_registers(root);
	stats_l2_egress(root);
	stats_faults(root);
	stats_workers(root);
	json_object_set_new(root, "digest",
			    json_incref(
				    json_object_get(json_object_get(root,
								    "pipeline"),
						    "digest")));
	return root;
}

int
stats_print(FILE *f)
{
	json_t *j = stats_json();
	int ret;

	if (j == NULL)
		return -EIO;
	ret = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (ret != 0 || fputc('\n', f) == EOF || fflush(f) != 0)
		return -EIO;
	return 0;
}

int
stats_write_file(const char *path)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (f == NULL)
		return -errno;
	ret = stats_print(f);
	if (fclose(f) != 0 && ret == 0)
		ret = -errno;
	return ret;
}
