/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The verbs transport refuses cleanly when the machine has no RDMA device
 * (docs/VERBS.md). On a machine that has one, these tests skip: what they pin
 * down is the refusal, not the data path.
 */
#include <errno.h>
#include <string.h>

#include <criterion/criterion.h>
#include <infiniband/verbs.h>

#include "na_transport.h"
#include "test_na_topo.h"

static int
rdma_devices(void)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);

	if (l)
		ibv_free_device_list(l);
	return l ? n : 0;
}

static void
skip_if_device(void)
{
	if (rdma_devices() > 0)
		cr_skip_test(
			"an RDMA device exists: the refusal cannot be tested");
}

Test(verbs, ops_table)
{
	cr_assert_str_eq(na_transport_verbs.name, "verbs");
	cr_assert_not_null(na_transport_verbs.open);
	cr_assert_not_null(na_transport_verbs.send);
	cr_assert_not_null(na_transport_verbs.recv);
	cr_assert_not_null(na_transport_verbs.close);
}

Test(verbs, refuses_without_device)
{
	static struct topo t;
	char err[256] = "";
	struct na_transport tp;
	int rc;

	skip_if_device();
	test_na_topo4(&t);
	for (uint16_t node = 0; node < 4; node++) {
		memset(&tp, 0, sizeof(tp));
		tp.ops = &na_transport_verbs;
		err[0] = '\0';
		rc = na_transport_verbs.open(&tp, &t, node, err, sizeof(err));
		cr_assert_eq(rc, -ENODEV, "node %u: open returned %d (%s)",
			     node, rc, err);
		cr_assert_not_null(strstr(err, "verbs: no RDMA device found"),
				   "message: \"%s\"", err);
		cr_assert_not_null(strstr(err, "use --transport udp"),
				   "message: \"%s\"", err);
		cr_assert_null(tp.priv, "open() left state behind on failure");
		/* close() after a failed open is harmless */
		na_transport_verbs.close(&tp);
	}
}

Test(verbs, refuses_unknown_node)
{
	static struct topo t;
	char err[256] = "";
	struct na_transport tp;

	test_na_topo4(&t);
	memset(&tp, 0, sizeof(tp));
	cr_assert_eq(na_transport_verbs.open(&tp, &t, 7, err, sizeof(err)),
		     -EINVAL);
	cr_assert_not_null(strstr(err, "node 7"), "message: \"%s\"", err);
	cr_assert_null(tp.priv);
}
