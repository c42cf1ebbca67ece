#include "exporters/prometheus/exporter_service.h"

#include <CivetServer.h>
#include <civetweb.h>

#include <prometheus/exposer.h>
#include <sys/socket.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <exception>
#include <string_view>
#include <vector>

#include "exporters/prometheus/listen_address.h"
#include "exporters/prometheus/tcp_relay.h"
#include "exporters/prometheus/web_config.h"

namespace rdmatop {

namespace {

constexpr std::string_view kLandingPage =
    "<!DOCTYPE html>\n<html><head><title>rdmatop exporter</title></head><body>\n"
    "<h1>rdmatop exporter</h1>\n<p>RoCEv2 health metrics and rule findings.</p>\n"
    "<ul><li><a href=\"/metrics\">/metrics</a></li>"
    "<li><a href=\"/-/healthy\">/-/healthy</a></li></ul>\n</body></html>\n";
constexpr std::string_view kHealthy = "Healthy.\n";

int send_page(mg_connection* conn, const char* mime, std::string_view body) {
  mg_send_http_ok(conn, mime, static_cast<long long>(body.size()));
  mg_write(conn, body.data(), body.size());
  return 200;
}

// civetweb's begin_request hook runs before any URI handler; returning non-zero means "handled"
// (civetweb.h, struct mg_callbacks). The Exposer owns the server and only registers /metrics,
// so this is how the fixed pages are added without a second HTTP server. /-/healthy is liveness
// only (the process serves HTTP), like Prometheus' own; freshness is a metric
// (rdmatop_last_collection_timestamp_seconds) so alerting on it stays in PromQL.
int serve_fixed_pages(mg_connection* conn) {
  const mg_request_info* request = mg_get_request_info(conn);
  const std::string_view uri = request->local_uri != nullptr ? request->local_uri : "";
  if (uri == "/") return send_page(conn, "text/html; charset=utf-8", kLandingPage);
  if (uri == "/-/healthy") return send_page(conn, "text/plain; charset=utf-8", kHealthy);
  return 0;
}

constexpr std::size_t kMaxVerifiedCredentials = 64;

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

ExporterService::ExporterService(Monitor& monitor, ExporterOptions options, MetricsOptions metrics)
    : monitor_(monitor), options_(std::move(options)), metrics_(std::move(metrics)) {}

ExporterService::~ExporterService() {
  stop();
}

void ExporterService::poll_once() {
  const auto start = std::chrono::steady_clock::now();
  monitor_.step();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::lock_guard<std::mutex> lock(mutex_);
  ++poll_.polls;
  poll_.last_poll_duration_seconds = took;
  poll_.last_poll_end_unix_seconds = unix_seconds_now();
}

void ExporterService::poll_loop(const std::stop_token& stop) {
  const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(options_.interval_seconds));
  auto next = std::chrono::steady_clock::now() + interval;
  while (!stop.stop_requested()) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (wake_.wait_until(lock, stop, next, [] { return false; }) || stop.stop_requested()) {
        return;
      }
    }
    poll_once();
    // A slow collection delays the next one instead of queueing catch-up ticks.
    next = std::max(next + interval, std::chrono::steady_clock::now());
  }
}

ExporterView ExporterService::view() const {
  ExporterView v;
  v.report = monitor_.latest();
  const std::lock_guard<std::mutex> lock(mutex_);
  v.poll = poll_;
  return v;
}

bool ExporterService::authorized(const std::string& user, const std::string& password) {
  const std::string key = user + '\0' + password;
  {
    const std::lock_guard<std::mutex> lock(auth_mutex_);
    if (verified_.count(key) != 0) return true;
  }
  const auto it = options_.basic_auth_users.find(user);
  if (it == options_.basic_auth_users.end() || !bcrypt_matches(it->second, password)) {
    return false;
  }
  const std::lock_guard<std::mutex> lock(auth_mutex_);
  if (verified_.size() >= kMaxVerifiedCredentials) verified_.clear();
  verified_.insert(key);
  return true;
}

Result<int> ExporterService::start() {
  // Bind problems are found (and explained) before civetweb sees the address: its only report
  // of any bind failure is "null context when constructing CivetServer" (listen_address.h).
  const Result<ListenAddress> address = parse_listen_address(options_.listen);
  if (!address) return address.error();
  // IPv6 without an IPv6 civetweb: the exporter holds the IPv6 socket and relays to civetweb
  // on loopback (tcp_relay.h).
  const bool relay = address->ipv6 && !http_server_supports_ipv6();
  int relay_fd = -1;
  if (relay) {
    const Result<int> fd = open_listener(*address, SOMAXCONN);
    if (!fd) return fd.error();
    relay_fd = *fd;
  } else if (auto error = check_bindable(*address)) {
    return *error;
  }
  poll_once();
  static const CivetCallbacks callbacks = [] {
    CivetCallbacks c;
    c.begin_request = serve_fixed_pages;
    return c;
  }();
  try {
    exposer_ = std::make_unique<prometheus::Exposer>(
        std::vector<std::string>{"listening_ports", relay ? "127.0.0.1:0" : address->civetweb,
                                 "num_threads", std::to_string(options_.http_threads)},
        &callbacks);
  } catch (const std::exception& e) {
    // The address was bindable a moment ago: another process took it since, or civetweb
    // refused an option; its text is all there is.
    if (relay_fd >= 0) close(relay_fd);
    return Error{0, "cannot listen on " + address->display() + ": " + e.what()};
  }
  if (!options_.basic_auth_users.empty()) {
    exposer_->RegisterAuth(
        [this](const std::string& user, const std::string& password) {
          return authorized(user, password);
        },
        "rdmatop", "/metrics");
  }
  collectable_ = std::make_shared<ReportCollectable>([this] { return view(); }, metrics_);
  exposer_->RegisterCollectable(collectable_);
  const std::vector<int> ports = exposer_->GetListeningPorts();
  int port = ports.empty() ? 0 : ports.front();
  if (relay) {
    const int public_port = bound_port(relay_fd);
    relay_ = std::make_unique<TcpRelay>(relay_fd, port);
    port = public_port;
  }
  poller_ = std::jthread([this](const std::stop_token& stop) { poll_loop(stop); });
  return port;
}

void ExporterService::stop() {
  if (poller_.joinable()) {
    poller_.request_stop();
    poller_.join();
  }
  relay_.reset();  // before the server it relays to
  exposer_.reset();
}

}  // namespace rdmatop
