-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark/tshark dissector for the LCF header, wire format version 1
-- (docs/PROTOCOL.md, lib/wire/lcf_wire.h). Ethernet/IPv4/UDP to the LCF port
-- (default 7340, preference "lcf.udp_port"), then 32 bytes of header and `len`
-- bytes of payload.
--
--   tshark -X lua_script:lib/dissector/lcf.lua -r x.pcap -T fields -e lcf.type
--   scripts/install-dissector.sh   (copies it to ~/.local/lib/wireshark/plugins)
--
-- Frames that swswitch would drop are marked with an expert warning and the
-- field lcf.drop_reason, named like swswitch's drop counters (PROTOCOL.md 3;
-- only the checks that need no topology: the switch also checks node/port,
-- thread and home node against its topology file).

local lcf = Proto("lcf", "Lock-Check-Forward coherence protocol")

local TYPES = {
	[0x01] = "READ_MISS", [0x02] = "WRITE_MISS", [0x03] = "WRITE_SHARED",
	[0x04] = "EVICT_SHARED", [0x05] = "EVICT_MODIFIED", [0x06] = "READ_UNLOCK",
	[0x07] = "WRITE_UNLOCK", [0x08] = "ADD_TO_SWITCH",
	[0x09] = "REMOVE_FROM_SWITCH", [0x10] = "NACK", [0x11] = "UNLOCK_ACK",
	[0x12] = "MIGRATE_ACK", [0x0a] = "ABORT", [0x13] = "ABORT_ACK",
	[0x0b] = "VERSION_READ", [0x14] = "VERSION",
	[0x0c] = "QXFER", [0x0d] = "QRELEASE", [0x15] = "QXFER_ACK",
	[0x16] = "QWAIT", [0x17] = "QGRANT",
}
for t = 0x20, 0x7f do
	TYPES[t] = string.format("NODE_MSG_0x%02x", t)
end
-- SABRes (docs/PROTOCOL-NODES.md "SABRes")
TYPES[0x50] = "SABRE_REG"
TYPES[0x51] = "SABRE_READ"
TYPES[0x52] = "SABRE_DATA"
TYPES[0x53] = "SABRE_VALID"
TYPES[0x54] = "RREAD"
local GSTATUS = { [0] = "Unshared", [1] = "Shared", [2] = "Modified" }

local f = lcf.fields
f.version = ProtoField.uint8("lcf.version", "Version", base.DEC)
-- lcf.type and lcf.gstatus are the names (so `tshark -T fields -e lcf.type`
-- prints READ_MISS); the numbers are lcf.type.code and lcf.gstatus.code.
f.type = ProtoField.string("lcf.type", "Type")
f.type_code = ProtoField.uint8("lcf.type.code", "Type code", base.HEX, TYPES)
f.flags = ProtoField.uint8("lcf.flags", "Flags", base.HEX)
f.f_in_switch = ProtoField.bool("lcf.flags.in_switch", "IN_SWITCH", 8, nil, 0x01,
	"the switch owns this block's coherence")
f.f_data_provider = ProtoField.bool("lcf.flags.data_provider", "DATA_PROVIDER", 8, nil, 0x02,
	"the receiver must send the block's data")
