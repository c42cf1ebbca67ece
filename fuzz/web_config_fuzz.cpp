// The exporter's --web-config file (exporters/prometheus/web_config.h).
#include "exporters/prometheus/web_config.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(rdmatop::fuzz::as_text(data, size));
  (void)rdmatop::parse_web_config(text, "web.yml");
  return 0;
}
