/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Topology loader: valid files load with the right defaults and derived
 * fields; every class of bad file is refused with -EINVAL, a message naming
 * the field, and a zeroed struct topo.
 *
 * Why one file of this length: one Criterion suite per loader, each case a
 * few lines of JSON and its expected refusal, read as one table.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "topo.h"

/*
 * Inline documents are written with single quotes and converted here, so
 * the test JSON stays readable without a backslash before every quote.
 */
static int
load(const char *squoted, struct topo *t, char *err)
{
	char buf[2048];
	size_t n = strlen(squoted);

	cr_assert_lt(n, sizeof(buf));
	for (size_t i = 0; i <= n; i++)
		buf[i] = squoted[i] == '\'' ? '"' : squoted[i];
	return topo_load_string(buf, t, err);
}

static bool
all_zero(const struct topo *t)
{
	const unsigned char *p = (const unsigned char *)t;

	for (size_t i = 0; i < sizeof(*t); i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* Refused with -EINVAL, the message contains `want`, nothing half-loaded. */
static void
expect_bad(const char *squoted, const char *want)
{
	struct topo t;
	char err[TOPO_ERR_LEN] = "";
	int rc;

	memset(&t, 0xab, sizeof(t));
	rc = load(squoted, &t, err);
	cr_assert_eq(rc, -EINVAL, "rc %d (err \"%s\") for %s", rc, err,
		     squoted);
	cr_assert_not_null(strstr(err, want), "error \"%s\" lacks \"%s\"", err,
			   want);
	cr_assert(all_zero(&t), "struct topo not zeroed after \"%s\"", err);
}

#define SW    "'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254'}"
#define N0    "{'id':0,'mac':'02:00:00:00:00:01','ip':'10.0.0.1','port':0}"
#define N1    "{'id':1,'mac':'02:00:00:00:00:02','ip':'10.0.0.2','port':1}"
#define NODES "'nodes':[" N0 "," N1 "]"

static void
load_ok(const char *squoted, struct topo *t)
{
	char err[TOPO_ERR_LEN] = "x";

	cr_assert_eq(load(squoted, t, err), 0, "refused: %s", err);
	cr_assert_str_empty(err);
}

/* ---- valid files ---------------------------------------------------- */

Test(topo, brief_example)
{
	struct topo t;
	const uint8_t mac1[6] = { 2, 0, 0, 0, 0, 2 };

	load_ok("{'lcf_port':7340,'block_size':4096,"
		"'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		"'profile':'tofino','ways':10,'slots_per_way':37500}," NODES
		",'shadow':1}",
		&t);
	cr_assert_eq(t.lcf_port, 7340);
	cr_assert_eq(t.block_size, 4096);
	cr_assert_eq(t.block_shift, 12);
	cr_assert_str_eq(t.sw.profile, "tofino");
	cr_assert_eq(t.sw.ways, 10);
	cr_assert_eq(t.sw.slots_per_way, 37500);
	cr_assert_eq(t.sw.addr.ip, htonl(0x0a0000fe));
	cr_assert_eq(t.sw.addr.mac[5], 0xfe);
	cr_assert_eq(t.n_nodes, 2);
	cr_assert_eq(t.nodes[1].id, 1);
	cr_assert_eq(t.nodes[1].port, 1);
	cr_assert_eq(t.nodes[1].addr.ip, htonl(0x0a000002));
	cr_assert_arr_eq(t.nodes[1].addr.mac, mac1, 6);
	cr_assert_eq(t.shadow, 1);
	cr_assert_eq(t.node_mask, 0x3);
	cr_assert_eq(t.n_ports, 2);
}

Test(topo, defaults)
{
	struct topo t;

	load_ok("{" SW ",'nodes':[" N0 "]}", &t);
	cr_assert_eq(t.lcf_port, LCF_DEFAULT_PORT);
	cr_assert_eq(t.block_size, 4096);
	cr_assert_eq(t.block_shift, 12);
	cr_assert_eq(t.threads_per_node, TOPO_DEFAULT_THREADS);
	cr_assert_str_eq(t.sw.profile, "tofino");
	cr_assert_eq(t.sw.ways, 2);
	cr_assert_eq(t.sw.slots_per_way, 32768);
	cr_assert_eq(t.shadow, -1);
}

Test(topo, derived_fields_sparse_ids_and_ports)
{
	struct topo t;

	load_ok("{" SW ",'block_size':64,'threads_per_node':1024,'nodes':["
		"{'id':5,'mac':'02:00:00:00:00:05','ip':'10.0.0.5','port':3},"
		"{'id':2,'mac':'02:00:00:00:00:02','ip':'10.0.0.2','port':0}],"
		"'shadow':2}",
		&t);
	cr_assert_eq(t.block_shift, 6);
	cr_assert_eq(t.threads_per_node, 1024);
	cr_assert_eq(t.n_nodes, 2);
	cr_assert_eq(t.node_index[5], 0);
	cr_assert_eq(t.node_index[2], 1);
	cr_assert_eq(t.port_node[3], 5);
	cr_assert_eq(t.port_node[0], 2);
	for (int i = 0; i < LCF_MAX_NODES; i++) {
		if (i != 5 && i != 2)
			cr_assert_eq(t.node_index[i], -1, "node_index[%d]", i);
		if (i != 3 && i != 0)
			cr_assert_eq(t.port_node[i], -1, "port_node[%d]", i);
	}
	cr_assert_eq(t.n_ports, 4);
	cr_assert_eq(t.node_mask, (1u << 5) | (1u << 2));
	cr_assert_eq(t.shadow, 2);
	cr_assert_eq(topo_node_by_id(&t, 5)->port, 3);
	cr_assert_null(topo_node_by_id(&t, 3));
	cr_assert_null(topo_node_by_id(&t, 99));
}

Test(topo, profile_defaults)
{
	struct topo t;

	load_ok("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		"'profile':'large'}," NODES "}",
		&t);
	cr_assert_eq(t.sw.ways, 16);
	cr_assert_eq(t.sw.slots_per_way, 1048576);
	load_ok("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		"'profile':'tiny'}," NODES "}",
		&t);
	cr_assert_str_eq(t.sw.profile, "tiny");
	cr_assert_eq(t.sw.ways, 2);
	cr_assert_eq(t.sw.slots_per_way, 8);
	/* ways given alone: slots still come from the profile */
	load_ok("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		"'ways':4}," NODES "}",
		&t);
	cr_assert_eq(t.sw.ways, 4);
	cr_assert_eq(t.sw.slots_per_way, 32768);
}

