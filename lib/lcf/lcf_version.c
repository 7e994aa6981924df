/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The VERSION stage of the LCF pipeline (docs/PROTOCOL.md 4.10,
 * docs/VALIDATE.md "Switch-owned blocks"): a paired register per slot of
 * every way, {epoch, version}, beside the slot's LOCK. The stage runs after
 * SCOREBOARD, when the pass's verdict is known, and touches the hit way's
 * entry at most once per pass (lib/p4/lcf_version.p4 is the same stage):
 *
 *   ADD_TO_SWITCH, second pass, installed:  {seq & 0xffff, 0}
 *   WRITE_MISS / WRITE_SHARED, forwarded:   version + 1
 *   VERSION_READ, tag hit:                  read (nothing changes)
 *
 * The rule that makes a version equal to a copy's stamp mean "no write
 * since" is checked in lib/model/vohsw.pml.
 */
#include "lcf_internal.h"

void
lcf_version_add(struct lcf_pipeline *p, uint32_t way, uint32_t slot,
		uint32_t seq)
{
	p->ver[way][slot] = (struct lcf_ver){ .epoch = seq & 0xffff };
}

void
lcf_version_bump(struct lcf_pipeline *p, uint32_t way, uint32_t slot)
{
	p->ver[way][slot].version++;
}

enum lcf_action
lcf_version_read(const struct lcf_pipeline *p, int way, uint32_t slot,
		 uint16_t lock, uint8_t gstatus, struct lcf_msg *m)
{
	const struct lcf_ver *v;

	m->type = LCF_T_VERSION;
	if (way < 0) {
		/* Not here: the requester asks the home. */
		m->flags = LCF_F_FAIL;
		m->aux = (uint32_t)LCF_T_VERSION_READ << 24;
		return LCF_A_VERSION_MISS;
	}
	v = &p->ver[way][slot];
	m->flags = LCF_F_IN_SWITCH;
	m->gstatus = gstatus;
	m->copyset = v->version;
	m->aux = (uint32_t)LCF_T_VERSION_READ << 24 |
		 (lock & LCF_LOCK_WRITER ? LCF_VER_AUX_BUSY : 0) |
		 (v->epoch & 0xffff);
	return LCF_A_VERSION_HIT;
}
