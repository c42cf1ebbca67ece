// sysfs attribute values (collector/parse/sysfs_parse.h) and GID classification: every parser
// of a sysfs file's text, on the same bytes.
#include "collector/parse/gid.h"
#include "collector/parse/sysfs_parse.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rdmatop;
  const std::string_view text = fuzz::as_text(data, size);
  (void)escape_for_message(text);
  (void)trim_attribute(text);
  (void)parse_text_attribute(text);
  (void)parse_counter_value(text);
  (void)parse_signed_value(text);
  (void)parse_index_name(text);
  (void)parse_state(text);
  (void)parse_phys_state(text);
  (void)parse_node_type(text);
  (void)parse_rate(text);
  if (const auto gid = parse_gid(text)) (void)classify_gid(*gid);
  (void)classify_gid(text);
  (void)is_pci_address(text);
  return 0;
}
