#include "collector/source/ethtool_source.h"

#include <cerrno>

namespace rdmatop {

Result<CounterMap> EthtoolSource::stats_subset(const std::string& ifname,
                                               const std::vector<std::string>& names) {
  auto all = stats(ifname);
  if (!all) return all.error();
  CounterMap out;
  for (const std::string& name : names) {
    if (auto it = all->find(name); it != all->end()) out.emplace(it->first, it->second);
  }
  return out;
}

Result<std::uint16_t> EthtoolSource::pfc_prevention_tout(const std::string& ifname) {
  return Error{EOPNOTSUPP,
               "pfc-prevention-tout of " + ifname + " not available from " + describe()};
}

}  // namespace rdmatop
