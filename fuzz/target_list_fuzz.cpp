// Prober target lists (--targets FILE: plain text or YAML, probes/targets.h) and the address
// forms the responder's --allow and admission accept.
#include "fuzz/fuzz_input.h"
#include "probes/admission.h"
#include "probes/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rdmatop::probes;
  const std::string_view text = rdmatop::fuzz::as_text(data, size);
  (void)parse_target_text(text, "targets.txt", kDefaultProbePort);
  (void)parse_target_yaml(text, "targets.yaml", kDefaultProbePort);
  (void)parse_endpoint(text, kDefaultProbePort);
  (void)parse_transport_list(text);
  (void)parse_cidr(text);
  (void)parse_peer_address(text);
  return 0;
}