f.f_fail = ProtoField.bool("lcf.flags.fail", "FAIL", 8, nil, 0x04, "request rejected")
f.f_reserved = ProtoField.uint8("lcf.flags.reserved", "Reserved", base.HEX, nil, 0xf8)
f.gstatus = ProtoField.string("lcf.gstatus", "Global status")
f.gstatus_code = ProtoField.uint8("lcf.gstatus.code", "Global status code", base.DEC, GSTATUS)
f.node = ProtoField.uint16("lcf.node", "Node", base.DEC)
f.thread = ProtoField.uint16("lcf.thread", "Thread", base.DEC)
f.seq = ProtoField.uint32("lcf.seq", "Sequence number", base.DEC)
f.copyset = ProtoField.uint32("lcf.copyset", "Copyset", base.HEX)
f.copyset_node = ProtoField.uint8("lcf.copyset.node", "Holder node", base.DEC)
f.copyset_count = ProtoField.uint8("lcf.copyset.count", "Holders", base.DEC)
f.tag = ProtoField.uint64("lcf.tag", "Tag", base.HEX)
f.tag_home = ProtoField.uint16("lcf.tag.home", "Home node", base.DEC)
f.dst_node = ProtoField.uint16("lcf.dst_node", "Destination node", base.DEC)
f.len = ProtoField.uint16("lcf.len", "Payload length", base.DEC)
f.aux = ProtoField.uint32("lcf.aux", "Aux", base.HEX)
f.aux_type = ProtoField.uint8("lcf.aux.orig_type", "Original type", base.HEX, TYPES)
f.aux_way = ProtoField.uint8("lcf.aux.way", "Way", base.DEC)
f.ack_home_written = ProtoField.bool("lcf.aux.home_written", "Home wrote the data", 32, nil, 0x10000)
f.ack_owner_wb = ProtoField.bool("lcf.aux.owner_wb", "Owner sent the write-back home", 32, nil, 0x20000)
f.payload = ProtoField.bytes("lcf.payload", "Payload")
f.drop_reason = ProtoField.string("lcf.drop_reason", "Switch drop reason")

local e_malformed = ProtoExpert.new("lcf.malformed", "Frame a switch drops",
	expert.group.MALFORMED, expert.severity.WARN)
local e_fail = ProtoExpert.new("lcf.failed", "Failed request (FAIL flag)",
	expert.group.RESPONSE_CODE, expert.severity.NOTE)
lcf.experts = { e_malformed, e_fail }

lcf.prefs.udp_port = Pref.uint("UDP port", 7340, "the topology's lcf_port")
lcf.prefs.block_size = Pref.uint("Block size", 4096,
	"the topology's block_size (power of two): the tag's home node is its "
	.. "bits above 48 - log2(block_size)")

local function log2(n)
	local s = 0
	while n > 1 do
		n = math.floor(n / 2)
		s = s + 1
	end
	return s
end

