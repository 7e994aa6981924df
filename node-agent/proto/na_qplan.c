/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The next queue holder's event; see na_qplan.h.
 */
#include <errno.h>

#include "na_msg.h"
#include "na_proto.h"
#include "na_qplan.h"

void
na_qplan_make(uint8_t type, uint16_t self, uint8_t gs, uint32_t cs,
	      uint32_t rnd, struct na_qplan *p)
{
	struct na_fwd f;

	*p = (struct na_qplan){ .type = type, .provider = LCF_NODE_NONE };
	if (!na_check(type, self, gs, cs)) {
		if (type != LCF_T_WRITE_SHARED ||
		    !na_check(LCF_T_WRITE_MISS, self, gs, cs)) {
			p->noop = true;
			return;
		}
		p->type = LCF_T_WRITE_MISS;
	}
	na_forward_rule(p->type, gs, cs, self, rnd, &f);
	switch (f.kind) {
	case NA_FWD_REPLY_DATA:
		p->home = true;
		break;
	case NA_FWD_TO_CACHES:
		p->to = f.to & ~na_bit(self);
		p->provider = f.provider;
		break;
	case NA_FWD_REPLY_ACK:
		break;
	}
}

void
na_qplan_inv_as_copy(const struct lcf_msg *m, struct lcf_msg *copy)
{
	*copy = *m;
	copy->type = na_aux_orig_type(m->aux);
	copy->flags = LCF_F_IN_SWITCH | (m->flags & LCF_F_DATA_PROVIDER);
	copy->aux = 0;
	copy->len = 0;
}

int
na_qplan_home_as_switch(const struct lcf_msg *m, const void *payload,
			struct lcf_msg *copy)
{
	const uint8_t *p = payload;

	*copy = *m;
	copy->flags |= LCF_F_IN_SWITCH;
	if (m->type == NA_MSG_QXFER_ACK) {
		copy->type = LCF_T_QXFER_ACK;
		return 0;
	}
	/* NA_QFWD: the request type is the payload's first byte. */
	if (m->type != NA_MSG_QFWD || m->len < 1 || !p ||
	    p[0] < LCF_T_READ_MISS || p[0] > LCF_T_EVICT_MODIFIED ||
	    (m->aux & 0xffff) == 0)
		return -EINVAL;
	copy->type = p[0];
	copy->len = 0;
	return 0;
}
