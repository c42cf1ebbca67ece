// The exporter's HTTP server (exporters/http/http_server.h) over real loopback sockets: idle,
// slow and oversized clients cannot starve a request, deadlines and the connection cap hold,
// keep-alive, pipelining, HEAD and answers from another thread work. Deadlines are short here;
// nothing asserts a duration, only what was answered or closed and the server's counters.
#include "exporters/http/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "exporters/prometheus/listen_address.h"

namespace rdmatop::http {
namespace {

using namespace std::chrono_literals;

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

class Running {
 public:
  explicit Running(ServerLimits limits, Handler handler = nullptr) {
    auto address = parse_listen_address("127.0.0.1:0");
    REQUIRE(address.ok());
    auto fd = open_listener(*address, SOMAXCONN);
    REQUIRE(fd.ok());
    port_ = bound_port(*fd);
    if (!handler) {
      handler = [](const Request& r, const ClientAddress&, Reply reply) {
        reply(text_response(200, "path " + r.path + "\n"));
      };
    }
    auto server = HttpServer::start(*fd, limits, std::move(handler));
    REQUIRE(server.ok());
    server_ = std::move(server).value();
  }
  int port() const { return port_; }
  ServerStats stats() const { return server_->stats(); }
  template <class Pred>
  bool eventually(Pred pred) const {
    for (int i = 0; i < 500; ++i) {
      if (pred(stats())) return true;
      std::this_thread::sleep_for(10ms);
    }
    return pred(stats());
  }

