/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The /swswitch/... DPDK telemetry commands: the statistics document, the
 * register read-outs (the BF Runtime equivalent) and the control command
 * for a dead memory node (ctl.c).
 *
 * Callbacks run on DPDK's telemetry thread while the workers forward. The
 * read-outs only read: per-lcore counters are naturally aligned 64-bit
 * words (a read is never torn on the 64-bit targets we build for), and the
 * registers are seen between two packets or in the middle of one, as BF
 * Runtime reading a live Tofino's registers does. node_failed writes
 * nothing itself: it posts to the workers, which apply it between bursts.
 * The one lock here is between telemetry and teardown (it also serializes
 * the commands of several clients), never on the forwarding path.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "shard.h"
#include "stats.h"
#include "swswitch.h"

static rte_spinlock_t stats_tel_lock = RTE_SPINLOCK_INITIALIZER;
static bool stats_tel_live;

static int
stats_tel_error(struct rte_tel_data *d, const char *msg)
{
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", msg);
	return 0;
}

/* Copy a stats_json() member into a telemetry container (one level). */
static struct rte_tel_data *
stats_tel_container(json_t *v)
{
	struct rte_tel_data *c = rte_tel_data_alloc();
	const char *key;
	json_t *x;
	size_t i;

	if (c == NULL)
		return NULL;
	if (json_is_array(v)) {
		rte_tel_data_start_array(c, RTE_TEL_U64_VAL);
		json_array_foreach(v, i, x)
			rte_tel_data_add_array_u64(c,
						   (uint64_t)json_integer_value(
							   x));
		return c;
	}
	rte_tel_data_start_dict(c);
	json_object_foreach(v, key, x)
	{
		if (json_is_string(x))
			rte_tel_data_add_dict_string(c, key,
						     json_string_value(x));
		else
			rte_tel_data_add_dict_u64(c, key,
						  (uint64_t)json_integer_value(
							  x));
	}
	return c;
}

static int
stats_tel_from_json(struct rte_tel_data *d, json_t *root)
{
	const char *key;
	json_t *v;

	rte_tel_data_start_dict(d);
	json_object_foreach(root, key, v)
	{
		if (json_is_string(v)) {
			rte_tel_data_add_dict_string(d, key,
						     json_string_value(v));
		} else if (json_is_integer(v)) {
			rte_tel_data_add_dict_u64(d, key,
						  (uint64_t)json_integer_value(
							  v));
		} else {
			struct rte_tel_data *c = stats_tel_container(v);

			if (c == NULL)
				return -ENOMEM;
			rte_tel_data_add_dict_container(d, key, c, 0);
		}
	}
	return 0;
}

static int
stats_tel_stats(const char *cmd __rte_unused, const char *params __rte_unused,
		struct rte_tel_data *d)
{
	json_t *j = NULL;
	int ret;

	rte_spinlock_lock(&stats_tel_lock);
	if (stats_tel_live)
		j = stats_json();
	rte_spinlock_unlock(&stats_tel_lock);
	if (j == NULL)
		return stats_tel_error(d, "swswitch is not running");
	ret = stats_tel_from_json(d, j);
	json_decref(j);
	return ret;
}

/* A decimal or 0x-hexadecimal number, nothing else. */
static int
stats_parse_u64(const char *s, uint64_t *v)
{
	int base = 10;
	char *end;

	if (s == NULL)
		return -EINVAL;
	while (*s == ' ')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (*s == '\0' || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, base);
	while (*end == ' ')
		end++;
	return errno != 0 || *end != '\0' ? -EINVAL : 0;
}

/* The pipeline that owns `tag`: the same function as the dispatcher's. */
static const struct lcf_pipeline *
stats_pipeline_of(uint64_t tag)
{
	return sw_app.workers[sw_shard_of(tag, sw_app.n_workers)]->pipe;
}

static int
stats_tel_block(const char *cmd __rte_unused, const char *params,
		struct rte_tel_data *d)
{
	struct lcf_block_view v;
	char buf[96];
	uint64_t tag;
	int ret = -ESRCH;

