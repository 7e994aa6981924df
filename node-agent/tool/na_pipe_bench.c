/* SPDX-License-Identifier: BSD-3-Clause
 *
 * na-pipe-bench: flush time of diff write-backs, ORIG (one diff per frame)
 * against PIPE (diffs packed into frames), under a credit window of depth
 * W, between two processes over UDP (docs/PIPE.md "Benchmark"). It runs
 * the proto layer's diff and packing code (na_diff.h, na_pack.h): the
 * sender computes each page's diff against its twin, packs and sends
 * frames as the window allows; the home rebuilds the stream, applies every
 * diff to its copy of the pages and ACKs each frame. An interval ends when
 * every frame is ACKed (the home ACKs the frame that completes a diff after
 * applying it); then, untimed, the home confirms the whole stream with a
 * hash of its pages that the sender compares with its own (a diff round
 * trip is byte-identical: `mismatches` counts the intervals where not).
 *
 *   na-pipe-bench home PORT
 *   na-pipe-bench send HOST:PORT MODE(orig|pipe) DEPTH DIFFS SIZE INTERVALS
 *   na-pipe-bench send HOST:PORT quit
 *
 * The sender prints one line: mode depth diffs size intervals frames
 * flush_us_total mismatches.
 *
 * Datagram: type u8 (1 frame, 2 ack, 3 end, 4 end ack), 3 bytes 0,
 * interval u32 (sender run << 16 | interval), offset u32 (end: pages to
 * hash), length u32 (end: stream length; end ack: the home's hash of those
 * pages), host order (both ends on one machine), then the frame's bytes.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "na_diff.h"
#include "na_msg.h"
#include "na_pack.h"

#define PAGE      4096u
#define MAXPAGES  1024u
#define STREAMCAP (MAXPAGES * (PAGE + 64))
#define MTU       NA_MAX_FRAME_PAYLOAD
#define MAXW      64u

struct dgram {
	uint8_t type, pad[3];
	uint32_t interval, off, len;
	uint8_t data[MTU];
};

#define HDR (sizeof(struct dgram) - MTU)

static uint8_t pages[MAXPAGES][PAGE], twins[MAXPAGES][PAGE];
static uint8_t stream[STREAMCAP];

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000;
}

static void
init_pages(uint8_t (*p)[PAGE])
{
	for (uint32_t i = 0; i < MAXPAGES; i++)
		for (uint32_t j = 0; j < PAGE; j++)
			p[i][j] = (uint8_t)(i * 31 + j * 7);
}

static uint32_t
hash_pages(uint8_t (*p)[PAGE], uint32_t n)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < n && i < MAXPAGES; i++)
		for (uint32_t j = 0; j < PAGE; j++)
			h = (h ^ p[i][j]) * 16777619u;
	return h;
}

/* ---- home ------------------------------------------------------------------ */

static int
home(int s)
{
	static struct na_unpack u;
	uint32_t cur = 0;
	bool ended = false, started = false;
	uint32_t end_total = 0;
	struct dgram d, a;
	struct sockaddr_in from;
	socklen_t fl;

	init_pages(pages);
	for (;;) {
		ssize_t n;

		fl = sizeof(from);
		n = recvfrom(s, &d, sizeof(d), 0, (struct sockaddr *)&from,
			     &fl);
		if (n < (ssize_t)HDR)
			continue;
		if (d.type == 3 && d.len == 0xffffffffu)
			return 0; /* quit */
		if (!started || d.interval >> 16 != cur >> 16)
			init_pages(pages); /* a new sender run */
		if (!started || d.interval != cur) {
			if (started && d.interval >> 16 == cur >> 16 &&
			    d.interval < cur)
				goto reply; /* late copy of an old interval */
			cur = d.interval;
			started = true;
			ended = false;
			na_unpack_init(&u, stream, STREAMCAP, STREAMCAP);
		}
		if (d.type == 1) {
			uint64_t tag;
			const uint8_t *diff;
			uint16_t len;

			if (na_unpack_feed(&u, d.off, d.data,
					   (uint32_t)n - HDR) < 0)
				continue;
			while (na_unpack_next(&u, &tag, &diff, &len) == 1)
				if (tag >= MAXPAGES ||
				    na_diff_apply(pages[tag], PAGE, diff, len))
					fprintf(stderr, "bad diff\n");
		} else if (d.type == 3) {
			ended = true;
			end_total = d.len;
		}
	reply:
		memset(&a, 0, HDR);
		a.interval = d.interval;
		a.off = d.off;
		if (d.type == 1) {
			a.type = 2;
		} else if (d.type == 3 && ended && u.contig >= end_total &&
			   u.parsed == end_total) {
			a.type = 4;
			a.len = hash_pages(pages, d.off);
		} else {
			continue;
		}
		sendto(s, &a, HDR, 0, (struct sockaddr *)&from, fl);
	}
}

