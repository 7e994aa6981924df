/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The UDP transport's steering convention (docs/PROTOCOL.md 1.1): a
 * pipeline-type message leaves from UDP source port lcf_port + 1 + the
 * steering key of its tag, node-to-node messages from lcf_port; the
 * "udp-nosteer" transport and a transport that could not bind every
 * steering port send everything from lcf_port. Real kernel sockets, on the
 * loopback of a private network namespace (needs root: skipped otherwise).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "lcf_steer.h"
#include "na_transport.h"
#include "topo.h"

#define PORT 7340

static struct topo topo;

/* A private network namespace with lo up, and nodes 0 and 1 on it. */
static void
setup(void)
{
	static const char *json =
		"{ \"lcf_port\": 7340, \"block_size\": 4096,"
		"  \"switch\": { \"mac\": \"02:00:00:00:00:fe\", \"ip\": \"127.0.0.254\","
		"              \"profile\": \"tofino\" },"
		"  \"nodes\": ["
		"    { \"id\": 0, \"mac\": \"02:00:00:00:00:01\", \"ip\": \"127.0.0.1\", \"port\": 0 },"
		"    { \"id\": 1, \"mac\": \"02:00:00:00:00:02\", \"ip\": \"127.0.0.2\", \"port\": 1 } ] }";
	char err[TOPO_ERR_LEN];
	struct ifreq ifr;
	int fd;

	if (unshare(CLONE_NEWNET) != 0)
		cr_skip_test("unshare(CLONE_NEWNET): %s (needs root)",
			     strerror(errno));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	cr_assert_geq(fd, 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	cr_assert_eq(ioctl(fd, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	cr_assert_eq(ioctl(fd, SIOCSIFFLAGS, &ifr), 0);
	close(fd);
	cr_assert_eq(topo_load_string(json, &topo, err), 0, "%s", err);
}

/* A socket standing for node 1. */
static int
node1_socket(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(PORT) };
	struct timeval tv = { .tv_sec = 2 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	sa.sin_addr.s_addr = inet_addr("127.0.0.2");
	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s",
		     strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/* Send a message of `type` on `tag` from node 0 to node 1; the source port
 * node 1 saw it come from. */
static unsigned int
sport_of(struct na_transport *tp, int rx, uint8_t type, uint64_t tag)
{
	struct lcf_msg m = {
		.version = LCF_VERSION, .type = type, .seq = 1, .tag = tag
	};
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	uint8_t buf[256];

	cr_assert_eq(tp->ops->send(tp, 1, &m, NULL, 0), 0);
	cr_assert_eq(recvfrom(rx, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			      &fl),
		     LCF_HDR_LEN, "%s", strerror(errno));
	return ntohs(from.sin_port);
}

static void
open_tp(struct na_transport *tp, const char *name)
{
	char err[256];

	memset(tp, 0, sizeof(*tp));
	tp->ops = na_transport_find(name);
	cr_assert_not_null(tp->ops);
	cr_assert_eq(tp->ops->open(tp, &topo, 0, err, sizeof(err)), 0, "%s",
		     err);
}

Test(udp_steer, pipeline_types_leave_from_the_key_port, .init = setup)
{
	struct na_transport tp;
	int rx = node1_socket();
	unsigned int seen[LCF_STEER_KEYS] = { 0 };

	open_tp(&tp, "udp");
	for (uint64_t tag = 1; tag <= 512; tag++) {
		unsigned int k = lcf_steer_key(tag << 20);

		cr_assert_eq(sport_of(&tp, rx, LCF_T_READ_MISS, tag << 20),
			     PORT + 1 + k, "tag %#llx",
			     (unsigned long long)(tag << 20));
		seen[k]++;
	}
	for (unsigned int k = 0; k < LCF_STEER_KEYS; k++)
		cr_expect_gt(seen[k], 0, "key %u never used", k);
	cr_expect_eq(sport_of(&tp, rx, LCF_T_WRITE_UNLOCK, 0x1000),
		     PORT + 1 + lcf_steer_key(0x1000));
	cr_expect_eq(sport_of(&tp, rx, LCF_T_ADD_TO_SWITCH, 0x1000),
		     PORT + 1 + lcf_steer_key(0x1000));
	/* Node-to-node messages are switched at L2: no steering. */
	cr_expect_eq(sport_of(&tp, rx, LCF_T_NODE_FIRST, 0x1000), PORT);
	tp.ops->close(&tp);
	close(rx);
}

Test(udp_steer, nosteer_sends_from_lcf_port, .init = setup)
{
	struct na_transport tp;
	int rx = node1_socket();

	open_tp(&tp, "udp-nosteer");
	for (uint64_t tag = 1; tag <= 64; tag++)
		cr_assert_eq(sport_of(&tp, rx, LCF_T_WRITE_MISS, tag << 20),
			     PORT);
	tp.ops->close(&tp);
	close(rx);
}

/* One steering port taken: all or none, so a tag's frames never switch
 * between two source ports (and two NIC queues). */
Test(udp_steer, all_or_none, .init = setup)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(PORT + 1 + 17) };
	struct na_transport tp;
	int rx = node1_socket(), busy = socket(AF_INET, SOCK_DGRAM, 0);

	sa.sin_addr.s_addr = inet_addr("127.0.0.1");
	cr_assert_eq(bind(busy, (struct sockaddr *)&sa, sizeof(sa)), 0);
	open_tp(&tp, "udp");
	for (uint64_t tag = 1; tag <= 64; tag++)
		cr_assert_eq(sport_of(&tp, rx, LCF_T_READ_MISS, tag << 20),
			     PORT);
	tp.ops->close(&tp);
	close(busy);
	close(rx);
}
