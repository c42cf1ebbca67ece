// IPv6 for the exporter when its HTTP server has none: Debian 12's civetweb is built without
// USE_IPV6 (mg_check_feature(8) == 0), so for `--listen [ADDR]:PORT` the exporter listens on
// that IPv6 socket itself and relays each connection, byte for byte, to civetweb listening on
// 127.0.0.1 at a kernel-chosen port. HTTP, basic auth and every page are civetweb's; the relay
// only copies bytes (one thread per connection, at most kMaxConnections at once).
#pragma once

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

namespace rdmatop {

class TcpRelay {
 public:
  static constexpr int kMaxConnections = 64;

  /// Takes ownership of `listen_fd` (a listening socket) and forwards what it accepts to
  /// 127.0.0.1:`target_port`.
  TcpRelay(int listen_fd, int target_port);
  ~TcpRelay();  ///< stops accepting, closes every relayed connection and joins its threads
  TcpRelay(const TcpRelay&) = delete;
  TcpRelay& operator=(const TcpRelay&) = delete;

 private:
  struct Connection {
    int client = -1;
    int upstream = -1;
    std::thread thread;
    std::atomic<bool> done{false};
  };
  void accept_loop();
  static void pump(Connection& c);
  void reap_finished();  // joins connections whose thread ended; needs mutex_

  int listen_fd_;
  int wake_fd_;  ///< eventfd: written once to stop the accept loop
  int target_port_;
  std::mutex mutex_;  // guards connections_ and stopping_
  std::list<std::unique_ptr<Connection>> connections_;
  bool stopping_ = false;
  std::thread acceptor_;
};

}  // namespace rdmatop