/* ---- sender ------------------------------------------------------------------ */

struct snd {
	int s;
	struct sockaddr_in to;
	uint32_t interval, depth;
	struct na_frame fr[STREAMCAP / 64];
	uint8_t acked[STREAMCAP / 64];
	uint64_t sent_at[STREAMCAP / 64];
	uint32_t nfr, base, next; /* frames planned, lowest unacked, next */
	uint32_t frames;
	uint32_t run; /* distinguishes sender runs at the home */
};

static void
send_frame(struct snd *x, uint32_t k)
{
	struct dgram d;

	memset(&d, 0, HDR);
	d.type = 1;
	d.interval = x->interval;
	d.off = x->fr[k].off;
	d.len = x->fr[k].len;
	memcpy(d.data, stream + d.off, d.len);
	sendto(x->s, &d, HDR + d.len, 0, (struct sockaddr *)&x->to,
	       sizeof(x->to));
	x->sent_at[k] = now_us();
	x->frames++;
}

/* Take ACKs (waiting up to `ms`); retransmit frames older than 20 ms. */
static int
poll_acks(struct snd *x, int ms, uint32_t *end_hash)
{
	struct pollfd p = { .fd = x->s, .events = POLLIN };
	struct dgram a;

	while (poll(&p, 1, ms) > 0) {
		ssize_t n = recv(x->s, &a, sizeof(a), 0);

		ms = 0;
		if (n < (ssize_t)HDR || a.interval != x->interval)
			continue;
		if (a.type == 4 && end_hash) {
			*end_hash = a.len;
			return 1;
		}
		for (uint32_t k = x->base; a.type == 2 && k < x->next; k++)
			if (x->fr[k].off == a.off)
				x->acked[k] = 1;
		while (x->base < x->next && x->acked[x->base])
			x->base++;
	}
	for (uint32_t k = x->base; k < x->next; k++)
		if (!x->acked[k] && now_us() - x->sent_at[k] > 20000)
			send_frame(x, k);
	return 0;
}

/* Send every planned frame the window allows; wait for room if `block`. */
static void
pump(struct snd *x, bool block)
{
	for (;;) {
		while (x->next < x->nfr && x->next < x->base + x->depth)
			send_frame(x, x->next++);
		if (!block || x->next == x->nfr)
			return;
		poll_acks(x, 1, NULL);
	}
}

/* Plan the frames of stream bytes [from, to): pieces of at most MTU. */
static void
plan(struct snd *x, uint32_t from, uint32_t to)
{
	while (from < to) {
		uint32_t l = to - from < MTU ? to - from : MTU;

		x->fr[x->nfr].off = from;
		x->fr[x->nfr].len = l;
		x->acked[x->nfr] = 0;
		x->nfr++;
		from += l;
	}
}

/* Modify page i so that its diff record is about `size` bytes. */
static void
touch(uint32_t i, uint32_t size, uint32_t interval)
{
	uint32_t body = size > NA_PACK_REC_HDR + NA_DIFF_RUN_HDR + 1
				? size - NA_PACK_REC_HDR - NA_DIFF_RUN_HDR
				: 1;
	uint32_t off;

	if (body > PAGE)
		body = PAGE;
	off = (i * 97 + interval * 13) % (PAGE - body + 1);
	for (uint32_t j = 0; j < body; j++)
		pages[i][off + j] = (uint8_t)(twins[i][off + j] + 1 + (j & 1));
}

