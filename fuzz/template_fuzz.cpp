// Alert label and annotation templates (rules/template.h): checked at load, expanded per alert.
#include "fuzz/fuzz_input.h"
#include "rules/template.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rdmatop;
  const std::string text(fuzz::as_text(data, size));
  if (check_template(text)) {
    (void)expand_template(text, {{"device", "mlx5_0"}, {"port", "1"}}, 1234.5);
  }
  return 0;
}
