// The built-in scenarios, compiled in from simulator/scenarios/*.yaml by the rule
// pack's embedding script (rules/embed_builtin.cmake; see simulator/CMakeLists.txt).
#pragma once

#include <string>
#include <vector>

#include "collector/model/result.h"
#include "rules/builtin_pack.h"
#include "simulator/scenario.h"

namespace rdmatop::sim {

/// Every built-in scenario parsed, in play order (healthy first; see `order:` in the files'
/// names: NN-name.yaml). Parse errors are build bugs; tests assert there are none.
struct BuiltinScenarios {
  std::vector<Scenario> scenarios;
  std::vector<std::string> errors;
};
const BuiltinScenarios& builtin_scenarios();

/// The built-in scenario called `name`, or null.
const Scenario* find_builtin_scenario(const std::string& name);

}  // namespace rdmatop::sim

namespace rdmatop {
/// The embedded scenario files, sorted by file name (generated code).
const std::vector<EmbeddedFile>& builtin_scenario_files();
}  // namespace rdmatop
