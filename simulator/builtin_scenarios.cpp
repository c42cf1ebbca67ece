#include "simulator/builtin_scenarios.h"

namespace rdmatop::sim {

const BuiltinScenarios& builtin_scenarios() {
  static const BuiltinScenarios all = [] {
    BuiltinScenarios out;
    for (const EmbeddedFile& file : builtin_scenario_files()) {
      auto parsed = parse_scenario(file.content, file.name);
      if (parsed) {
        out.scenarios.push_back(std::move(*parsed));
      } else {
        out.errors.push_back(parsed.error().message);
      }
    }
    return out;
  }();
  return all;
}

const Scenario* find_builtin_scenario(const std::string& name) {
  for (const Scenario& s : builtin_scenarios().scenarios) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace rdmatop::sim