 private:
  int port_ = 0;
  std::unique_ptr<HttpServer> server_;
};

Fd connect_to(int port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  REQUIRE(fd.fd >= 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd.fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0);
  return fd;
}

void send_text(const Fd& fd, const std::string& text) {
  REQUIRE(::send(fd.fd, text.data(), text.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(text.size()));
}

/// Reads until `done(bytes so far)`, the peer closes, or 5 s pass; returns what arrived and
/// whether the peer closed.
template <class Done>
std::pair<std::string, bool> receive_until(const Fd& fd, Done done) {
  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  char buf[4096];
  while (!done(got) && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd.fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = ::recv(fd.fd, buf, sizeof buf, 0);
    if (n <= 0) return {got, true};
    got.append(buf, static_cast<std::size_t>(n));
  }
  return {got, false};
}

std::pair<std::string, bool> receive(const Fd& fd) {
  return receive_until(fd, [](const std::string&) { return false; });
}

/// One GET on a fresh connection with Connection: close; the whole answer.
std::string get(int port, const std::string& path) {
  Fd fd = connect_to(port);
  send_text(fd, "GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  return receive(fd).first;
}

}  // namespace

TEST_CASE("http server: idle and slow connections do not starve a request", "[http]") {
  Running server(ServerLimits{});
  std::vector<Fd> idle;
  for (int i = 0; i < 100; ++i) idle.push_back(connect_to(server.port()));
  // Half of them sent half a request, one a huge Content-Length and no body.
  for (int i = 0; i < 50; ++i) send_text(idle[i], "GET /metrics HTTP/1.1\r\nHo");
  Fd big = connect_to(server.port());
  send_text(big, "GET /metrics HTTP/1.1\r\nContent-Length: 1000000000\r\n\r\n");
  const std::string answer = get(server.port(), "/-/healthy");
  CHECK_THAT(answer, Catch::StartsWith("HTTP/1.1 200 OK\r\n"));
  CHECK_THAT(answer, Catch::EndsWith("path /-/healthy\n"));
  CHECK_THAT(answer, Catch::Contains("Connection: close\r\n"));
  const auto [refusal, closed] = receive(big);
  CHECK_THAT(refusal, Catch::StartsWith("HTTP/1.1 413 "));
  CHECK(closed);
}

TEST_CASE("http server: a request must be complete request_timeout after it starts", "[http]") {
  ServerLimits limits;
  limits.request_timeout = 300ms;
  Running server(limits);
  SECTION("a silent connection is closed") {
    Fd fd = connect_to(server.port());
    const auto [got, closed] = receive(fd);
    CHECK(got.empty());
    CHECK(closed);
  }
  SECTION("trickling one byte at a time does not keep it open") {
    Fd fd = connect_to(server.port());
    const std::string request = "GET /metrics HTTP/1.1\r\nHost: a-long-enough-host-name\r\n\r\n";
    std::size_t sent = 0;
    bool closed = false;
    while (sent < request.size() && !closed) {
      if (::send(fd.fd, &request[sent], 1, MSG_NOSIGNAL) != 1) break;
      ++sent;
      pollfd p{fd.fd, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        char c = 0;
        closed = ::recv(fd.fd, &c, 1, 0) <= 0;
      }
    }
    CAPTURE(sent);
    CHECK(closed);
    CHECK(sent < request.size());
  }
  CHECK(server.eventually([](const ServerStats& s) { return s.timed_out >= 1 && s.open == 0; }));
}

TEST_CASE("http server: at the connection cap the longest-waiting connection makes room",
          "[http]") {
  ServerLimits limits;
  limits.max_connections = 8;
  Running server(limits);
  std::vector<Fd> idle;
  for (int i = 0; i < 8; ++i) idle.push_back(connect_to(server.port()));
  REQUIRE(server.eventually([](const ServerStats& s) { return s.open == 8; }));
  for (int i = 0; i < 5; ++i) {
    CHECK_THAT(get(server.port(), "/x"), Catch::StartsWith("HTTP/1.1 200 OK"));
  }
  // The first GET made room (each GET closes after its answer, so the others fit).
  CHECK(server.stats().evicted == 1);
  CHECK(server.stats().refused == 0);
  // The first idle connection was the first to go.
  CHECK(receive(idle[0]).second);
}

TEST_CASE("http server: keep-alive, pipelining, HEAD, 405-style answers from the handler",
          "[http]") {
  Running server(ServerLimits{});
  Fd fd = connect_to(server.port());
  send_text(fd, "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\nHEAD /c HTTP/1.1\r\n\r\n");
  const std::string head_c = "Content-Length: 8\r\n\r\n";
  const auto [got, closed] = receive_until(fd, [&](const std::string& bytes) {
    return bytes.size() >= head_c.size() && bytes.find("path /b\n") != std::string::npos &&
           bytes.compare(bytes.size() - head_c.size(), head_c.size(), head_c) == 0;
  });
  CHECK_FALSE(closed);
  const std::size_t a = got.find("path /a\n");
  const std::size_t b = got.find("path /b\n");
  CHECK(a != std::string::npos);
  CHECK(b != std::string::npos);
  CHECK(a < b);
  CHECK(got.find("path /c") == std::string::npos);  // HEAD: the head only
  CHECK(got.rfind(head_c) + head_c.size() == got.size());
  CHECK(server.stats().requests == 3);
}

TEST_CASE("http server: an answer from another thread reaches its connection", "[http]") {
  std::mutex mutex;  // guards workers and seen (Catch2 assertions stay on this thread)
  std::vector<std::thread> workers;
  ClientAddress seen{};
  Running server(ServerLimits{}, [&](const Request& r, const ClientAddress& client, Reply reply) {
    const std::lock_guard<std::mutex> lock(mutex);
    seen = client;
    workers.emplace_back([path = r.path, reply = std::move(reply)] {
      std::this_thread::sleep_for(20ms);
      reply(text_response(200, "later " + path + "\n"));
    });
  });
  CHECK_THAT(get(server.port(), "/slow"), Catch::EndsWith("later /slow\n"));
  // While one answer is pending, the loop serves others.
  CHECK_THAT(get(server.port(), "/other"), Catch::EndsWith("later /other\n"));
  const std::lock_guard<std::mutex> lock(mutex);
  for (auto& t : workers) t.join();
  CHECK(seen[10] == 0xff);  // IPv4-mapped 127.0.0.1
  CHECK(seen[12] == 127);
}

}  // namespace rdmatop::http