Test(topo, profile_limits_are_the_papers)
{
	const struct topo_profile *p = topo_profile_find("tofino");

	cr_assert_not_null(p);
	cr_assert_eq(p->max_ways, 10);
	cr_assert_eq(p->max_blocks, 375000);
	/* the defaults are the compiled P4's (docs/TOFINO-RESOURCES.md) */
	cr_assert_eq(p->default_ways, 2);
	cr_assert_eq(p->default_slots, 32768);
	p = topo_profile_find("tofino2");
	cr_assert_not_null(p);
	cr_assert_eq(p->default_slots, 32768);
	cr_assert_leq(p->default_ways * p->default_slots, p->max_blocks);
	cr_assert_not_null(topo_profile_find("large"));
	cr_assert_not_null(topo_profile_find("tiny"));
	cr_assert_null(topo_profile_find("Tofino"));
	cr_assert_null(topo_profile_find(NULL));
}

Test(topo, comment_and_extension_keys_ignored)
{
	struct topo t;

	load_ok("{'_comment':'rack 3','x-vendor':{'a':1}," SW ",'nodes':["
		"{'_note':'head','id':0,'mac':'02:00:00:00:00:01',"
		"'ip':'10.0.0.1','port':0}],'shadow':-1}",
		&t);
	cr_assert_eq(t.n_nodes, 1);
	cr_assert_eq(t.shadow, -1);
}

Test(topo, max_ways_times_slots_accepted)
{
	struct topo t;

	load_ok("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		"'ways':10,'slots_per_way':37500}," NODES "}",
		&t);
	load_ok("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		"'profile':'tiny','ways':1,'slots_per_way':1}," NODES "}",
		&t);
	cr_assert_eq(t.sw.ways * t.sw.slots_per_way, 1);
}

Test(topo, tag_home)
{
	struct topo t;

	load_ok("{" SW "," NODES "}", &t);
	/* global address 0x0003_0000_0000_1000 -> home 3, tag = addr >> 12 */
	cr_assert_eq(topo_tag_home(&t, 0x0003000000001000ull >> 12), 3);
}

/* ---- address parsers ------------------------------------------------ */

