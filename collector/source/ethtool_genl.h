// The ethtool generic-netlink family ("ethtool", kernel 5.6+), used for what only it offers:
// the standard pause statistics (ETHTOOL_MSG_PAUSE_GET with ETHTOOL_FLAG_STATS, 5.12+), i.e.
// what `ethtool -I -a IF` prints. Message building/parsing is in
// collector/parse/ethtool_netlink_parse.h; this class only owns the socket.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"
#include "collector/source/netlink_socket.h"

namespace rdmatop {

/// One NETLINK_GENERIC socket in the network namespace of the constructing thread. The family
/// id is resolved on first use; a kernel without the family (ENOENT) is remembered, as it will
/// not gain one while we run. Not thread-safe.
class EthtoolGenl {
 public:
  EthtoolGenl();

  /// ETHTOOL_MSG_PAUSE_GET with statistics. Errors carry the kernel's errno and extended-ack
  /// text: EOPNOTSUPP (driver without pause support), ENODEV, ENOENT (no ethtool netlink).
  Result<PauseInfo> pause(const std::string& ifname);

 private:
  Result<std::uint16_t> family_id();
  /// Sends `request`, then receives until `parse` gives something other than ENOMSG.
  template <class T, class Parse>
  Result<T> transact(const std::vector<std::uint8_t>& request, Parse parse);

  NetlinkSocket nl_;
  std::optional<Error> unavailable_;
  std::optional<std::uint16_t> family_;
  std::uint32_t seq_ = 0;
};

}  // namespace rdmatop
