#include "exporters/prometheus/listen_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

namespace rdmatop {

namespace {

Error bad_address(std::string_view text, const std::string& why) {
  return Error{EINVAL, "--listen: bad address '" + std::string(text) + "': " + why +
                           " (expected PORT, :PORT, IPv4:PORT or [IPv6]:PORT, e.g. 9879, "
                           "127.0.0.1:9879, [::]:9879)"};
}

std::optional<int> parse_port(std::string_view text) {
  int port = -1;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, port);
  if (text.empty() || ec != std::errc() || ptr != end || port < 0 || port > 65535) {
    return std::nullopt;
  }
  return port;
}

/// The first port an unprivileged process may bind (ip-sysctl.rst,
/// net.ipv4.ip_unprivileged_port_start; 1024 unless changed).
int unprivileged_port_start() {
  std::ifstream in("/proc/sys/net/ipv4/ip_unprivileged_port_start");
  int start = 1024;
  if (!(in >> start)) start = 1024;
  return start;
}

}  // namespace

std::string ListenAddress::display() const {
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<ListenAddress> parse_listen_address(std::string_view text) {
  ListenAddress address;
  std::string_view port_text;
  if (text.empty()) return bad_address(text, "empty");
  if (text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad_address(text, "an IPv6 address is written [ADDRESS]:PORT");
    }
    address.ipv6 = true;
    address.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
    in6_addr parsed{};
    if (inet_pton(AF_INET6, address.host.c_str(), &parsed) != 1) {
      return bad_address(text, "'" + address.host + "' is not a numeric IPv6 address");
    }
  } else if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    if (text.find(':') != colon) {
      return bad_address(text, "an IPv6 address needs brackets: [ADDRESS]:PORT");
    }
    address.host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
    if (address.host.empty()) address.host = "0.0.0.0";  // ":9879", as Go servers write it
    if (address.host == "localhost") address.host = "127.0.0.1";
    in_addr parsed{};
    if (inet_pton(AF_INET, address.host.c_str(), &parsed) != 1) {
      return bad_address(text, "'" + address.host +
                                   "' is not a numeric IPv4 address (host names are not "
                                   "resolved; localhost is 127.0.0.1)");
    }
  } else {
    address.host = "0.0.0.0";
    port_text = text;
  }
  const std::optional<int> port = parse_port(port_text);
  if (!port) {
    return bad_address(text, "'" + std::string(port_text) + "' is not a port (0 to 65535)");
  }
  address.port = *port;
  return address;
}

Result<int> open_listener(const ListenAddress& address, int backlog) {
  const std::string where = address.display();
  sockaddr_storage storage{};
  socklen_t length = 0;
  if (address.ipv6) {
    auto* sa = reinterpret_cast<sockaddr_in6*>(&storage);
    sa->sin6_family = AF_INET6;
    sa->sin6_port = htons(static_cast<std::uint16_t>(address.port));
    inet_pton(AF_INET6, address.host.c_str(), &sa->sin6_addr);
    length = sizeof(sockaddr_in6);
  } else {
    auto* sa = reinterpret_cast<sockaddr_in*>(&storage);
    sa->sin_family = AF_INET;
    sa->sin_port = htons(static_cast<std::uint16_t>(address.port));
    inet_pton(AF_INET, address.host.c_str(), &sa->sin_addr);
    length = sizeof(sockaddr_in);
  }
  const int fd = socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_error(errno, "cannot listen on " + where + ": socket");
  // SO_REUSEADDR, so a port with connections in TIME_WAIT is not reported as in use (socket(7)).
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  int rc = bind(fd, reinterpret_cast<const sockaddr*>(&storage), length);
  if (rc == 0) rc = listen(fd, backlog);
  const int error = rc == 0 ? 0 : errno;
  if (error == 0) return fd;
  close(fd);
  const std::string port = std::to_string(address.port);
  switch (error) {
    case EADDRINUSE:
      return Error{error, "cannot listen on " + where +
                              ": address already in use: another process listens on port " + port +
                              " (`ss -ltnp 'sport = :" + port +
                              "'` shows which); stop it or choose another --listen port"};
    case EACCES:
      return Error{error,
                   "cannot listen on " + where + ": permission denied: port " + port +
                       " is privileged (below net.ipv4.ip_unprivileged_port_start = " +
                       std::to_string(unprivileged_port_start()) +
                       ") and binding it needs CAP_NET_BIND_SERVICE; use the default 9879 or "
                       "another unprivileged port, or grant the capability "
                       "(AmbientCapabilities=CAP_NET_BIND_SERVICE in the systemd unit)"};
    case EADDRNOTAVAIL:
      return Error{error, "cannot listen on " + where + ": address not available: " + address.host +
                              " is not an address of this host (`ip -brief address` lists "
                              "them); use one of those, or :" +
                              port + " for all of them"};
    default:
      return errno_error(error, "cannot listen on " + where);
  }
}

int bound_port(int fd) {
  sockaddr_storage storage{};
  socklen_t length = sizeof(storage);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &length) != 0) return -1;
  if (storage.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  }
  return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
}

}  // namespace rdmatop