Test(topo, parse_mac)
{
	uint8_t m[6];
	const uint8_t want[6] = { 0x02, 0xab, 0xcd, 0xef, 0x00, 0x9f };
	const char *bad[] = {
		"02:ab:cd:ef:00",
		"02:ab:cd:ef:00:9f:",
		"2:ab:cd:ef:00:9f",
		"02-ab-cd-ef-00-9f",
		"02:ab:cd:ef:00:9g",
		" 02:ab:cd:ef:00:9",
		"",
		"02:ab:cd:ef:00:9f ",
		"0x:ab:cd:ef:00:9f",
		"+2:ab:cd:ef:00:9f",
	};

	cr_assert_eq(topo_parse_mac("02:AB:cd:EF:00:9f", m), 0);
	cr_assert_arr_eq(m, want, 6);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(topo_parse_mac(bad[i], m), -EINVAL, "\"%s\"",
			     bad[i]);
	cr_assert_eq(topo_parse_mac(NULL, m), -EINVAL);
}

Test(topo, parse_ip)
{
	uint32_t ip;
	const char *bad[] = {
		"10.0.0",    "10.0.0.256", "10.0.0.1 ", " 10.0.0.1",
		"1.2.3.4.5", "0x0a.0.0.1", "10.0.0.-1", "",
		"10..0.1",   "010.0.0.1",
	};

	cr_assert_eq(topo_parse_ip("10.0.0.254", &ip), 0);
	cr_assert_eq(ip, htonl(0x0a0000fe));
	cr_assert_eq(topo_parse_ip("255.255.255.255", &ip), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(topo_parse_ip(bad[i], &ip), -EINVAL, "\"%s\"",
			     bad[i]);
	cr_assert_eq(topo_parse_ip(NULL, &ip), -EINVAL);
}

/* ---- bad files: one test per class ----------------------------------- */

Test(topo_bad, not_json)
{
	expect_bad("{'nodes':[", "<string>:");
	expect_bad("", "<string>:");
}

Test(topo_bad, duplicate_json_key)
{
	expect_bad("{" SW "," NODES ",'shadow':1,'shadow':0}", "duplicate");
}

Test(topo_bad, top_level_not_object)
{
	expect_bad("[1,2]", "(top level): expected object, got array");
}

Test(topo_bad, missing_required_field)
{
	expect_bad("{" SW "}", "nodes: missing");
	expect_bad("{" NODES "}", "switch: missing");
	expect_bad("{'switch':{'ip':'10.0.0.254'}," NODES "}",
		   "switch.mac: missing");
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe'}," NODES "}",
		   "switch.ip: missing");
	expect_bad("{" SW ",'nodes':[{'mac':'02:00:00:00:00:01',"
		   "'ip':'10.0.0.1','port':0}]}",
		   "nodes[0].id: missing");
	expect_bad("{" SW ",'nodes':[" N0 ",{'id':1,'ip':'10.0.0.2',"
		   "'port':1}]}",
		   "nodes[1].mac: missing");
	expect_bad("{" SW ",'nodes':[{'id':0,'mac':'02:00:00:00:00:01',"
		   "'port':0}]}",
		   "nodes[0].ip: missing");
	expect_bad("{" SW ",'nodes':[{'id':0,'mac':'02:00:00:00:00:01',"
		   "'ip':'10.0.0.1'}]}",
		   "nodes[0].port: missing");
}

Test(topo_bad, mistyped_field)
{
	expect_bad("{'lcf_port':'7340'," SW "," NODES "}",
		   "lcf_port: expected integer, got string");
	expect_bad("{'block_size':4096.0," SW "," NODES "}",
		   "block_size: expected integer, got real");
	expect_bad("{'threads_per_node':true," SW "," NODES "}",
		   "threads_per_node: expected integer, got boolean");
	expect_bad("{" SW "," NODES ",'shadow':null}",
		   "shadow: expected integer, got null");
	expect_bad("{'switch':[]," NODES "}",
		   "switch: expected object, got array");
	expect_bad("{'switch':{'mac':2,'ip':'10.0.0.254'}," NODES "}",
		   "switch.mac: expected string, got integer");
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		   "'profile':1}," NODES "}",
		   "switch.profile: expected string, got integer");
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		   "'ways':'10'}," NODES "}",
		   "switch.ways: expected integer, got string");
	expect_bad("{" SW ",'nodes':{}}", "nodes: expected array, got object");
	expect_bad("{" SW ",'nodes':[" N0 ",7]}",
		   "nodes[1]: expected object, got integer");
	expect_bad("{" SW ",'nodes':[{'id':'0','mac':'02:00:00:00:00:01',"
		   "'ip':'10.0.0.1','port':0}]}",
		   "nodes[0].id: expected integer, got string");
	expect_bad("{" SW ",'nodes':[{'id':0,'mac':'02:00:00:00:00:01',"
		   "'ip':167772161,'port':0}]}",
		   "nodes[0].ip: expected string, got integer");
}

