#include "exporters/http/http_server.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <deque>
#include <list>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

namespace rdmatop::http {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kListenTag = 0;
constexpr std::uint64_t kWakeTag = 1;
constexpr int kAcceptsPerWake = 64;  // then the connections already open get their turn
// Descriptors kept free of connections for everything else the exporter opens (sysfs files,
// netlink sockets, the recording): at most max_connections = RLIMIT_NOFILE - this.
constexpr rlim_t kReservedDescriptors = 128;

const char* reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

std::string http_date() {
  // IMF-fixdate (RFC 9110 5.6.7); an origin server with a clock sends Date (6.6.1).
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::array<char, 64> buf{};
  const std::size_t n = std::strftime(buf.data(), buf.size(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return std::string(buf.data(), n);
}

ClientAddress client_address(const sockaddr_storage& sa) {
  ClientAddress out{};
  if (sa.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&sa);
    out[10] = 0xff;
    out[11] = 0xff;
    std::memcpy(&out[12], &in->sin_addr, 4);
  } else if (sa.ss_family == AF_INET6) {
    std::memcpy(out.data(), &reinterpret_cast<const sockaddr_in6*>(&sa)->sin6_addr, out.size());
  }
  return out;
}

/// Raises the soft RLIMIT_NOFILE to the hard one (as Go does at start since 1.19: the soft
/// limit 1024 is a select(2)-era default) and returns how many connections then fit.
std::size_t connections_that_fit(std::size_t wanted) {
  rlimit nofile{};
  if (getrlimit(RLIMIT_NOFILE, &nofile) != 0) return wanted;
  if (nofile.rlim_cur < nofile.rlim_max) {
    rlimit raised = nofile;
    raised.rlim_cur = nofile.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) nofile = raised;
  }
  if (nofile.rlim_cur == RLIM_INFINITY) return wanted;
  const rlim_t room = nofile.rlim_cur > 2 * kReservedDescriptors
                          ? nofile.rlim_cur - kReservedDescriptors
                          : nofile.rlim_cur / 2;
  return std::max<std::size_t>(1, std::min<std::size_t>(wanted, room));
}

}  // namespace

Response text_response(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = {std::make_shared<const std::string>(std::move(body))};
  return r;
}

std::size_t body_size(const BodyParts& parts) {
  std::size_t size = 0;
  for (const auto& part : parts) size += part->size();
  return size;
}

std::string response_head(const Response& response, std::size_t body_size, bool close) {
  std::string head = "HTTP/1.1 " + std::to_string(response.status) + " " +
                     reason_phrase(response.status) + "\r\nDate: " + http_date() +
                     "\r\nContent-Type: " + response.content_type +
                     "\r\nContent-Length: " + std::to_string(body_size) + "\r\n";
  for (const auto& [name, value] : response.headers) head += name + ": " + value + "\r\n";
  if (close) head += "Connection: close\r\n";
  head += "\r\n";
  return head;
}

struct HttpServer::Impl {
  enum class State { reading, waiting, writing };
  struct Connection {
    int fd = -1;
    ClientAddress client{};
    State state = State::reading;
    std::string in;
    bool head_only = false;  ///< the request being answered is a HEAD
    bool close_after = false;
    std::string out_head;
    BodyParts out_body;
    std::size_t out_done = 0;  ///< bytes of head + body written
    Clock::time_point deadline{};
    std::list<std::uint64_t>::iterator waiting_pos;  ///< in `waiting_for_request` when reading
  };

  ServerLimits limits;
  Handler handler;
  int listen_fd = -1;
  int epoll_fd = -1;
  int wake_fd = -1;
  bool accepting = true;
  std::atomic<bool> stopping{false};
  std::uint64_t next_id = 2;
  std::unordered_map<std::uint64_t, Connection> connections;
  /// Connections waiting for (the rest of) a request, oldest first: the eviction order.
  std::list<std::uint64_t> waiting_for_request;
  std::set<std::pair<Clock::time_point, std::uint64_t>> deadlines;
  /// Connections with a whole pipelined request buffered: parsed after the current event, so
  /// a buffer full of requests is served one turn at a time, never by recursion.
  std::vector<std::uint64_t> parse_later;

