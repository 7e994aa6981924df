/* SPDX-License-Identifier: BSD-3-Clause
 *
 * History writer; see na_history.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "na_history.h"

int
na_history_open(struct na_history *h, const char *path, uint16_t node)
{
	memset(h, 0, sizeof(*h));
	h->node = node;
	pthread_mutex_init(&h->mu, NULL);
	if (!path)
		return 0;
	h->f = fopen(path, "w");
	if (!h->f)
		return -errno;
	/* Big buffer: lines are flushed at exit, not per operation. */
	setvbuf(h->f, NULL, _IOFBF, 1 << 20);
	return 0;
}

void
na_history_op(struct na_history *h, uint16_t thread, const char *op,
	      uint64_t addr, uint64_t value, uint64_t start_ns, uint64_t end_ns)
{
	if (!h->f)
		return;
	pthread_mutex_lock(&h->mu);
	fprintf(h->f,
		"{\"node\":%u,\"thread\":%u,\"op\":\"%s\",\"addr\":\"0x%" PRIx64
		"\",\"value\":%" PRIu64 ",\"start_ns\":%" PRIu64
		",\"end_ns\":%" PRIu64 "}\n",
		h->node, thread, op, addr, value, start_ns, end_ns);
	h->lines++;
	pthread_mutex_unlock(&h->mu);
}

void
na_history_close(struct na_history *h, uint64_t ops)
{
	if (h->f) {
		fprintf(h->f,
			"{\"node\":%u,\"final\":true,\"ops\":%" PRIu64 "}\n",
			h->node, ops);
		fclose(h->f);
		h->f = NULL;
	}
	pthread_mutex_destroy(&h->mu);
}
