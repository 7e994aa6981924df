/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Topology loader (schema: docs/TOPOLOGY.md).
 *
 * The file is checked into a private copy of struct topo and handed to the
 * caller only when every check has passed, so a bad file can never leave
 * swswitch or a node agent half-configured. Every refusal names the JSON path
 * of the field at fault, because the person reading it has to fix the file.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "topo.h"

#define TOPO_DEFAULT_BLOCK   4096
#define TOPO_MIN_BLOCK       64
#define TOPO_MAX_BLOCK       (1 << 20)
#define TOPO_MAX_THREADS     1024
#define TOPO_DEFAULT_PROFILE "tofino"

static const struct topo_profile topo_profiles[] = {
	/* Limits: the paper's switch (section 5: TAG/LOCK/G-STATUS/COPYSET
	 * over 10 stages, 375K blocks). Defaults: what lib/p4/lcf.p4 holds
	 * as compiled for Tofino-1 (docs/TOFINO-RESOURCES.md: 2 ways of 2^15
	 * slots), so collision and migration rates are not optimistic. */
	{ "tofino", 10, 375000, 2, 32768 },
	/* The same program compiled for Tofino-2 (20 stages): the ways that
	 * fit, 2^15 slots; up to 10 ways of 2^16 as the source allows. */
	{ "tofino2", 10, 10 * 65536, 8, 32768 },
	/* Beyond Tofino: what a software switch can hold, 16M blocks. */
	{ "large", 32, 64 * 1024 * 1024, 16, 1048576 },
	/* Small enough that a test can fill it and force collisions. */
	{ "tiny", 4, 4096, 2, 8 },
};

#define N_PROFILES (sizeof(topo_profiles) / sizeof(topo_profiles[0]))

const struct topo_profile *
topo_profile_find(const char *name)
{
	for (size_t i = 0; name != NULL && i < N_PROFILES; i++)
		if (strcmp(topo_profiles[i].name, name) == 0)
			return &topo_profiles[i];
	return NULL;
}

int
topo_parse_mac(const char *s, uint8_t mac[6])
{
	/* sscanf("%hhx:...") alone would take "2:0:0:0:0:1" and trailing junk;
	 * a topology typo should be refused, not guessed at. */
	if (s == NULL || strlen(s) != 17)
		return -EINVAL;
	for (int i = 0; i < 17; i++)
		if (i % 3 == 2 ? s[i] != ':' : !isxdigit((unsigned char)s[i]))
			return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)strtoul(s + 3 * i, NULL, 16);
	return 0;
}

