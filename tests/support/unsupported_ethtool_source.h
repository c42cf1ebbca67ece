// An EthtoolSource that supports nothing, for tests of collectors that never use ethtool
// (CollectContext needs one).
#pragma once

#include <cerrno>
#include <string>

#include "collector/source/ethtool_source.h"

namespace rdmatop::testing {

class UnsupportedEthtoolSource final : public EthtoolSource {
 public:
  Result<CounterMap> stats(const std::string& ifname) override { return fail(ifname); }
  Result<DriverInfo> driver_info(const std::string& ifname) override { return fail(ifname); }
  Result<PauseInfo> pause(const std::string& ifname) override { return fail(ifname); }
  std::string describe() const override { return "unsupported"; }

 private:
  static Error fail(const std::string& ifname) { return errno_error(EOPNOTSUPP, ifname); }
};

}  // namespace rdmatop::testing