Test(topo_bad, unknown_key)
{
	expect_bad("{'node':[]," SW "," NODES "}", "node: unknown key");
	expect_bad("{'lcf-port':7340," SW "," NODES "}",
		   "lcf-port: unknown key");
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		   "'slot_per_way':8}," NODES "}",
		   "switch.slot_per_way: unknown key");
	expect_bad("{" SW ",'nodes':[{'id':0,'mac':'02:00:00:00:00:01',"
		   "'ip':'10.0.0.1','port':0,'prot':1}]}",
		   "nodes[0].prot: unknown key");
}

Test(topo_bad, empty_nodes)
{
	expect_bad("{" SW ",'nodes':[]}", "nodes: empty");
}

Test(topo_bad, duplicate_node_id)
{
	expect_bad("{" SW ",'nodes':[" N0 "," N1 ",{'id':1,"
		   "'mac':'02:00:00:00:00:03','ip':'10.0.0.3','port':2}]}",
		   "nodes[2].id: duplicate node id 1 (also nodes[1])");
}

Test(topo_bad, node_id_out_of_range)
{
	expect_bad("{" SW ",'nodes':[{'id':32,'mac':'02:00:00:00:00:01',"
		   "'ip':'10.0.0.1','port':0}]}",
		   "nodes[0].id: 32 out of range 0..31");
	expect_bad("{" SW ",'nodes':[{'id':-1,'mac':'02:00:00:00:00:01',"
		   "'ip':'10.0.0.1','port':0}]}",
		   "nodes[0].id: -1 out of range 0..31");
}

Test(topo_bad, bad_mac)
{
	expect_bad(
		"{" SW ",'nodes':[" N0 ",{'id':1,'mac':'02:zz',"
		"'ip':'10.0.0.2','port':1}]}",
		"nodes[1].mac: expected \"xx:xx:xx:xx:xx:xx\", got \"02:zz\"");
	expect_bad(
		"{'switch':{'mac':'02:00:00:00:00:fe:00','ip':'10.0.0.254'}," NODES
		"}",
		"switch.mac: expected");
}

Test(topo_bad, bad_ip)
{
	expect_bad(
		"{" SW ",'nodes':[{'id':0,'mac':'02:00:00:00:00:01',"
		"'ip':'10.0.0.300','port':0}]}",
		"nodes[0].ip: expected dotted-quad IPv4 address, got \"10.0.0.300\"");
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0'}," NODES
		   "}",
		   "switch.ip: expected");
}

Test(topo_bad, duplicate_mac)
{
	expect_bad("{" SW ",'nodes':[" N0 ",{'id':1,'mac':'02:00:00:00:00:01',"
		   "'ip':'10.0.0.2','port':1}]}",
		   "nodes[1].mac: 02:00:00:00:00:01 already used by node 0");
	expect_bad(
		"{" SW ",'nodes':[{'id':0,'mac':'02:00:00:00:00:FE',"
		"'ip':'10.0.0.1','port':0}]}",
		"nodes[0].mac: 02:00:00:00:00:fe already used by the switch");
}

Test(topo_bad, duplicate_ip)
{
	expect_bad("{" SW ",'nodes':[" N0 ",{'id':1,'mac':'02:00:00:00:00:02',"
		   "'ip':'10.0.0.1','port':1}]}",
		   "nodes[1].ip: 10.0.0.1 already used by node 0");
	expect_bad("{" SW ",'nodes':[{'id':0,'mac':'02:00:00:00:00:01',"
		   "'ip':'10.0.0.254','port':0}]}",
		   "nodes[0].ip: 10.0.0.254 already used by the switch");
}

Test(topo_bad, two_nodes_on_one_port)
{
	expect_bad("{" SW ",'nodes':[" N0 ",{'id':1,'mac':'02:00:00:00:00:02',"
		   "'ip':'10.0.0.2','port':0}]}",
		   "nodes[1].port: port 0 already used by node 0");
}