	if (stats_parse_u64(params, &tag) != 0)
		return stats_tel_error(
			d, "usage: /swswitch/block,TAG (decimal or 0x hex)");

	rte_spinlock_lock(&stats_tel_lock);
	if (stats_tel_live)
		ret = lcf_pipeline_read_block(stats_pipeline_of(tag), tag, &v);
	rte_spinlock_unlock(&stats_tel_lock);
	if (ret == -ESRCH)
		return stats_tel_error(d, "swswitch is not running");
	if (ret != 0) {
		snprintf(buf, sizeof(buf),
			 "tag 0x%" PRIx64 " is not in the switch", tag);
		return stats_tel_error(d, buf);
	}

	rte_tel_data_start_dict(d);
	snprintf(buf, sizeof(buf), "0x%" PRIx64, tag);
	rte_tel_data_add_dict_string(d, "tag", buf);
	rte_tel_data_add_dict_u64(d, "worker",
				  sw_shard_of(tag, sw_app.n_workers));
	rte_tel_data_add_dict_u64(d, "way", v.way);
	rte_tel_data_add_dict_u64(d, "slot", v.slot);
	rte_tel_data_add_dict_u64(d, "lock", v.lock);
	rte_tel_data_add_dict_u64(d, "writer", !!(v.lock & LCF_LOCK_WRITER));
	rte_tel_data_add_dict_u64(d, "waiting", !!(v.lock & LCF_LOCK_WAITING));
	rte_tel_data_add_dict_u64(d, "readers", v.lock & LCF_LOCK_READERS);
	rte_tel_data_add_dict_u64(d, "gstatus", v.gstatus);
	rte_tel_data_add_dict_string(d, "gstatus_name",
				     lcf_gstatus_name(v.gstatus));
	rte_tel_data_add_dict_u64(d, "copyset", v.copyset);
	snprintf(buf, sizeof(buf), "0x%08" PRIx32, v.copyset);
	rte_tel_data_add_dict_string(d, "copyset_hex", buf);
	return 0;
}

static const char *
stats_sb_state_name(enum lcf_sb_state s)
{
	switch (s) {
	case LCF_SB_STATE_COUNT:
		return "count";
	case LCF_SB_STATE_CLAIMED:
		return "claimed";
	default:
		return "ended";
	}
}

static int
stats_tel_requester(const char *cmd __rte_unused, const char *params,
		    struct rte_tel_data *d)
{
	struct lcf_requester_view v;
	uint64_t node, thread, tag = 0;
	char copy[64], *comma, *comma2;
	unsigned int shard = 0;
	int ret = -ESRCH;

	if (params == NULL || strlen(params) >= sizeof(copy))
		goto usage;
	strcpy(copy, params);
	comma = strchr(copy, ',');
	if (comma == NULL)
		goto usage;
	*comma = '\0';
	/* Optional TAG: each shard has its own SCOREBOARD/LAST-UNLOCK, and
	 * the one that matters is the shard of the event's tag. */
	comma2 = strchr(comma + 1, ',');
	if (comma2 != NULL) {
		*comma2 = '\0';
		if (stats_parse_u64(comma2 + 1, &tag) != 0)
			goto usage;
		shard = sw_shard_of(tag, sw_app.n_workers);
	}
	if (stats_parse_u64(copy, &node) != 0 ||
	    stats_parse_u64(comma + 1, &thread) != 0 || node > UINT16_MAX ||
	    thread > UINT16_MAX)
		goto usage;

