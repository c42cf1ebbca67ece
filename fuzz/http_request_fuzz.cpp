// The exporter's HTTP request parser (exporters/http/http_request.h): every byte a client on the
// network sends reaches it. The input is also fed in two pieces, as a slow client would send it,
// and the Authorization and Accept-Encoding values it extracts go to their own parsers.
#include "exporters/http/http_request.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = rdmatop::fuzz::as_text(data, size);
  const rdmatop::http::RequestLimits limits;
  rdmatop::http::Request request;
  const auto whole = rdmatop::http::parse_request(input, limits, request);
  if (whole.consumed > input.size()) __builtin_trap();
  (void)rdmatop::http::parse_basic_authorization(request.authorization);
  (void)rdmatop::http::accepts_gzip(request.accept_encoding);
  rdmatop::http::Request first;
  (void)rdmatop::http::parse_request(input.substr(0, input.size() / 2), limits, first);
  return 0;
}
