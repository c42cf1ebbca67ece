// Generic-netlink messages for the ethtool family: building the two requests rdmatop sends
// (resolve the "ethtool" family id; ETHTOOL_MSG_PAUSE_GET with statistics) and parsing the
// kernel's replies. Pure functions over bytes, so they are tested on messages built with libmnl;
// the socket work lives in collector/source/ethtool_ioctl_source.cpp.
//
// Interface facts: Documentation/networking/ethtool-netlink.rst and
// include/uapi/linux/ethtool_netlink.h (torvalds/linux); parsing style after iproute2/ethtool
// (`netlink/pause.c`): ignore unknown attributes, validate the types of known ones, skip PAD.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"

namespace rdmatop {

/// CTRL_CMD_GETFAMILY for `family` (e.g. "ethtool"), addressed to the genl controller.
std::vector<std::uint8_t> build_genl_family_request(std::string_view family, std::uint32_t seq);

/// The family id from the controller's reply in one received datagram. Errors: the kernel's
/// errno from an NLMSG_ERROR (ENOENT = the family is not registered, i.e. no ethtool netlink),
/// EPROTO for malformed/truncated messages, ENOMSG when no message with `seq` is in `datagram`.
Result<std::uint16_t> parse_genl_family_reply(std::span<const std::uint8_t> datagram,
                                              std::uint32_t seq);

/// ETHTOOL_MSG_PAUSE_GET for `ifname` with ETHTOOL_FLAG_STATS in the request header, i.e. what
/// `ethtool -I -a IF` sends.
std::vector<std::uint8_t> build_pause_get_request(std::uint16_t family_id, std::string_view ifname,
                                                  std::uint32_t seq);

/// The ETHTOOL_MSG_PAUSE_GET_REPLY in one received datagram: autoneg/rx/tx and, when the driver
/// fills them, tx_frames/rx_frames (absent when the driver leaves them unset). Errors as for
/// parse_genl_family_reply (EOPNOTSUPP = the driver has no pause support); the message of a
/// kernel error includes the extended-ack text when the kernel sent one.
Result<PauseInfo> parse_pause_reply(std::span<const std::uint8_t> datagram, std::uint16_t family_id,
                                    std::uint32_t seq);

}  // namespace rdmatop
