/* SPDX-License-Identifier: BSD-3-Clause
 *
 * libFuzzer harness: frames -> classify -> pipeline (with resubmits), as
 * swswitch drives it. Input: records of [port:1][len:1][frame:len], taken in
 * bursts of FUZZ_BURST; resubmits re-enter after the rest of their burst.
 *
 * Checks after every pass:
 *  - a dropped packet changed no register (digest);
 *  - no lock has the writer bit and readers at once;
 *  - every emitted copy goes to existing nodes, the provider is one of them;
 *  - a packet is resubmitted at most once;
 * and for every frame, that lcf_frame_classify_fast() (swswitch's parser)
 * finds what lcf_frame_classify() finds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lcf_internal.h"
#include "topo.h"

static const char topo_json[] =
	"{\"switch\":{\"mac\":\"02:00:00:00:00:fe\",\"ip\":\"10.0.0.254\","
	"\"profile\":\"tiny\",\"ways\":2,\"slots_per_way\":4},"
	"\"threads_per_node\":4,"
	"\"nodes\":[{\"id\":0,\"mac\":\"02:00:00:00:00:01\",\"ip\":\"10.0.0.1\",\"port\":0},"
	"{\"id\":1,\"mac\":\"02:00:00:00:00:02\",\"ip\":\"10.0.0.2\",\"port\":1},"
	"{\"id\":2,\"mac\":\"02:00:00:00:00:03\",\"ip\":\"10.0.0.3\",\"port\":2}],"
	"\"shadow\":2}";

#define FUZZ_BURST 4

static struct topo topo;
static struct lcf_pipeline *pipe_;

#define CHECK(c)                                                       \
	do {                                                           \
		if (!(c)) {                                            \
			fprintf(stderr, "invariant failed: %s\n", #c); \
			abort();                                       \
		}                                                      \
	} while (0)

static void
check_locks(void)
{
	for (uint32_t w = 0; w < pipe_->cfg.ways; w++)
		for (uint32_t s = 0; s < pipe_->cfg.slots_per_way; s++) {
			uint16_t l = pipe_->meta[w][s].lock;

			CHECK(!((l & LCF_LOCK_WRITER) &&
				(l & LCF_LOCK_READERS)));
			/* WAITING: queued mode only, never with WRITER. */
			CHECK(!((l & LCF_LOCK_WRITER) &&
				(l & LCF_LOCK_WAITING)));
			CHECK(pipe_->cfg.queued || !(l & LCF_LOCK_WAITING));
			CHECK(pipe_->tag[w][s] != 0 || l == 0);
			/* The summary never misses a tag the ways hold. */
			CHECK(pipe_->tag[w][s] == 0 ||
			      lcf_summary_maybe(pipe_, pipe_->tag[w][s] &
							       ~LCF_TAG_VALID));
		}
}

static void
run_pass(const struct lcf_msg *m, uint16_t port, bool resub, uint64_t md,
	 struct lcf_result *res)
{
	struct lcf_ingress ing = { .port = port,
				   .resubmitted = resub,
				   .resubmit_meta = md };
	uint64_t before = lcf_pipeline_digest(pipe_);

	lcf_pipeline_process(pipe_, m, &ing, res);
	if (res->verdict == LCF_V_DROP)
		CHECK(lcf_pipeline_digest(pipe_) == before);
	if (res->verdict == LCF_V_EMIT) {
		CHECK(res->to_nodes != 0);
		CHECK((res->to_nodes & ~topo.node_mask) == 0);
		CHECK((res->mirror_nodes & ~topo.node_mask) == 0);
		CHECK(res->provider == LCF_NODE_NONE ||
		      (res->to_nodes & (1u << res->provider)));
		CHECK(res->out.version == LCF_VERSION);
	}
	check_locks();
}

/* The shortcut must agree with the ordered checks on every input: class,
 * drop reason, and for a pipeline frame its view and message. */
static void
check_classify_fast(const uint8_t *frame, uint32_t len,
		    enum lcf_frame_class cls, const struct lcf_frame_view *v,
		    const struct lcf_msg *m, enum lcf_drop why)
{
	struct lcf_frame_view v2;
	struct lcf_msg m2;
	enum lcf_drop why2;

	CHECK(lcf_frame_classify_fast(frame, len, 7340, &v2, &m2, &why2) ==
	      cls);
	if (cls == LCF_FRAME_DROP)
		CHECK(why2 == why);
	if (cls == LCF_FRAME_PIPELINE) {
		CHECK(why2 == LCF_DROP_NONE);
		CHECK(memcmp(&v2, v, sizeof(v2)) == 0);
		CHECK(memcmp(&m2, m, sizeof(m2)) == 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct held {
		struct lcf_msg m;
		uint16_t port;
		uint64_t md;
	} held[FUZZ_BURST];
	unsigned n_held = 0, in_burst = 0;

	if (pipe_ == NULL) {
		struct lcf_pipeline_config cfg;
		char err[TOPO_ERR_LEN];

		if (topo_load_string(topo_json, &topo, err) != 0) {
			fprintf(stderr, "%s\n", err);
			abort();
		}
		lcf_pipeline_config_from_topo(&topo, &cfg);
		/* FUZZ_LOCK_MODE=queued: the queued lock mode
		 * (docs/QUEUED-LOCKS.md), same inputs. */
		cfg.queued = getenv("FUZZ_LOCK_MODE") != NULL &&
			     strcmp(getenv("FUZZ_LOCK_MODE"), "queued") == 0;
		pipe_ = lcf_pipeline_create(&cfg);
	}
	lcf_pipeline_reset(pipe_);

	while (size >= 2) {
		uint16_t port = data[0] % 4;
		size_t len = data[1] < size - 2 ? data[1] : size - 2;
		uint8_t frame[256];
		struct lcf_frame_view v;
		struct lcf_result res;
		struct lcf_msg m;
		enum lcf_drop why;
		enum lcf_frame_class cls;

		memcpy(frame, data + 2, len);
		data += 2 + len;
		size -= 2 + len;
		in_burst++;
		cls = lcf_frame_classify(frame, (uint32_t)len, 7340, &v, &m,
					 &why);
		check_classify_fast(frame, (uint32_t)len, cls, &v, &m, why);
		switch (cls) {
		case LCF_FRAME_DROP:
			lcf_pipeline_count_drop(pipe_, why);
			break;
		case LCF_FRAME_OTHER:
			break;
		case LCF_FRAME_PIPELINE:
			run_pass(&m, port, false, 0, &res);
			if (res.verdict == LCF_V_RESUBMIT)
				held[n_held++] = (struct held){
					m, port, res.resubmit_meta
				};
			break;
		}
		/* resubmits re-enter after the rest of their burst */
		if (size < 2 || in_burst == FUZZ_BURST) {
			in_burst = 0;
			for (unsigned i = 0; i < n_held; i++) {
				run_pass(&held[i].m, held[i].port, true,
					 held[i].md, &res);
				CHECK(res.verdict != LCF_V_RESUBMIT);
			}
			n_held = 0;
		}
	}
	return 0;
}