Test(topo_bad, port_out_of_range)
{
	expect_bad("{" SW ",'nodes':[{'id':0,'mac':'02:00:00:00:00:01',"
		   "'ip':'10.0.0.1','port':32}]}",
		   "nodes[0].port: 32 out of range 0..31");
	expect_bad("{" SW ",'nodes':[{'id':0,'mac':'02:00:00:00:00:01',"
		   "'ip':'10.0.0.1','port':-1}]}",
		   "nodes[0].port: -1 out of range 0..31");
}

Test(topo_bad, shadow_not_a_node)
{
	expect_bad("{" SW "," NODES ",'shadow':5}",
		   "shadow: 5 is not a node id");
	expect_bad("{" SW "," NODES ",'shadow':-2}",
		   "shadow: -2 is not a node id");
	expect_bad("{" SW "," NODES ",'shadow':40}",
		   "shadow: 40 is not a node id");
}

Test(topo_bad, ways_out_of_range)
{
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		   "'ways':11}," NODES "}",
		   "switch.ways: 11 out of range 1..10 for profile \"tofino\"");
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		   "'ways':0}," NODES "}",
		   "switch.ways: 0 out of range 1..10 for profile \"tofino\"");
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		   "'profile':'tiny','ways':5}," NODES "}",
		   "switch.ways: 5 out of range 1..4 for profile \"tiny\"");
}

Test(topo_bad, slots_out_of_range)
{
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		   "'ways':10,'slots_per_way':40000}," NODES "}",
		   "switch.slots_per_way: ways*slots 400000 exceeds 375000 "
		   "for profile \"tofino\"");
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		   "'slots_per_way':0}," NODES "}",
		   "switch.slots_per_way: 0 out of range 1..375000");
	expect_bad(
		"{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		"'profile':'tiny','ways':1,'slots_per_way':4097}," NODES "}",
		"switch.slots_per_way: 4097 out of range 1..4096 for profile \"tiny\"");
}

Test(topo_bad, unknown_profile)
{
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		   "'profile':'tofino3'}," NODES "}",
		   "switch.profile: unknown profile \"tofino3\"");
}

Test(topo_bad, block_size)
{
	expect_bad("{'block_size':4000," SW "," NODES "}",
		   "block_size: 4000 is not a power of two");
	expect_bad("{'block_size':32," SW "," NODES "}",
		   "block_size: 32 out of range 64..1048576");
	expect_bad("{'block_size':2097152," SW "," NODES "}",
		   "block_size: 2097152 out of range 64..1048576");
}

Test(topo_bad, lcf_port_out_of_range)
{
	expect_bad("{'lcf_port':0," SW "," NODES "}",
		   "lcf_port: 0 out of range 1..65535");
	expect_bad("{'lcf_port':65536," SW "," NODES "}",
		   "lcf_port: 65536 out of range 1..65535");
}

Test(topo_bad, threads_per_node_out_of_range)
{
	expect_bad("{'threads_per_node':0," SW "," NODES "}",
		   "threads_per_node: 0 out of range 1..1024");
	expect_bad("{'threads_per_node':1025," SW "," NODES "}",
		   "threads_per_node: 1025 out of range 1..1024");
}

Test(topo_bad, too_many_nodes)
{
	char doc[8192], err[TOPO_ERR_LEN];
	size_t n = (size_t)snprintf(doc, sizeof(doc), "{%s,'nodes':[", SW);
	struct topo t;

	for (int i = 0; i < LCF_MAX_NODES + 1; i++)
		n += (size_t)snprintf(doc + n, sizeof(doc) - n,
				      "%s{'id':%d,'mac':'02:00:00:00:01:%02x',"
				      "'ip':'10.0.1.%d','port':%d}",
				      i ? "," : "", i, i, i, i);
	snprintf(doc + n, sizeof(doc) - n, "]}");
	/* load() copies into 2 KiB; go through the loader directly */
	for (char *p = doc; *p; p++)
		if (*p == '\'')
			*p = '"';
	cr_assert_eq(topo_load_string(doc, &t, err), -EINVAL);
	cr_assert_not_null(strstr(err, "nodes: 33 entries, at most 32"), "%s",
			   err);
	cr_assert(all_zero(&t));
}

/* ---- files ---------------------------------------------------------- */

/* Tests run from the build tree; SWSWITCH_SRC points back at the sources. */
static void
load_sample(const char *name, struct topo *t)
{
	const char *src = getenv("SWSWITCH_SRC");
	char path[1024], err[TOPO_ERR_LEN];

	snprintf(path, sizeof(path), "%s/topo/%s", src ? src : ".", name);
	cr_assert_eq(topo_load(path, t, err), 0, "%s", err);
}