  std::mutex replies_mutex;  // guards replies
  std::deque<std::pair<std::uint64_t, Response>> replies;
  std::thread::id loop_thread;

  std::atomic<std::uint64_t> accepted{0}, requests{0}, timed_out{0}, evicted{0}, refused{0},
      bad_requests{0}, open{0};
  std::thread thread;

  ~Impl() {
    for (auto& [id, c] : connections) ::close(c.fd);
    if (listen_fd >= 0) ::close(listen_fd);
    if (epoll_fd >= 0) ::close(epoll_fd);
    if (wake_fd >= 0) ::close(wake_fd);
  }

  void watch(std::uint64_t id, const Connection& c, std::uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = id;
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &ev);
  }

  void set_deadline(std::uint64_t id, Connection& c, Clock::time_point when) {
    deadlines.erase({c.deadline, id});
    c.deadline = when;
    deadlines.insert({when, id});
  }

  void close_connection(std::uint64_t id) {
    const auto it = connections.find(id);
    if (it == connections.end()) return;
    Connection& c = it->second;
    deadlines.erase({c.deadline, id});
    if (c.state == State::reading) waiting_for_request.erase(c.waiting_pos);
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
    ::close(c.fd);
    connections.erase(it);
    open.store(connections.size(), std::memory_order_relaxed);
    if (!accepting) resume_accepting();
  }

  void resume_accepting() {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenTag;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev) == 0) accepting = true;
  }

  void pause_accepting() {
    epoll_event ev{};
    ev.events = 0;
    ev.data.u64 = kListenTag;
    if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev) == 0) accepting = false;
  }

  /// Makes room for one connection: closes the one that has waited longest for a request.
  bool evict_one() {
    if (waiting_for_request.empty()) return false;
    close_connection(waiting_for_request.front());
    evicted.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  void accept_new() {
    for (int i = 0; i < kAcceptsPerWake; ++i) {
      sockaddr_storage sa{};
      socklen_t len = sizeof(sa);
      const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&sa), &len,
                               SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          // Out of descriptors: free one, or stop accepting until a connection closes (the
          // listening socket would otherwise stay readable and spin the loop).
          if (!evict_one()) pause_accepting();
          continue;
        }
        return;  // EAGAIN: drained; ECONNABORTED and friends: the next wake retries
      }
      if (connections.size() >= limits.max_connections && !evict_one()) {
        ::close(fd);
        refused.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      const std::uint64_t id = next_id++;
      Connection& c = connections[id];
      c.fd = fd;
      c.client = client_address(sa);
      c.waiting_pos = waiting_for_request.insert(waiting_for_request.end(), id);
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLRDHUP;
      ev.data.u64 = id;
      epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
      // A new connection's first request is due request_timeout after the accept.
      set_deadline(id, c, Clock::now() + limits.request_timeout);
      accepted.fetch_add(1, std::memory_order_relaxed);
      open.store(connections.size(), std::memory_order_relaxed);
    }
  }

  void respond(std::uint64_t id, Connection& c, Response response, bool close) {
    if (c.state == State::reading) waiting_for_request.erase(c.waiting_pos);
    c.state = State::writing;
    c.close_after = close;
    c.out_head = response_head(response, body_size(response.body), close);
    c.out_body.clear();
    if (!c.head_only) c.out_body = std::move(response.body);
    c.out_done = 0;
    requests.fetch_add(1, std::memory_order_relaxed);
    set_deadline(id, c, Clock::now() + limits.write_timeout);
    watch(id, c, EPOLLOUT);
    on_writable(id, c);
  }

  void refuse_request(std::uint64_t id, Connection& c, int status, const std::string& reason) {
    bad_requests.fetch_add(1, std::memory_order_relaxed);
    c.head_only = false;
    respond(id, c, text_response(status, reason + "\n"), true);
  }

  /// Parses what has arrived; hands a complete request to the handler.
  void try_parse(std::uint64_t id, Connection& c) {
    Request request;
    const ParseResult parsed = parse_request(c.in, limits.request, request);
    if (parsed.state == ParseResult::State::need_more) return;
    if (parsed.state == ParseResult::State::error) {
      refuse_request(id, c, parsed.status, parsed.reason);
      return;
    }
    c.in.erase(0, parsed.consumed);
    waiting_for_request.erase(c.waiting_pos);
    c.state = State::waiting;
    c.head_only = request.method == "HEAD";
    c.close_after = !request.keep_alive;
    deadlines.erase({c.deadline, id});
    c.deadline = Clock::time_point::max();  // the handler always replies; no clock meanwhile
    // Nothing is read while the answer is prepared; only a hang-up or an error is reported
    // (epoll_ctl(2): always). A half-close (shutdown(SHUT_WR)) still gets its answer.
    watch(id, c, 0);
    handler(request, c.client,
            [this, id](Response response) { post_reply(id, std::move(response)); });
    drain_replies();
  }

  void on_readable(std::uint64_t id, Connection& c) {
    std::array<char, 16384> buf{};
    const std::size_t cap = limits.request.max_header_bytes + limits.request.max_body_bytes + 4;
    while (c.state == State::reading) {
      const ssize_t n = ::recv(c.fd, buf.data(), buf.size(), 0);
      if (n == 0) {
        close_connection(id);
        return;
      }
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) close_connection(id);
        return;
      }
      // Between keep-alive requests the idle timeout runs; a request's own clock starts at
      // its first byte and is absolute (a new connection's started at the accept).
      if (c.in.empty() && c.deadline > Clock::now() + limits.request_timeout) {
        set_deadline(id, c, Clock::now() + limits.request_timeout);
      }
      c.in.append(buf.data(),
                  std::min(static_cast<std::size_t>(n), cap - std::min(cap, c.in.size())));
      try_parse(id, c);
      if (connections.find(id) == connections.end()) return;
      if (c.state == State::reading && c.in.size() >= cap) {
        refuse_request(id, c, 431, "request too large");
        return;
      }
    }
  }

  void on_writable(std::uint64_t id, Connection& c) {
    const std::size_t total = c.out_head.size() + body_size(c.out_body);
    std::vector<iovec> iov;
    iov.reserve(1 + c.out_body.size());
    while (c.out_done < total) {
      // The parts not yet sent, the first of them from where the last write stopped.
      iov.clear();
      std::size_t skip = c.out_done;
      const auto add = [&](const char* data, std::size_t size) {
        if (skip >= size) {
          skip -= size;
          return;
        }
        iov.push_back({const_cast<char*>(data) + skip, size - skip});
        skip = 0;
      };
      add(c.out_head.data(), c.out_head.size());
      for (const auto& part : c.out_body) add(part->data(), part->size());
      msghdr msg{};
      msg.msg_iov = iov.data();
      msg.msg_iovlen = std::min<std::size_t>(iov.size(), IOV_MAX);
      const ssize_t n = ::sendmsg(c.fd, &msg, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) close_connection(id);
        return;
      }
      c.out_done += static_cast<std::size_t>(n);
    }
    if (c.close_after) {
      close_connection(id);
      return;
    }
    c.out_head.clear();
    c.out_body.clear();
    c.state = State::reading;
    c.waiting_pos = waiting_for_request.insert(waiting_for_request.end(), id);
    watch(id, c, EPOLLIN | EPOLLRDHUP);
    set_deadline(id, c,
                 Clock::now() + (c.in.empty() ? limits.idle_timeout : limits.request_timeout));
    if (!c.in.empty()) parse_later.push_back(id);  // a pipelined request, after this turn
  }

  void post_reply(std::uint64_t id, Response response) {
    {
      const std::lock_guard<std::mutex> lock(replies_mutex);
      replies.emplace_back(id, std::move(response));
    }
    if (std::this_thread::get_id() != loop_thread) {
      const std::uint64_t one = 1;
      [[maybe_unused]] const ssize_t n = ::write(wake_fd, &one, sizeof(one));
    }
  }

  void drain_replies() {
    for (;;) {
      std::pair<std::uint64_t, Response> next;
      {
        const std::lock_guard<std::mutex> lock(replies_mutex);
        if (replies.empty()) return;
        next = std::move(replies.front());
        replies.pop_front();
      }
      const auto it = connections.find(next.first);
      if (it == connections.end() || it->second.state != State::waiting) continue;  // gone
      respond(next.first, it->second, std::move(next.second), it->second.close_after);
    }
  }

  void expire(Clock::time_point now) {
    while (!deadlines.empty() && deadlines.begin()->first <= now) {
      const std::uint64_t id = deadlines.begin()->second;
      deadlines.erase(deadlines.begin());
      const auto it = connections.find(id);
      if (it == connections.end()) continue;
      it->second.deadline = Clock::time_point::max();
      timed_out.fetch_add(1, std::memory_order_relaxed);
      close_connection(id);
    }
  }

  void loop() {
    loop_thread = std::this_thread::get_id();
    std::array<epoll_event, 256> events{};
    while (!stopping.load()) {
      int timeout_ms = -1;
      if (!deadlines.empty()) {
        const auto wait = deadlines.begin()->first - Clock::now();
        timeout_ms = static_cast<int>(std::clamp<long long>(
            std::chrono::ceil<std::chrono::milliseconds>(wait).count(), 0, 60000));
      }
      const int n =
          epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), timeout_ms);
      if (n < 0 && errno != EINTR) return;
      for (int i = 0; i < n; ++i) {
        const std::uint64_t tag = events[i].data.u64;
        if (tag == kWakeTag) {
          std::uint64_t count = 0;
          [[maybe_unused]] const ssize_t r = ::read(wake_fd, &count, sizeof(count));
          continue;
        }
        if (tag == kListenTag) {
          accept_new();
          continue;
        }
        const auto it = connections.find(tag);
        if (it == connections.end()) continue;
        Connection& c = it->second;
        const std::uint32_t ev = events[i].events;
        if ((ev & EPOLLERR) != 0) {
          close_connection(tag);
        } else if (c.state == State::writing && (ev & EPOLLOUT) != 0) {
          on_writable(tag, c);
        } else if (c.state == State::reading && (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) != 0) {
          on_readable(tag, c);
        } else if (c.state == State::waiting && (ev & EPOLLHUP) != 0) {
          close_connection(tag);  // the client left before its answer: nothing to send
        }
      }
      drain_replies();
      while (!parse_later.empty()) {
        std::vector<std::uint64_t> ids;
        ids.swap(parse_later);
        for (const std::uint64_t id : ids) {
          const auto it = connections.find(id);
          if (it != connections.end() && it->second.state == State::reading) {
            try_parse(id, it->second);
          }
        }
      }
      expire(Clock::now());
    }
  }
};