static int
sender(struct snd *x, bool packed, uint32_t diffs, uint32_t size,
       uint32_t intervals)
{
	uint64_t total_us = 0;
	uint32_t bad = 0, mine;
	static uint8_t enc[PAGE + 64];

	init_pages(pages);
	init_pages(twins);
	for (uint32_t it = 1; it <= intervals; it++) {
		uint32_t at = 0, cut = 0, h = 0;
		uint64_t t0;

		x->interval = x->run << 16 | it;
		x->nfr = x->base = x->next = 0;
		for (uint32_t i = 0; i < diffs; i++)
			touch(i, size, it); /* the application's writes */
		t0 = now_us();
		for (uint32_t i = 0; i < diffs; i++) {
			int n = na_diff_encode(twins[i], pages[i], PAGE, enc,
					       sizeof(enc));

			if (n <= 0)
				continue;
			na_pack_put(stream, STREAMCAP, &at, i, enc,
				    (uint16_t)n);
			memcpy(twins[i], pages[i], PAGE);
			if (!packed) { /* ORIG: this diff in frames of its own */
				plan(x, cut, at);
				cut = at;
				pump(x, true);
			} else if (at - cut >= MTU) { /* PIPE: full frames */
				uint32_t upto = cut + (at - cut) / MTU * MTU;

				plan(x, cut, upto);
				cut = upto;
				pump(x, false);
			}
			poll_acks(x, 0, NULL);
		}
		plan(x, cut, at);
		pump(x, true);
		while (x->base < x->nfr)
			poll_acks(x, 1, NULL);
		/* Every frame ACKed: every diff applied (the home ACKs the
		 * frame that completes a diff after applying it). */
		total_us += now_us() - t0;
		for (;;) {
			struct dgram d;

			memset(&d, 0, HDR);
			d.type = 3;
			d.interval = x->interval;
			d.len = at;
			d.off = diffs; /* pages to hash */
			if (x->base == x->nfr)
				sendto(x->s, &d, HDR, 0,
				       (struct sockaddr *)&x->to,
				       sizeof(x->to));
			if (poll_acks(x, 5, &h))
				break;
		}
		mine = hash_pages(pages, diffs);
		bad += h != mine;
	}
	printf("%s %u %u %u %u %u %" PRIu64 " %u\n", packed ? "pipe" : "orig",
	       x->depth, diffs, size, intervals, x->frames, total_us, bad);
	return bad ? 1 : 0;
}

int
main(int argc, char **argv)
{
	static struct snd x;
	struct sockaddr_in a = { .sin_family = AF_INET };
	int s = socket(AF_INET, SOCK_DGRAM, 0), buf = 4 << 20;

	if (s < 0)
		return 2;
	setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (argc == 3 && !strcmp(argv[1], "home")) {
		a.sin_port = htons((uint16_t)atoi(argv[2]));
		if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
			perror("bind");
			return 2;
		}
		return home(s);
	}
	if ((argc == 8 || argc == 4) && !strcmp(argv[1], "send")) {
		char host[64], *colon;

		snprintf(host, sizeof(host), "%s", argv[2]);
		colon = strchr(host, ':');
		if (!colon)
			return 2;
		*colon = 0;
		x.to.sin_family = AF_INET;
		x.to.sin_port = htons((uint16_t)atoi(colon + 1));
		inet_pton(AF_INET, host, &x.to.sin_addr);
		x.s = s;
		x.run = (uint32_t)getpid() & 0xffff;
		if (argc == 4) { /* send HOST:PORT quit: stop the home */
			struct dgram d = { .type = 3, .len = 0xffffffffu };

			sendto(s, &d, HDR, 0, (struct sockaddr *)&x.to,
			       sizeof(x.to));
			return 0;
		}
		x.depth = (uint32_t)atoi(argv[4]);
		if (x.depth < 1 || x.depth > MAXW ||
		    (uint32_t)atoi(argv[5]) > MAXPAGES)
			return 2;
		return sender(&x, !strcmp(argv[3], "pipe"),
			      (uint32_t)atoi(argv[5]), (uint32_t)atoi(argv[6]),
			      (uint32_t)atoi(argv[7]));
	}
	fprintf(stderr,
		"usage: na-pipe-bench home PORT | send HOST:PORT "
		"orig|pipe DEPTH DIFFS SIZE INTERVALS | send HOST:PORT quit\n");
	return 2;
}