function lcf.dissector(tvb, pinfo, tree)
	local n = tvb:len()
	if n < 2 then
		return 0
	end
	pinfo.cols.protocol = "LCF"
	local sub = tree:add(lcf, tvb(0, math.min(n, 32)))
	local reason = nil
	if n < 32 then
		reason = "short_frame"
		sub:add_proto_expert_info(e_malformed, "short_frame: " .. n .. " of 32 header bytes")
		sub:add(f.drop_reason, reason):set_generated()
		pinfo.cols.info = "LCF short header (" .. n .. " bytes)"
		return n
	end
	local version = tvb(0, 1):uint()
	local ty = tvb(1, 1):uint()
	local flags = tvb(2, 1):uint()
	local gs = tvb(3, 1):uint()
	local node = tvb(4, 2):uint()
	local len = tvb(26, 2):uint()

	sub:add(f.version, tvb(0, 1))
	local name = TYPES[ty] or string.format("UNKNOWN_0x%02x", ty)
	sub:add(f.type, tvb(1, 1), name):append_text(string.format(" (0x%02x)", ty))
	sub:add(f.type_code, tvb(1, 1)):set_hidden()
	local ft = sub:add(f.flags, tvb(2, 1))
	ft:add(f.f_in_switch, tvb(2, 1))
	ft:add(f.f_data_provider, tvb(2, 1))
	ft:add(f.f_fail, tvb(2, 1))
	ft:add(f.f_reserved, tvb(2, 1))
	sub:add(f.gstatus, tvb(3, 1), GSTATUS[gs] or string.format("INVALID_%d", gs))
		:append_text(string.format(" (%d)", gs))
	sub:add(f.gstatus_code, tvb(3, 1)):set_hidden()
	sub:add(f.node, tvb(4, 2))
	sub:add(f.thread, tvb(6, 2))
	sub:add(f.seq, tvb(8, 4))
	local cs = tvb(12, 4):uint()
	local ct = sub:add(f.copyset, tvb(12, 4))
	local holders = {}
	for i = 0, 31 do
		if bit32.band(cs, bit32.lshift(1, i)) ~= 0 then
			holders[#holders + 1] = tostring(i)
			ct:add(f.copyset_node, tvb(12 + 3 - math.floor(i / 8), 1), i):set_generated()
		end
	end
	ct:append_text(" {" .. table.concat(holders, ",") .. "}")
	ct:add(f.copyset_count, #holders):set_generated()
	local tt = sub:add(f.tag, tvb(16, 8))
	local shift = 48 - log2(lcf.prefs.block_size)
	local tag = tvb(16, 8):uint64()
	local home = tag:rshift(shift):tonumber()
	if home <= 0xffff then
		tt:add(f.tag_home, home):set_generated()
	end
	sub:add(f.dst_node, tvb(24, 2))
	sub:add(f.len, tvb(26, 2))
	local at = sub:add(f.aux, tvb(28, 4))
	if ty >= 0x10 and ty <= 0x17 then
		at:add(f.aux_type, tvb(28, 1))
		if ty == 0x12 then
			at:add(f.aux_way, tvb(29, 1))
		end
	elseif ty == 0x21 then -- NA_ACK (PROTOCOL-NODES.md)
		at:add(f.ack_home_written, tvb(28, 4))
		at:add(f.ack_owner_wb, tvb(28, 4))
	end
	if n > 32 then
		sub:add(f.payload, tvb(32))
	end

	-- The switch's wire checks (PROTOCOL.md 3), in order, where the UDP
	-- header is known to be intact.
	if version ~= 1 then
		reason = "bad_version"
	elseif not ((ty >= 0x01 and ty <= 0x0d) or (ty >= 0x20 and ty <= 0x7f)) then
		if not (ty >= 0x10 and ty <= 0x17) then
			reason = "unknown_type"
		end
		-- 0x10-0x17 are legal from the switch; arriving at it they are spoofs
	elseif len ~= n - 32 then
		reason = "bad_payload_length"
	elseif bit32.band(flags, 0xf8) ~= 0 then
		reason = "reserved_flags_set"
	elseif gs > 2 then
		reason = "bad_gstatus"
	elseif node >= 32 then
		reason = "node_id_out_of_range"
	end
	if reason == nil and (ty >= 0x10 and ty <= 0x17) and len ~= n - 32 then
		reason = "bad_payload_length"
	end
	if reason ~= nil then
		sub:add(f.drop_reason, reason):set_generated()
		sub:add_proto_expert_info(e_malformed, reason)
	end
	if bit32.band(flags, 0x04) ~= 0 then
		sub:add_proto_expert_info(e_fail)
	end

	local fl = {}
	if bit32.band(flags, 1) ~= 0 then fl[#fl + 1] = "IN_SWITCH" end
	if bit32.band(flags, 2) ~= 0 then fl[#fl + 1] = "DATA_PROVIDER" end
	if bit32.band(flags, 4) ~= 0 then fl[#fl + 1] = "FAIL" end
	local info = string.format("%s node=%d thr=%d seq=%d tag=0x%s %s cs={%s}",
		name, node, tvb(6, 2):uint(), tvb(8, 4):uint(), tostring(tag:tohex()):gsub("^0+", ""),
		GSTATUS[gs] or ("gstatus=" .. gs), table.concat(holders, ","))
	if #fl > 0 then
		info = info .. " [" .. table.concat(fl, ",") .. "]"
	end
	if ty < 0x20 or ty > 0x7f then
		info = info .. " dst=" .. tvb(24, 2):uint()
	end
	if reason then
		info = info .. " (malformed: " .. reason .. ")"
	end
	pinfo.cols.info = info
	sub:append_text(", " .. name)
	return n
end

local registered_port = nil
local function register()
	local t = DissectorTable.get("udp.port")
	if registered_port ~= nil then
		t:remove(registered_port, lcf)
	end
	registered_port = lcf.prefs.udp_port
	t:add(registered_port, lcf)
end

function lcf.prefs_changed()
	if registered_port ~= lcf.prefs.udp_port then
		register()
	end
end

register()
