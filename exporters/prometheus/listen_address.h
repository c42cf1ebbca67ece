// `rdmatop exporter --listen`: parsing the address and explaining why it cannot be bound. The
// exporter binds its listening socket itself (IPv4 or IPv6) and turns errno into a message that
// says what to do (bind(2): EADDRINUSE, EACCES, EADDRNOTAVAIL); its HTTP server (http_server.h)
// then serves that socket. (civetweb, the server before #22, reported every bind failure as
// "null context when constructing CivetServer", and Debian 12's had no IPv6.)
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "collector/model/result.h"

namespace rdmatop {

struct ListenAddress {
  bool ipv6 = false;
  std::string host;  ///< numeric address; "0.0.0.0" / "::" for all addresses
  int port = 0;      ///< 0: the kernel picks a free port
  /// "HOST:PORT" or "[HOST]:PORT", as messages show it.
  std::string display() const;
};

/// Accepts PORT and :PORT (all IPv4 addresses), IPv4:PORT, localhost:PORT (127.0.0.1) and
/// [IPv6]:PORT (e.g. [::]:9879, [::1]:9879). Anything else is a "bad address" error.
Result<ListenAddress> parse_listen_address(std::string_view text);

/// A listening TCP socket on the address (SO_REUSEADDR), or the reason it cannot
/// be had in words: address in use, permission (privileged port), not an address of this host.
/// An IPv6 address other than a specific one is dual-stack as net.ipv6.bindv6only says (0,
/// the default: [::] takes IPv4 connections too).
Result<int> open_listener(const ListenAddress& address, int backlog);

/// The local port of a bound socket (-1 on error).
int bound_port(int fd);

}  // namespace rdmatop
