/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The VERSION stage of the LCF pipeline (docs/PROTOCOL.md 4.10,
 * docs/VALIDATE.md "Switch-owned blocks"): a 32-bit register per slot of
 * every way, beside the slot's LOCK, in the same stage (so before the
 * pass's verdict is known), touched at most once per pass
 * (lib/p4/lcf_version.p4 is the same stage):
 *
 *   ADD_TO_SWITCH, second pass, installed:     (seq & 0xffff) << 16
 *   WRITE_MISS / WRITE_SHARED, first pass,
 *   tag hit, not stale (granted or not):       + 1, unless the low half
 *                                              is LCF_VER_COUNT_MAX
 *   VERSION_READ, tag hit:                     read (nothing changes)
 *
 * The upper half is the migration epoch; the saturating count never
 * carries into it, so values of two stays of a block differ (within a
 * stamp's lifetime, vohepoch.pml), and a saturated count is no stamp.
 * The rule that makes a version equal to a copy's stamp mean "no write
 * since" is checked in lib/model/vohsw.pml.
 */
#include "lcf_internal.h"

void
lcf_version_add(struct lcf_pipeline *p, uint32_t way, uint32_t slot,
		uint32_t seq)
{
	p->ver[way][slot] = (seq & 0xffff) << LCF_VER_EPOCH_SHIFT;
}

enum lcf_action
lcf_version_read(const struct lcf_pipeline *p, int way, uint32_t slot,
		 uint16_t lock, uint8_t gstatus, struct lcf_msg *m)
{
	m->type = LCF_T_VERSION;
	if (way < 0) {
		/* Not here: the requester asks the home. */
		m->flags = LCF_F_FAIL;
		m->aux = (uint32_t)LCF_T_VERSION_READ << 24;
		return LCF_A_VERSION_MISS;
	}
	m->flags = LCF_F_IN_SWITCH;
	m->gstatus = gstatus;
	m->copyset = p->ver[way][slot];
	m->aux = (uint32_t)LCF_T_VERSION_READ << 24 |
		 (lock & (LCF_LOCK_WRITER | LCF_LOCK_WAITING) ? LCF_VER_AUX_BUSY
							      : 0);
	return LCF_A_VERSION_HIT;
}
