// The exporter's HTTP/1.1 request parser (RFC 9112): request line and header fields of one
// request at a time, incrementally, with hard caps, so a client can never make it hold more than
// kMaxHeaderBytes plus the body cap. Only what the exporter serves is understood: GET and HEAD,
// Content-Length bodies (read and discarded), keep-alive. Pure: no I/O; unit-tested and fuzzed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rdmatop::http {

/// Limits of one request.
struct RequestLimits {
  std::size_t max_header_bytes = 8192;  ///< request line and header fields together
  std::size_t max_body_bytes = 16384;   ///< a GET has no use for a body; more is refused
};

struct Request {
  std::string method;           ///< as sent ("GET", "HEAD", ...)
  std::string path;             ///< the target's path, query and fragment removed ("/metrics")
  int minor_version = 1;        ///< HTTP/1.minor_version
  std::string authorization;    ///< the Authorization field value, empty when absent
  std::string accept_encoding;  ///< the Accept-Encoding field value
  bool keep_alive = true;       ///< HTTP/1.1 without "Connection: close"
  std::size_t content_length = 0;
};

/// The outcome of feeding bytes: more are needed, a request is complete (`consumed` bytes of the
/// input belong to it, body included), or the request is refused with `status`.
struct ParseResult {
  enum class State { need_more, complete, error } state = State::need_more;
  std::size_t consumed = 0;
  int status = 0;      ///< for error: 400, 413, 431, 501 or 505
  std::string reason;  ///< for error: a short text for the response body
};

/// Parses the request at the start of `input` (bytes received so far on the connection).
/// `request` is filled when the header section is complete.
ParseResult parse_request(std::string_view input, const RequestLimits& limits, Request& request);

/// "Basic <base64(user:password)>" -> user and password; nullopt for any other form.
struct BasicCredentials {
  std::string user;
  std::string password;
};
std::optional<BasicCredentials> parse_basic_authorization(std::string_view value);

/// Whether an Accept-Encoding value admits gzip (RFC 9110 12.5.3: listed without q=0, or *).
bool accepts_gzip(std::string_view accept_encoding);

}  // namespace rdmatop::http
