// `ethtool -S`, `ethtool -i` and `ethtool -a` dumps (--ethtool-dir,
// collector/parse/ethtool_text.h). The `-S` dump is parsed again through a CounterLayout that
// remembers the names of a previous dump (the input's first half, then the whole input): the
// map, or the error, must be the one a fresh parse gives, whatever the layout held (a line
// holding the layout's next name skips the name's checks: take_expected_line).
#include <cstdlib>

#include "collector/parse/ethtool_text.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rdmatop;
  const std::string_view text = fuzz::as_text(data, size);
  const auto fresh = parse_ethtool_stats_text(text);
  CounterLayout layout;
  (void)parse_ethtool_stats_text(text.substr(0, text.size() / 2), &layout);
  for (int pass = 0; pass < 2; ++pass) {
    const auto through_layout = parse_ethtool_stats_text(text, &layout);
    if (fresh.ok() != through_layout.ok()) std::abort();
    if (fresh.ok() && !(*fresh == *through_layout)) std::abort();
    if (!fresh.ok() && fresh.error().message != through_layout.error().message) std::abort();
  }
  (void)parse_ethtool_driver_info_text(text);
  (void)parse_ethtool_pause_text(text);
  return 0;
}
