// The probe protocol's messages as a responder or prober receives them from the network
// (probes/protocol.h): hello, accept and frame header, in both padding modes.
#include "fuzz/fuzz_input.h"
#include "probes/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rdmatop::probes;
  const auto bytes = rdmatop::fuzz::as_bytes(data, size);
  for (const Padding padding : {Padding::exact, Padding::zeros_allowed}) {
    if (const auto hello = decode_hello(bytes, padding)) {
      (void)verify_hello_proof(*hello, "secret");
      (void)encode_hello(*hello, "secret");
    }
    if (const auto accept = decode_accept(bytes, padding)) {
      (void)verify_accept_proof(*accept, Nonce{}, "secret");
    }
  }
  (void)decode_frame_header(bytes, kProtocolMaxPayload);
  return 0;
}
