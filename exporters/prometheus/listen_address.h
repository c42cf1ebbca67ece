// `rdmatop exporter --listen`: parsing the address and explaining why it cannot be bound.
// civetweb (which serves the exporter through prometheus-cpp) reports every failure to bind as
// one "null context when constructing CivetServer" exception, so the exporter first binds the
// address itself, once, and turns errno into a message that says what to do (bind(2): EADDRINUSE,
// EACCES, EADDRNOTAVAIL), then hands civetweb the address in its `listening_ports` syntax.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "collector/model/result.h"

namespace rdmatop {

struct ListenAddress {
  bool ipv6 = false;
  std::string host;      ///< numeric address; "0.0.0.0" / "::" for all addresses
  int port = 0;          ///< 0: the kernel picks a free port
  std::string civetweb;  ///< the same address in civetweb's listening_ports syntax
  /// "HOST:PORT" or "[HOST]:PORT", as messages show it.
  std::string display() const;
};

/// Accepts PORT and :PORT (all IPv4 addresses), IPv4:PORT, localhost:PORT (127.0.0.1) and
/// [IPv6]:PORT (e.g. [::]:9879, [::1]:9879). Anything else is a "bad address" error.
Result<ListenAddress> parse_listen_address(std::string_view text);

/// Whether the HTTP server can serve IPv6 (civetweb's mg_check_feature(8): built with
/// USE_IPV6; Debian 12's libcivetweb1 is not).
bool http_server_supports_ipv6();

/// A listening TCP socket on the address (SO_REUSEADDR, as civetweb's), or the reason it cannot
/// be had in words: address in use, permission (privileged port), not an address of this host.
/// An IPv6 address other than a specific one is dual-stack as net.ipv6.bindv6only says (0,
/// the default: [::] takes IPv4 connections too).
Result<int> open_listener(const ListenAddress& address, int backlog);

/// Binds (and closes) a socket on the address as the server will; nullopt when that works.
std::optional<Error> check_bindable(const ListenAddress& address);

/// The local port of a bound socket (-1 on error).
int bound_port(int fd);

}  // namespace rdmatop
