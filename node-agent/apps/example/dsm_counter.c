/* SPDX-License-Identifier: BSD-3-Clause
 *
 * dsm_counter: the smallest complete libdsm application, built against the
 * installed library as a user would (`pkg-config --cflags --libs libdsm`,
 * docs/NODE-AGENT.md "Write your own application"). Every node adds 1 to a
 * shared 64-bit counter --count times under the counter block's write lock,
 * waits until all nodes' additions are in (the counter reaches nodes x
 * count), and prints it; it stays a second more, since it may be the
 * counter's home. It uses dsm.h only.
 *
 *   dsm_counter --topo FILE --node N [--nodes K] [--count C] [--home H]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt_long, usleep */
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dsm.h>

static void
usage(FILE *f, const char *prg)
{
	fprintf(f,
		"Usage: %s --topo FILE --node N [options]\n"
		"  --topo FILE   topology JSON shared with swswitch (required)\n"
		"  --node N      this process's node id (required)\n"
		"  --nodes K     how many nodes run this program (default 2)\n"
		"  --count C     additions by this node (default 1000)\n"
		"  --home H      node whose static region holds the counter "
		"(default 0)\n"
		"  --help        this text\n",
		prg);
}

static int
parse_u(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno != 0 || *s == '\0' || *end != '\0' || *out > max ? -1 : 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "node", required_argument, NULL, 'n' },
		{ "nodes", required_argument, NULL, 'k' },
		{ "count", required_argument, NULL, 'c' },
		{ "home", required_argument, NULL, 'h' },
		{ "help", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	struct dsm_config cfg = { .threads = 1 };
	unsigned long node = ~0ul, nodes = 2, count = 1000, home = 0;
	struct dsm_thread *t;
	struct dsm *d;
	uint64_t v = 0;
	dsm_addr_t a;
	char err[256];
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		unsigned long *dst = c == 'n'   ? &node
				     : c == 'k' ? &nodes
				     : c == 'c' ? &count
				     : c == 'h' ? &home
						: NULL;

		if (c == 't') {
			cfg.topo_path = optarg;
		} else if (c == 'H') {
			usage(stdout, argv[0]);
			return 0;
		} else if (dst == NULL || parse_u(optarg, 0xffff, dst) != 0) {
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (cfg.topo_path == NULL || node == ~0ul) {
		fprintf(stderr, "%s: --topo and --node are required\n",
			argv[0]);
		return 2;
	}
	cfg.node = (uint16_t)node;
	rc = dsm_open(&cfg, &d, err, sizeof(err));
	if (rc != 0) {
		fprintf(stderr, "%s: dsm_open: %s\n", argv[0], err);
		return 1;
	}
	t = dsm_thread(d, 0);
	a = dsm_static_addr((uint16_t)home, 0);
	for (unsigned long i = 0; i < count && rc == 0; i++) {
		rc = dsm_wlock(t, a);
		if (rc == 0)
			rc = dsm_read(t, a, &v, sizeof(v));
		v++;
		if (rc == 0)
			rc = dsm_write(t, a, &v, sizeof(v));
		if (rc == 0)
			rc = dsm_unlock(t, a);
	}
	/* The others may still be adding: wait for their additions. */
	while (rc == 0 && v < (uint64_t)nodes * count) {
		usleep(10000);
		rc = dsm_read(t, a, &v, sizeof(v));
	}
	dsm_sync(t);
	/* This node may home the counter: stay while the others read it. */
	if (rc == 0)
		sleep(1);
	if (rc != 0)
		fprintf(stderr, "%s: %s\n", argv[0], strerror(-rc));
	else
		printf("node %lu: counter %" PRIu64 "\n", node, v);
	dsm_close(d);
	return rc != 0;
}
