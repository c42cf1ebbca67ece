// Simulator scenario files (`rdmatop demo FILE.yaml`, simulator/scenario.h).
#include "fuzz/fuzz_input.h"
#include "simulator/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(rdmatop::fuzz::as_text(data, size));
  (void)rdmatop::sim::parse_scenario(text, "fuzz.yaml");
  return 0;
}
