// The exporter's HTTP server: one thread, epoll(7), non-blocking sockets. It replaces
// prometheus-cpp's Exposer (civetweb, one worker thread per connection) because a thread per
// connection cannot hold under idle and slow clients: two idle connections took both of its
// workers for civetweb's 30 s request timeout, and every byte restarted that timeout (#22).
// Here a connection costs a socket and a buffer, never a thread:
//   * a request (line, header fields and body) must be complete request_timeout after the
//     accept or after its first byte, however slowly it trickles;
//   * between keep-alive requests a connection may idle for idle_timeout;
//   * a response must be taken within write_timeout;
//   * header section and body are capped (RequestLimits); a bigger request is refused;
//   * at max_connections, the connection that has waited longest for a request is closed to
//     make room, so N idle or slow sockets cannot lock out a scraper.
// Handlers answer in the loop when they can (pages, cached metrics) or later from any thread
// (a bcrypt check): the connection then waits, the loop does not.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collector/model/result.h"
#include "exporters/http/http_request.h"

namespace rdmatop::http {

struct ServerLimits {
  std::size_t max_connections = 1024;
  std::chrono::milliseconds request_timeout{5000};
  std::chrono::milliseconds idle_timeout{60000};
  std::chrono::milliseconds write_timeout{30000};
  RequestLimits request;
};

/// A client's IPv6 address, IPv4 mapped (::ffff:a.b.c.d): the key of per-client limits.
using ClientAddress = std::array<std::uint8_t, 16>;

/// A body as the parts it is sent in, in order: shared, so one rendered page serves many
/// connections and a response can add a few bytes of its own without copying the page.
using BodyParts = std::vector<std::shared_ptr<const std::string>>;

/// The bytes of all `parts`.
std::size_t body_size(const BodyParts& parts);

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  BodyParts body;
  std::vector<std::pair<std::string, std::string>> headers;  ///< extra fields
};

/// Text responses: `body` becomes the page.
Response text_response(int status, std::string body);

/// Delivers the response of one request; call it exactly once, from any thread.
using Reply = std::function<void(Response)>;
using Handler = std::function<void(const Request&, const ClientAddress&, Reply)>;

struct ServerStats {
  std::uint64_t accepted = 0;      ///< connections accepted
  std::uint64_t requests = 0;      ///< requests answered (errors included)
  std::uint64_t timed_out = 0;     ///< connections closed at a deadline
  std::uint64_t evicted = 0;       ///< closed at the cap to make room for a new one
  std::uint64_t refused = 0;       ///< new connections closed at the cap (nothing to evict)
  std::uint64_t bad_requests = 0;  ///< requests refused by the parser (4xx/5xx)
  std::uint64_t open = 0;          ///< connections open now
};

class HttpServer {
 public:
  /// Serves on `listen_fd` (a listening socket; the server owns it from now on) in a thread of
  /// its own until destroyed.
  static Result<std::unique_ptr<HttpServer>> start(int listen_fd, ServerLimits limits,
                                                   Handler handler);
  ~HttpServer();  ///< stops the loop, closes every connection
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  ServerStats stats() const;
  /// The limits in force (max_connections may be lowered to fit RLIMIT_NOFILE).
  const ServerLimits& limits() const;

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// "HTTP/1.1 200 OK\r\n..." for `response` with a `body_size`-byte body (its Content-Length;
/// HEAD sends the same head and no body). `close` adds "Connection: close".
std::string response_head(const Response& response, std::size_t body_size, bool close);

}  // namespace rdmatop::http
