// IEEE DCB over rtnetlink (dcbnl): building the DCB_CMD_IEEE_GET request for one netdev (what
// `dcb pfc show`, `dcb ets show`, `dcb app show` and `dcb apptrust show` send) and parsing the
// reply into DcbInfo. Pure functions over bytes; the socket lives in
// collector/source/dcbnl_source.cpp. Facts: include/uapi/linux/dcbnl.h and net/dcb/dcbnl.c
// (dcbnl_ieee_fill) in torvalds/linux; iproute2 dcb/dcb.c.
//
// A reply is every byte received for the request: the RTM_GETDCB message and the ACK. Unknown
// attributes are ignored; structs shorter than the uAPI size, truncated or malformed messages
// are EPROTO; kernel errors keep their errno (EOPNOTSUPP: the netdev has no dcbnl_ops).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/host_config.h"
#include "collector/model/result.h"

namespace rdmatop {

std::vector<std::uint8_t> build_dcb_ieee_get_request(std::string_view ifname, std::uint32_t seq);

/// Whether `reply` holds the whole answer to `seq` (an ACK or an error); malformed bytes also
/// end it.
bool dcb_reply_complete(std::span<const std::uint8_t> reply, std::uint32_t seq);

Result<DcbInfo> parse_dcb_ieee_reply(std::span<const std::uint8_t> reply, std::uint32_t seq);

/// The `dcb` tool's name of an APP selector: "ethtype", "stream-port", "dgram-port", "port",
/// "dscp", "pcp"; the number for others.
std::string dcb_selector_name(std::uint8_t selector);

}  // namespace rdmatop
