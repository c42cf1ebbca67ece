// IEEE DCB (rtnetlink dcbnl) as a source: DCB_CMD_IEEE_GET for one netdev. Building and
// parsing is collector/parse/dcbnl_parse.h; the live implementation only moves bytes.
#pragma once

#include <memory>
#include <string>

#include "collector/model/host_config.h"
#include "collector/model/result.h"

namespace rdmatop {

class DcbSource {
 public:
  virtual ~DcbSource() = default;
  /// PFC, ETS, APP table and trust order of `ifname`. Errors carry the kernel's errno:
  /// EOPNOTSUPP (no dcbnl support: veth, virtio, rxe's netdevs), ENODEV/EINVAL (no such netdev).
  virtual Result<DcbInfo> ieee(const std::string& ifname) = 0;
};

/// The live kernel: one NETLINK_ROUTE socket in the caller's network namespace.
std::unique_ptr<DcbSource> make_live_dcb_source();

}  // namespace rdmatop
