#include "exporters/prometheus/tcp_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>

namespace rdmatop {

namespace {

int connect_loopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof(sa)) != 0) {
    close(fd);
    return -1;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

/// Writes all of buf; false when the peer is gone.
bool write_all(int fd, const char* buf, std::size_t size) {
  while (size > 0) {
    const ssize_t n = send(fd, buf, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buf += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

TcpRelay::TcpRelay(int listen_fd, int target_port)
    : listen_fd_(listen_fd),
      wake_fd_(eventfd(0, EFD_CLOEXEC)),
      target_port_(target_port),
      acceptor_([this] { accept_loop(); }) {}

TcpRelay::~TcpRelay() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    // Wakes every pump (its poll sees the shutdown) without closing fds under it.
    for (const auto& c : connections_) {
      shutdown(c->client, SHUT_RDWR);
      shutdown(c->upstream, SHUT_RDWR);
    }
  }
  const std::uint64_t one = 1;
  if (write(wake_fd_, &one, sizeof(one)) < 0) {
    // The accept loop also ends when listen_fd_ is shut down below.
  }
  shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  std::list<std::unique_ptr<Connection>> left;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    left.swap(connections_);
  }
  for (auto& c : left) {
    c->thread.join();
    close(c->client);
    close(c->upstream);
  }
  close(listen_fd_);
  close(wake_fd_);
}

void TcpRelay::reap_finished() {
  for (auto it = connections_.begin(); it != connections_.end();) {
    if ((*it)->done.load()) {
      (*it)->thread.join();
      close((*it)->client);
      close((*it)->upstream);
      it = connections_.erase(it);
    } else {
      ++it;
    }
  }
}

void TcpRelay::accept_loop() {
  std::array<pollfd, 2> fds{pollfd{listen_fd_, POLLIN, 0}, pollfd{wake_fd_, POLLIN, 0}};
  while (true) {
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) return;
    const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;  // EAGAIN, ECONNABORTED, EMFILE: try the next one
    const std::lock_guard<std::mutex> lock(mutex_);
    reap_finished();
    if (stopping_ || connections_.size() >= static_cast<std::size_t>(kMaxConnections)) {
      close(client);
      continue;
    }
    const int upstream = connect_loopback(target_port_);
    if (upstream < 0) {
      close(client);
      continue;
    }
    auto c = std::make_unique<Connection>();
    c->client = client;
    c->upstream = upstream;
    Connection& ref = *c;
    c->thread = std::thread([&ref] {
      pump(ref);
      ref.done.store(true);
    });
    connections_.push_back(std::move(c));
  }
}

void TcpRelay::pump(Connection& c) {
  // Each direction ends on EOF (its write side is then shut down, so HTTP/1.0 close and
  // half-closes pass through) or an error; the connection ends when both have.
  std::array<pollfd, 2> fds{pollfd{c.client, POLLIN, 0}, pollfd{c.upstream, POLLIN, 0}};
  std::array<char, 16384> buf{};
  int open_directions = 2;
  while (open_directions > 0) {
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const int from = fds[i].fd;
      const int to = i == 0 ? c.upstream : c.client;
      const ssize_t n = recv(from, buf.data(), buf.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0 && write_all(to, buf.data(), static_cast<std::size_t>(n))) continue;
      if (n < 0 || n > 0) return;  // a read or write error: drop the connection
      shutdown(to, SHUT_WR);
      fds[i].fd = -1;
      --open_directions;
    }
  }
}

}  // namespace rdmatop