int
topo_parse_ip(const char *s, uint32_t *ip)
{
	struct in_addr a;

	/* inet_pton, unlike inet_aton, takes only the full dotted quad:
	 * no "10.1", no hex, no octal, no trailing characters. */
	if (s == NULL || inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*ip = a.s_addr;
	return 0;
}

/*
 * Write "<pfx>.<key>: <message>" to err. Either part of the path may be "" so
 * that top-level keys and whole array entries read naturally.
 */
static int __attribute__((format(printf, 4, 5)))
fail(char *err, const char *pfx, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, TOPO_ERR_LEN, "%s%s%s: ", pfx,
			 *pfx != '\0' && *key != '\0' ? "." : "", key);

	if (n >= 0 && n < TOPO_ERR_LEN) {
		va_start(ap, fmt);
		vsnprintf(err + n, (size_t)(TOPO_ERR_LEN - n), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const char *
type_name(const json_t *v)
{
	/* Indexed by json_type; true and false are one type to a reader. */
	static const char *const names[] = {
		"object", "array",   "string",  "integer",
		"real",   "boolean", "boolean", "null",
	};

	return names[json_typeof(v)];
}

/*
 * Refuse keys we do not know, so a misspelt optional key ("slot_per_way") is
 * caught instead of silently falling back to its default. "_*" and "x-*" keys
 * are the escape hatch for comments and out-of-tree extensions.
 */
static int
check_keys(char *err, json_t *obj, const char *pfx, const char *const *known)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v)
	{
		const char *const *k = known;

		if (key[0] == '_' || strncmp(key, "x-", 2) == 0)
			continue;
		while (*k != NULL && strcmp(*k, key) != 0)
			k++;
		if (*k == NULL)
			return fail(err, pfx, key, "unknown key");
	}
	return 0;
}

/* @return 1 when present, 0 when absent and optional (*v untouched), -EINVAL. */
static int
get_int(char *err, json_t *obj, const char *pfx, const char *key, bool required,
	json_int_t *v)
{
	json_t *j = json_object_get(obj, key);

	if (j == NULL)
		return required ? fail(err, pfx, key, "missing") : 0;
	if (!json_is_integer(j))
		return fail(err, pfx, key, "expected integer, got %s",
			    type_name(j));
	*v = json_integer_value(j);
	return 1;
}

/* `profile`, when not NULL, is named because the limit depends on it. */
static int
check_range(char *err, const char *pfx, const char *key, json_int_t v,
	    json_int_t lo, json_int_t hi, const char *profile)
{
	if (v >= lo && v <= hi)
		return 0;
	if (profile != NULL)
		return fail(err, pfx, key,
			    "%lld out of range %lld..%lld for profile \"%s\"",
			    (long long)v, (long long)lo, (long long)hi,
			    profile);
	return fail(err, pfx, key, "%lld out of range %lld..%lld", (long long)v,
		    (long long)lo, (long long)hi);
}

/* Same contract as get_int(). */
static int
get_str(char *err, json_t *obj, const char *pfx, const char *key, bool required,
	const char **s)
{
	json_t *j = json_object_get(obj, key);

	if (j == NULL)
		return required ? fail(err, pfx, key, "missing") : 0;
	if (!json_is_string(j))
		return fail(err, pfx, key, "expected string, got %s",
			    type_name(j));
	*s = json_string_value(j);
	return 1;
}

static int
get_addr(char *err, json_t *obj, const char *pfx, struct lcf_addr *a)
{
	const char *s = NULL;

	if (get_str(err, obj, pfx, "mac", true, &s) < 0)
		return -EINVAL;
	if (topo_parse_mac(s, a->mac) < 0)
		return fail(err, pfx, "mac",
			    "expected \"xx:xx:xx:xx:xx:xx\", got \"%s\"", s);
	if (get_str(err, obj, pfx, "ip", true, &s) < 0)
		return -EINVAL;
	if (topo_parse_ip(s, &a->ip) < 0)
		return fail(err, pfx, "ip",
			    "expected dotted-quad IPv4 address, got \"%s\"", s);
	return 0;
}

static int
check_addr_pair(char *err, const char *pfx, const struct lcf_addr *a,
		const struct lcf_addr *b, const char *who)
{
	char ip[INET_ADDRSTRLEN];

	if (memcmp(a->mac, b->mac, sizeof(a->mac)) == 0)
		return fail(err, pfx, "mac",
			    "%02x:%02x:%02x:%02x:%02x:%02x already used by %s",
			    a->mac[0], a->mac[1], a->mac[2], a->mac[3],
			    a->mac[4], a->mac[5], who);
	if (a->ip == b->ip) {
		inet_ntop(AF_INET, &a->ip, ip, sizeof(ip));
		return fail(err, pfx, "ip", "%s already used by %s", ip, who);
	}
	return 0;
}

/*
 * The switch rewrites destinations from this table and node agents find
 * each other by address, so two hosts sharing a MAC or an IP would receive
 * each other's coherence traffic.
 */
static int
check_addr_unique(char *err, const struct topo *t, uint32_t i, const char *pfx)
{
	const struct lcf_addr *a = &t->nodes[i].addr;
	char who[16];

	if (check_addr_pair(err, pfx, a, &t->sw.addr, "the switch") < 0)
		return -EINVAL;
	for (uint32_t j = 0; j < i; j++) {
		snprintf(who, sizeof(who), "node %u", (unsigned)t->nodes[j].id);
		if (check_addr_pair(err, pfx, a, &t->nodes[j].addr, who) < 0)
			return -EINVAL;
	}
	return 0;
}

static int
parse_switch(char *err, json_t *root, struct topo *t)
{
	static const char *const keys[] = {
		"mac",           "ip",        "profile", "ways",
		"slots_per_way", "lock_mode", NULL
	};
	json_t *sw = json_object_get(root, "switch");
	const char *name = TOPO_DEFAULT_PROFILE, *mode = "retry";
	const struct topo_profile *p;
	json_int_t ways, slots;

	if (sw == NULL)
		return fail(err, "", "switch", "missing");
	if (!json_is_object(sw))
		return fail(err, "", "switch", "expected object, got %s",
			    type_name(sw));
	if (check_keys(err, sw, "switch", keys) < 0 ||
	    get_addr(err, sw, "switch", &t->sw.addr) < 0 ||
	    get_str(err, sw, "switch", "profile", false, &name) < 0 ||
	    get_str(err, sw, "switch", "lock_mode", false, &mode) < 0)
		return -EINVAL;
	if (strcmp(mode, "retry") != 0 && strcmp(mode, "queued") != 0)
		return fail(err, "switch", "lock_mode",
			    "unknown lock mode \"%s\" (known: retry, queued)",
			    mode);
	t->sw.queued = strcmp(mode, "queued") == 0;

	p = topo_profile_find(name);
	if (p == NULL) {
		char known[64] = "";

		for (size_t i = 0; i < N_PROFILES; i++)
			snprintf(known + strlen(known),
				 sizeof(known) - strlen(known), "%s%s",
				 i ? ", " : "", topo_profiles[i].name);
		return fail(err, "switch", "profile",
			    "unknown profile \"%s\" (known: %s)", name, known);
	}

	ways = p->default_ways;
	slots = p->default_slots;
	if (get_int(err, sw, "switch", "ways", false, &ways) < 0 ||
	    check_range(err, "switch", "ways", ways, 1, p->max_ways, p->name) <
		    0 ||
	    get_int(err, sw, "switch", "slots_per_way", false, &slots) < 0 ||
	    check_range(err, "switch", "slots_per_way", slots, 1,
			(json_int_t)p->max_blocks, p->name) < 0)
		return -EINVAL;
	if ((uint64_t)ways * (uint64_t)slots > p->max_blocks)
		return fail(err, "switch", "slots_per_way",
			    "ways*slots %llu exceeds %llu for profile \"%s\"",
			    (unsigned long long)ways *
				    (unsigned long long)slots,
			    (unsigned long long)p->max_blocks, p->name);

	snprintf(t->sw.profile, sizeof(t->sw.profile), "%s", p->name);
	t->sw.ways = (uint32_t)ways;
	t->sw.slots_per_way = (uint32_t)slots;
	return 0;
}

static int
parse_node(char *err, json_t *jn, uint32_t i, struct topo *t)
{
	static const char *const keys[] = { "id", "mac", "ip", "port", NULL };
	struct topo_node *n = &t->nodes[i];
	json_int_t id = 0, port = 0;
	char pfx[24];

	snprintf(pfx, sizeof(pfx), "nodes[%u]", (unsigned)i);
	if (!json_is_object(jn))
		return fail(err, pfx, "", "expected object, got %s",
			    type_name(jn));
	if (check_keys(err, jn, pfx, keys) < 0 ||
	    get_int(err, jn, pfx, "id", true, &id) < 0 ||
	    check_range(err, pfx, "id", id, 0, LCF_MAX_NODES - 1, NULL) < 0)
		return -EINVAL;
	if (t->node_index[id] >= 0)
		return fail(err, pfx, "id",
			    "duplicate node id %lld (also nodes[%d])",
			    (long long)id, t->node_index[id]);

	n->id = (uint16_t)id;
	if (get_addr(err, jn, pfx, &n->addr) < 0 ||
	    check_addr_unique(err, t, i, pfx) < 0)
		return -EINVAL;

	/* Ports are bounded like ids because port_node[] is indexed by them. */
	if (get_int(err, jn, pfx, "port", true, &port) < 0 ||
	    check_range(err, pfx, "port", port, 0, LCF_MAX_NODES - 1, NULL) < 0)
		return -EINVAL;
	if (t->port_node[port] >= 0)
		return fail(err, pfx, "port",
			    "port %lld already used by node %d",
			    (long long)port, t->port_node[port]);

	n->port = (uint16_t)port;
	t->node_index[id] = (int8_t)i;
	t->port_node[port] = (int8_t)id;
	t->node_mask |= 1u << id;
	if (port + 1 > t->n_ports)
		t->n_ports = (uint16_t)(port + 1);
	t->n_nodes = i + 1;
	return 0;
}

static int
parse_nodes(char *err, json_t *root, struct topo *t)
{
	json_t *nodes = json_object_get(root, "nodes");
	size_t n;

	if (nodes == NULL)
		return fail(err, "", "nodes", "missing");
	if (!json_is_array(nodes))
		return fail(err, "", "nodes", "expected array, got %s",
			    type_name(nodes));
	n = json_array_size(nodes);
	if (n == 0)
		return fail(err, "", "nodes",
			    "empty; at least one node is required");
	if (n > LCF_MAX_NODES)
		return fail(err, "", "nodes", "%zu entries, at most %d", n,
			    LCF_MAX_NODES);
	for (size_t i = 0; i < n; i++)
		if (parse_node(err, json_array_get(nodes, i), (uint32_t)i, t) <
		    0)
			return -EINVAL;
	return 0;
}

static int
parse_root(char *err, json_t *root, struct topo *t)
{
	static const char *const keys[] = {
		"lcf_port", "block_size", "threads_per_node", "switch", "nodes",
		"shadow",   NULL
	};
	json_int_t lcf_port = LCF_DEFAULT_PORT, bs = TOPO_DEFAULT_BLOCK;
	json_int_t threads = TOPO_DEFAULT_THREADS, shadow = -1;

	if (!json_is_object(root))
		return fail(err, "", "(top level)", "expected object, got %s",
			    type_name(root));
	memset(t->node_index, -1, sizeof(t->node_index));
	memset(t->port_node, -1, sizeof(t->port_node));

	if (check_keys(err, root, "", keys) < 0 ||
	    get_int(err, root, "", "lcf_port", false, &lcf_port) < 0 ||
	    check_range(err, "", "lcf_port", lcf_port, 1, 65535, NULL) < 0 ||
	    get_int(err, root, "", "block_size", false, &bs) < 0 ||
	    check_range(err, "", "block_size", bs, TOPO_MIN_BLOCK,
			TOPO_MAX_BLOCK, NULL) < 0)
		return -EINVAL;
	if ((bs & (bs - 1)) != 0)
		return fail(err, "", "block_size", "%lld is not a power of two",
			    (long long)bs);
	if (get_int(err, root, "", "threads_per_node", false, &threads) < 0 ||
	    check_range(err, "", "threads_per_node", threads, 1,
			TOPO_MAX_THREADS, NULL) < 0)
		return -EINVAL;

	t->lcf_port = (uint16_t)lcf_port;
	t->block_size = (uint32_t)bs;
	t->block_shift = (uint8_t)__builtin_ctz((unsigned)bs);
	t->threads_per_node = (uint16_t)threads;

	if (parse_switch(err, root, t) < 0 || parse_nodes(err, root, t) < 0 ||
	    get_int(err, root, "", "shadow", false, &shadow) < 0)
		return -EINVAL;
	if (shadow != -1 && (shadow < 0 || shadow >= LCF_MAX_NODES ||
			     t->node_index[shadow] < 0))
		return fail(err, "", "shadow", "%lld is not a node id",
			    (long long)shadow);
	t->shadow = (int)shadow;
	return 0;
}

/* Takes ownership of root (NULL when Jansson refused the text). */
static int
load_root(json_t *root, const json_error_t *jerr, const char *src,
	  struct topo *t, char *err)
{
	struct topo tmp;
	int rc;

	memset(t, 0, sizeof(*t));
	if (root == NULL) {
		snprintf(err, TOPO_ERR_LEN, "%s:%d:%d: %s", src, jerr->line,
			 jerr->column, jerr->text);
		return -EINVAL;
	}
	memset(&tmp, 0, sizeof(tmp));
	rc = parse_root(err, root, &tmp);
	json_decref(root);
	if (rc == 0) {
		*t = tmp;
		err[0] = '\0';
	}
	return rc;
}

int
topo_load(const char *path, struct topo *t, char err[TOPO_ERR_LEN])
{
	char scratch[TOPO_ERR_LEN];
	json_error_t jerr;
	json_t *root = NULL;
	FILE *f = fopen(path, "r");
	int e = errno;

	if (err == NULL)
		err = scratch;
	if (f != NULL) {
		errno = 0;
		root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
		e = errno != 0 ? errno : EIO;
		/* A read error (EISDIR, EIO) means the file cannot be read,
		 * which is not the same failure as bad JSON. */
		if (!ferror(f)) {
			fclose(f);
			return load_root(root, &jerr, path, t, err);
		}
		fclose(f);
		json_decref(root);
	}
	memset(t, 0, sizeof(*t));
	snprintf(err, TOPO_ERR_LEN, "%s: %s", path, strerror(e));
	return -ENOENT;
}

int
topo_load_string(const char *json, struct topo *t, char err[TOPO_ERR_LEN])
{
	char scratch[TOPO_ERR_LEN];
	json_error_t jerr;

	if (err == NULL)
		err = scratch;
	return load_root(json_loads(json, JSON_REJECT_DUPLICATES, &jerr), &jerr,
			 "<string>", t, err);
}
