#include "collector/model/snapshot.h"

#include <algorithm>

namespace rdmatop {

const char* to_string(SourceState state) {
  switch (state) {
    case SourceState::ok:
      return "ok";
    case SourceState::no_data:
      return "no_data";
    case SourceState::error:
      return "error";
  }
  return "unknown";
}

const NetdevSample* find_netdev(const Snapshot& snapshot, const std::string& name) {
  if (name.empty()) return nullptr;
  const auto it = std::find_if(snapshot.netdevs.begin(), snapshot.netdevs.end(),
                               [&](const NetdevSample& n) { return n.name == name; });
  return it == snapshot.netdevs.end() ? nullptr : &*it;
}

}  // namespace rdmatop
