// Rule files as `rules check`, `report`, `exporter` and `demo` load them (rules/rule_file.h):
// YAML structure, PromQL, durations and templates, then the export back to YAML.
#include "fuzz/fuzz_input.h"
#include "rules/rule_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rdmatop;
  const std::string text(fuzz::as_text(data, size));
  const RuleFileLoad load = parse_rule_file(text, "fuzz.yaml");
  if (load.errors.empty()) (void)parse_rule_file(to_yaml(load.groups), "export.yaml");
  return 0;
}
