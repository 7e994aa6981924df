/* SPDX-License-Identifier: BSD-3-Clause
 *
 * lib/lcf behind a pipe, for the differential check (lcf_diff.py): reads
 * fixed-size commands on stdin (one pipeline pass, a control command, or a
 * register read-out), writes one fixed-size answer per command on stdout.
 * Little-endian records; the layout is the one lcf_diff.py packs (README.md).
 *
 *   lcf_diff_driver TOPOLOGY.json
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcf_pipeline.h"
#include "topo.h"

enum {
	OP_PASS = 0,
	OP_NODE_FAILED = 1,
	OP_RESET = 2,
	OP_READ = 3
};

#define CMD_BYTES 48
#define ANS_BYTES 108

/* Field access into a record (x86 and every target here: little-endian). */
#define PUT(buf, off, val)                              \
	do {                                            \
		__typeof__(val) v_ = (val);             \
		memcpy((buf) + (off), &v_, sizeof(v_)); \
	} while (0)

static uint16_t
get16(const uint8_t *b)
{
	uint16_t v;
	memcpy(&v, b, 2);
	return v;
}
static uint32_t
get32(const uint8_t *b)
{
	uint32_t v;
	memcpy(&v, b, 4);
	return v;
}
static uint64_t
get64(const uint8_t *b)
{
	uint64_t v;
	memcpy(&v, b, 8);
	return v;
}

static void
msg_get(const uint8_t *b, struct lcf_msg *m)
{
	m->version = b[0];
	m->type = b[1];
	m->flags = b[2];
	m->gstatus = b[3];
	m->node = get16(b + 4);
	m->thread = get16(b + 6);
	m->seq = get32(b + 8);
	m->copyset = get32(b + 12);
	m->tag = get64(b + 16);
	m->dst_node = get16(b + 24);
	m->len = get16(b + 26);
	m->aux = get32(b + 28);
}

static void
msg_put(uint8_t *b, const struct lcf_msg *m)
{
	b[0] = m->version;
	b[1] = m->type;
	b[2] = m->flags;
	b[3] = m->gstatus;
	PUT(b, 4, m->node);
	PUT(b, 6, m->thread);
	PUT(b, 8, m->seq);
	PUT(b, 12, m->copyset);
	PUT(b, 16, m->tag);
	PUT(b, 24, m->dst_node);
	PUT(b, 26, m->len);
	PUT(b, 28, m->aux);
}

/* The registers of the message's block and requester, after the command. */
static void
regs_put(uint8_t *a, const struct lcf_pipeline *p, const struct lcf_msg *m)
{
	struct lcf_block_view bv;
	struct lcf_requester_view rv;
	int rc = lcf_pipeline_read_block(p, m->tag, &bv);

	PUT(a, 56, (int32_t)rc);
	if (rc == 0) {
		PUT(a, 60, bv.way);
		PUT(a, 64, bv.slot);
		PUT(a, 68, bv.lock);
		a[70] = bv.gstatus;
		PUT(a, 72, bv.copyset);
		PUT(a, 100, bv.qholder);
		PUT(a, 104, bv.fwd_cnt);
	}
	rc = lcf_pipeline_read_requester(p, m->node, m->thread, &rv);
	PUT(a, 76, (int32_t)rc);
	if (rc == 0) {
		PUT(a, 80, rv.sb_seq[0]);
		PUT(a, 84, rv.sb_seq[1]);
		a[88] = (uint8_t)rv.sb_state[0];
		a[89] = (uint8_t)rv.sb_state[1];
		PUT(a, 90, rv.sb_count[0]);
		PUT(a, 92, rv.sb_count[1]);
		a[94] = rv.lu_open;
		PUT(a, 96, rv.last_unlock);
	}
}

int
main(int argc, char **argv)
{
	struct lcf_pipeline_config cfg;
	struct lcf_pipeline *p;
	struct topo t;
	char err[TOPO_ERR_LEN];
	uint8_t cmd[CMD_BYTES], ans[ANS_BYTES];

	if (argc != 2) {
		fprintf(stderr, "usage: lcf_diff_driver TOPOLOGY.json\n");
		return 2;
	}
	if (topo_load(argv[1], &t, err) != 0) {
		fprintf(stderr, "lcf_diff_driver: %s\n", err);
		return 2;
	}
	lcf_pipeline_config_from_topo(&t, &cfg);
	p = lcf_pipeline_create(&cfg);
	if (p == NULL) {
		fprintf(stderr, "lcf_diff_driver: %s\n", strerror(errno));
		return 2;
	}
	while (fread(cmd, CMD_BYTES, 1, stdin) == 1) {
		struct lcf_ingress ing = {
			.port = get16(cmd + 2),
			.resubmitted = cmd[1] != 0,
			.resubmit_meta = get64(cmd + 8),
		};
		struct lcf_result res;
		struct lcf_msg m;

		memset(ans, 0, sizeof(ans));
		msg_get(cmd + 16, &m);
		switch (cmd[0]) {
		case OP_PASS:
			lcf_pipeline_process(p, &m, &ing, &res);
			ans[0] = (uint8_t)res.verdict;
			ans[1] = (uint8_t)res.action;
			ans[2] = (uint8_t)res.drop_reason;
			ans[3] = res.from_switch;
			PUT(ans, 4, res.provider);
			PUT(ans, 8, res.to_nodes);
			PUT(ans, 12, res.mirror_nodes);
			PUT(ans, 16, res.resubmit_meta);
			msg_put(ans + 24, &res.out);
			break;
		case OP_NODE_FAILED: {
			struct lcf_node_failed_report rep;
			int rc = lcf_pipeline_node_failed(p, m.node, &rep, NULL,
							  0);

			PUT(ans, 0, (int32_t)rc);
			PUT(ans, 4, rep.locked);
			PUT(ans, 8, rep.copyset);
			PUT(ans, 12, rep.modified);
			PUT(ans, 16, rep.requesters);
			break;
		}
		case OP_RESET:
			lcf_pipeline_reset(p);
			break;
		default: /* OP_READ: registers only */
			break;
		}
		regs_put(ans, p, &m);
		if (fwrite(ans, ANS_BYTES, 1, stdout) != 1)
			return 1;
		if (cmd[0] == OP_READ || cmd[0] == OP_NODE_FAILED)
			fflush(stdout);
	}
	fflush(stdout);
	lcf_pipeline_free(p);
	return 0;
}
