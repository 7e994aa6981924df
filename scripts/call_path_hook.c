/* SPDX-License-Identifier: BSD-3-Clause
 *
 * scripts/call-path.sh's recorder, LD_PRELOADed into a program built with
 * -finstrument-functions. It records the calls made under each call of
 * one root function (CALLPATH_ROOT, its offset in the executable) as
 * "E <fn> <call site>" / "X <fn>" lines, one block per root call, into
 * CALLPATH_OUT. A call belongs to the root call whose stack it runs on:
 * its frame is within CALLPATH_WINDOW bytes below the root's, which keeps
 * apart threads and na-sim's coroutines (each has its own stack).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOI __attribute__((no_instrument_function))
#define MAX_ROOTS 64
#define MAX_EV 200000
#define SLACK 512 /* the root's own hook frames may differ */

struct root {
	uintptr_t frame;
	unsigned n;
	uintptr_t ev[MAX_EV][2];
};

static struct root *roots[MAX_ROOTS];
static uintptr_t base, root_off, window = 256 * 1024;
static long left = -1; /* root calls still to record */
static FILE *out;
static int ready;

static NOI void
setup(void *fn)
{
	Dl_info di;
	const char *s;

	ready = -1;
	if (!(s = getenv("CALLPATH_ROOT")) || !dladdr(fn, &di))
		return;
	base = (uintptr_t)di.dli_fbase;
	root_off = strtoull(s, NULL, 16);
	left = (s = getenv("CALLPATH_MAX")) ? atol(s) : 200;
	if ((s = getenv("CALLPATH_WINDOW")))
		window = strtoull(s, NULL, 0);
	out = fopen(getenv("CALLPATH_OUT") ? getenv("CALLPATH_OUT")
					   : "callpath.txt",
		    "w");
	ready = out ? 1 : -1;
}

static NOI struct root *
owner(uintptr_t frame)
{
	for (int i = 0; i < MAX_ROOTS; i++)
		if (roots[i] && frame <= roots[i]->frame + SLACK &&
		    roots[i]->frame + SLACK - frame < window)
			return roots[i];
	return NULL;
}

NOI void
__cyg_profile_func_enter(void *fn, void *site)
{
	uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
	uintptr_t off;
	struct root *r;

	if (!ready)
		setup(fn);
	if (ready < 0)
		return;
	off = (uintptr_t)fn - base;
	r = owner(frame);
	if (!r && off == root_off && left > 0) {
		for (int i = 0; i < MAX_ROOTS; i++)
			if (!roots[i]) {
				r = roots[i] = calloc(1, sizeof(*r));
				if (r)
					r->frame = frame;
				left--;
				break;
			}
	}
	if (r && r->n < MAX_EV) {
		r->ev[r->n][0] = off;
		r->ev[r->n++][1] = (uintptr_t)site - base;
	}
}

NOI void
__cyg_profile_func_exit(void *fn, void *site)
{
	uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
	uintptr_t off = (uintptr_t)fn - base;
	struct root *r;

	(void)site;
	if (ready <= 0 || !(r = owner(frame)))
		return;
	if (r->n < MAX_EV) {
		r->ev[r->n][0] = off | (1ull << 63);
		r->ev[r->n++][1] = 0;
	}
	if (off != root_off || frame + SLACK < r->frame)
		return;
	fprintf(out, "R %u\n", r->n);
	for (unsigned i = 0; i < r->n; i++)
		if (r->ev[i][0] >> 63)
			fprintf(out, "X %lx\n",
				(unsigned long)(r->ev[i][0] & ~(1ull << 63)));
		else
			fprintf(out, "E %lx %lx\n", (unsigned long)r->ev[i][0],
				(unsigned long)r->ev[i][1]);
	fflush(out);
	for (int i = 0; i < MAX_ROOTS; i++)
		if (roots[i] == r)
			roots[i] = NULL;
	free(r);
}