Result<std::unique_ptr<HttpServer>> HttpServer::start(int listen_fd, ServerLimits limits,
                                                      Handler handler) {
  auto impl = std::make_unique<Impl>();
  impl->listen_fd = listen_fd;
  impl->limits = limits;
  impl->limits.max_connections = connections_that_fit(limits.max_connections);
  impl->handler = std::move(handler);
  impl->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  impl->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (impl->epoll_fd < 0 || impl->wake_fd < 0) return errno_error(errno, "epoll/eventfd");
  const int flags = fcntl(listen_fd, F_GETFL);
  if (flags < 0 || fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) != 0) {
    return errno_error(errno, "fcntl O_NONBLOCK");
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenTag;
  if (epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev) != 0) {
    return errno_error(errno, "epoll_ctl");
  }
  ev.data.u64 = kWakeTag;
  if (epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, impl->wake_fd, &ev) != 0) {
    return errno_error(errno, "epoll_ctl");
  }
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->loop(); });
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() {
  impl_->stopping.store(true);
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(impl_->wake_fd, &one, sizeof(one));
  impl_->thread.join();
}

ServerStats HttpServer::stats() const {
  const Impl& i = *impl_;
  return {i.accepted.load(), i.requests.load(),     i.timed_out.load(), i.evicted.load(),
          i.refused.load(),  i.bad_requests.load(), i.open.load()};
}

const ServerLimits& HttpServer::limits() const {
  return impl_->limits;
}

}  // namespace rdmatop::http
