#include "collector/source/ethtool_source.h"

#include <cerrno>

namespace rdmatop {

Result<std::uint16_t> EthtoolSource::pfc_prevention_tout(const std::string& ifname) {
  return Error{EOPNOTSUPP,
               "pfc-prevention-tout of " + ifname + " not available from " + describe()};
}

}  // namespace rdmatop