Test(topo_files, demo4)
{
	struct topo t;

	load_sample("demo4.json", &t);
	cr_assert_eq(t.n_nodes, 4);
	cr_assert_eq(t.node_mask, 0xf);
	cr_assert_eq(t.n_ports, 4);
	cr_assert_eq(t.shadow, 3);
	cr_assert_eq(t.lcf_port, 7340);
	cr_assert_eq(t.block_size, 4096);
	cr_assert_str_eq(t.sw.profile, "tofino");
	cr_assert_eq(t.sw.addr.ip, htonl(0x0a0000fe));
	for (uint32_t i = 0; i < 4; i++) {
		cr_assert_eq(t.nodes[i].id, i);
		cr_assert_eq(t.nodes[i].port, i);
		cr_assert_eq(t.nodes[i].addr.mac[5], i + 1);
		cr_assert_eq(t.nodes[i].addr.ip, htonl(0x0a000001 + i));
	}
}

Test(topo_files, pcap2)
{
	struct topo t;

	load_sample("pcap2.json", &t);
	cr_assert_eq(t.n_nodes, 2);
	cr_assert_eq(t.shadow, 1);
	cr_assert_str_eq(t.sw.profile, "tiny");
	cr_assert_eq(t.sw.ways, 2);
	cr_assert_eq(t.sw.slots_per_way, 8);
}

Test(topo_files, pcap3)
{
	struct topo t;

	load_sample("pcap3.json", &t);
	cr_assert_eq(t.n_nodes, 3);
	cr_assert_eq(t.n_ports, 3);
	cr_assert_eq(t.shadow, 2);
	cr_assert_str_eq(t.sw.profile, "tiny");
	cr_assert_eq(t.sw.ways, 2);
	cr_assert_eq(t.sw.slots_per_way, 8);
}

Test(topo_files, tiny1x1)
{
	struct topo t;

	load_sample("tiny1x1.json", &t);
	cr_assert_eq(t.n_nodes, 3);
	cr_assert_eq(t.shadow, 2);
	cr_assert_str_eq(t.sw.profile, "tiny");
	cr_assert_eq(t.sw.ways, 1);
	cr_assert_eq(t.sw.slots_per_way, 1);
}

Test(topo_files, missing_file_is_enoent)
{
	struct topo t;
	char err[TOPO_ERR_LEN];

	memset(&t, 0xab, sizeof(t));
	cr_assert_eq(topo_load("/nonexistent/topo.json", &t, err), -ENOENT);
	cr_assert_not_null(strstr(err, "/nonexistent/topo.json: "), "%s", err);
	cr_assert_not_null(strstr(err, strerror(ENOENT)), "%s", err);
	cr_assert(all_zero(&t));
}

Test(topo_files, directory_is_enoent)
{
	struct topo t;
	char err[TOPO_ERR_LEN];

	cr_assert_eq(topo_load("/", &t, err), -ENOENT, "%s", err);
	cr_assert(all_zero(&t));
}

Test(topo_files, bad_json_file_names_path_and_line)
{
	char path[] = "/tmp/test_topo_XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct topo t;
	char err[TOPO_ERR_LEN];
	int rc;

	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	fputs("{\n  \"nodes\": [\n  }\n", f);
	fclose(f);
	rc = topo_load(path, &t, err);
	unlink(path);
	cr_assert_eq(rc, -EINVAL);
	cr_assert_not_null(strstr(err, path), "%s", err);
	cr_assert_not_null(strstr(err, ":3:"), "%s", err);
}

Test(topo, lock_mode)
{
	struct topo t;

	load_ok("{" SW "," NODES "}", &t);
	cr_assert_not(t.sw.queued, "retry is the default");
	load_ok("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		"'lock_mode':'retry'}," NODES "}",
		&t);
	cr_assert_not(t.sw.queued);
	load_ok("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		"'lock_mode':'queued'}," NODES "}",
		&t);
	cr_assert(t.sw.queued);
}

Test(topo_bad, lock_mode)
{
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		   "'lock_mode':'fifo'}," NODES "}",
		   "switch.lock_mode: unknown lock mode \"fifo\" (known: "
		   "retry, queued)");
	expect_bad("{'switch':{'mac':'02:00:00:00:00:fe','ip':'10.0.0.254',"
		   "'lock_mode':1}," NODES "}",
		   "switch.lock_mode: expected string, got integer");
}