	rte_spinlock_lock(&stats_tel_lock);
	if (stats_tel_live)
		ret = lcf_pipeline_read_requester(sw_app.workers[shard]->pipe,
						  (uint16_t)node,
						  (uint16_t)thread, &v);
	rte_spinlock_unlock(&stats_tel_lock);
	if (ret == -ESRCH)
		return stats_tel_error(d, "swswitch is not running");
	if (ret != 0)
		return stats_tel_error(d, "node or thread out of range");

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "node", node);
	rte_tel_data_add_dict_u64(d, "thread", thread);
	rte_tel_data_add_dict_u64(d, "worker", shard);
	rte_tel_data_add_dict_u64(d, "score_even", v.score_even);
	rte_tel_data_add_dict_u64(d, "score_odd", v.score_odd);
	rte_tel_data_add_dict_u64(d, "sb_seq_even", v.sb_seq[0]);
	rte_tel_data_add_dict_u64(d, "sb_seq_odd", v.sb_seq[1]);
	rte_tel_data_add_dict_string(d, "sb_state_even",
				     stats_sb_state_name(v.sb_state[0]));
	rte_tel_data_add_dict_string(d, "sb_state_odd",
				     stats_sb_state_name(v.sb_state[1]));
	rte_tel_data_add_dict_u64(d, "last_unlock", v.last_unlock);
	return 0;
usage:
	return stats_tel_error(d,
			       "usage: /swswitch/requester,NODE,THREAD[,TAG]");
}

/* The control command a memory node's failure needs (ctl.h). */
static int
stats_tel_node_failed(const char *cmd __rte_unused, const char *params,
		      struct rte_tel_data *d)
{
	uint64_t node;
	int ret = -ESRCH;

	if (stats_parse_u64(params, &node) != 0 || node >= LCF_MAX_NODES)
		return stats_tel_error(d, "usage: /swswitch/node_failed,NODE");
	rte_spinlock_lock(&stats_tel_lock);
	if (stats_tel_live)
		ret = sw_ctl_node_failed((uint16_t)node, d);
	rte_spinlock_unlock(&stats_tel_lock);
	if (ret == -ESRCH)
		return stats_tel_error(d, "swswitch is not running");
	return ret;
}

static int
stats_tel_occupancy(const char *cmd __rte_unused,
		    const char *params __rte_unused, struct rte_tel_data *d)
{
	json_t *j = NULL, *pl, *occ;
	struct rte_tel_data *ways;

	rte_spinlock_lock(&stats_tel_lock);
	if (stats_tel_live)
		j = stats_json();
	rte_spinlock_unlock(&stats_tel_lock);
	if (j == NULL)
		return stats_tel_error(d, "swswitch is not running");

	pl = json_object_get(j, "pipeline");
	occ = json_object_get(j, "occupancy");
	ways = stats_tel_container(occ);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "blocks",
				  (uint64_t)json_integer_value(
					  json_object_get(pl, "blocks")));
	rte_tel_data_add_dict_u64(d, "capacity",
				  (uint64_t)json_integer_value(
					  json_object_get(pl, "capacity")));
	rte_tel_data_add_dict_u64(d, "slots_per_way",
				  sw_app.topo.sw.slots_per_way);
	if (ways != NULL)
		rte_tel_data_add_dict_container(d, "ways", ways, 0);
	json_decref(j);
	return 0;
}

int
stats_telemetry_register(void)
{
	int ret = 0;

	rte_spinlock_lock(&stats_tel_lock);
	stats_tel_live = true;
	rte_spinlock_unlock(&stats_tel_lock);

	ret |= rte_telemetry_register_cmd(
		"/swswitch/stats", stats_tel_stats,
		"swswitch statistics (the exit JSON). No parameters");
	ret |= rte_telemetry_register_cmd(
		"/swswitch/block", stats_tel_block,
		"Registers of one block. Parameter: tag (decimal or 0x hex)");
	ret |= rte_telemetry_register_cmd(
		"/swswitch/requester", stats_tel_requester,
		"SCOREBOARD and LAST-UNLOCK of a requester. Parameters: node,thread[,tag] (tag picks the shard)");
	ret |= rte_telemetry_register_cmd(
		"/swswitch/occupancy", stats_tel_occupancy,
		"Occupied slots per TAG way. No parameters");
	ret |= rte_telemetry_register_cmd(
		"/swswitch/node_failed", stats_tel_node_failed,
		"Memory node NODE failed: evict its locked and listing blocks, reset its requester rows. Parameter: node");
	return ret < 0 ? -EINVAL : 0;
}

void
stats_telemetry_stop(void)
{
	rte_spinlock_lock(&stats_tel_lock);
	stats_tel_live = false;
	rte_spinlock_unlock(&stats_tel_lock);
}
