// `ethtool -S`, `ethtool -i` and `ethtool -a` dumps (--ethtool-dir,
// collector/parse/ethtool_text.h).
#include "collector/parse/ethtool_text.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rdmatop;
  const std::string_view text = fuzz::as_text(data, size);
  (void)parse_ethtool_stats_text(text);
  (void)parse_ethtool_driver_info_text(text);
  (void)parse_ethtool_pause_text(text);
  return 0;
}
