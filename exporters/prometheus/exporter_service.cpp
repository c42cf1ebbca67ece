#include "exporters/prometheus/exporter_service.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string_view>
#include <utility>

#include "exporters/prometheus/listen_address.h"

namespace rdmatop {

namespace {

constexpr std::string_view kLandingPage =
    "<!DOCTYPE html>\n<html><head><title>rdmatop exporter</title></head><body>\n"
    "<h1>rdmatop exporter</h1>\n<p>RoCEv2 health metrics and rule findings.</p>\n"
    "<ul><li><a href=\"/metrics\">/metrics</a></li>"
    "<li><a href=\"/-/healthy\">/-/healthy</a></li></ul>\n</body></html>\n";
constexpr std::string_view kHealthy = "Healthy.\n";

http::Response page(const char* mime, std::string_view body) {
  http::Response r = http::text_response(200, std::string(body));
  r.content_type = mime;
  return r;
}

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
  const std::shared_ptr<const PublishedTick> report = monitor_.step();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    ++poll_.polls;
    if (report != nullptr) count_source_errors(report->snapshot, poll_.source_errors);
    poll_.last_poll_duration_seconds = took;
    poll_.last_poll_end_unix_seconds = unix_seconds_now();
  }
  // Rendered here, on the poll thread, so that no scrape waits for it.
  render_page();
}

void ExporterService::render_page() {
  const std::lock_guard<std::mutex> lock(render_mutex_);
  ExporterView v = view();
  std::shared_ptr<const void> source = v.report;
  page_->publish(render_metrics_page(std::move(v), metrics_, options_.read_process,
                                     page_->last_size() + 4096, &line_cache_),
                 std::move(source));
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

http::Response ExporterService::metrics_response(const http::Request& request) {
  // Between collections the PFC fast path republishes the latest PublishedTick with its
  // findings (Monitor::fast_poll): such a tick is rendered by the first scrape that finds it,
  // so a storm reaches rdmatop_finding within a fast poll, not at the next collection.
  if (!page_->rendered_from(monitor_.latest())) render_page();
  MetricsBody body = page_->render(http::accepts_gzip(request.accept_encoding));
  http::Response r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = std::move(body.parts);
  if (body.gzip) r.headers.emplace_back("Content-Encoding", "gzip");
  return r;
}

// /-/healthy is liveness only (the process serves HTTP), like Prometheus' own; freshness is a
// metric (rdmatop_last_collection_timestamp_seconds) so alerting on it stays in PromQL. It and
// / are answered on the HTTP loop itself, never queued behind a bcrypt check.
void ExporterService::handle(const http::Request& request, const http::ClientAddress& client,
                             http::Reply reply) {
  if (request.method != "GET" && request.method != "HEAD") {
    http::Response r = http::text_response(405, "only GET and HEAD are served\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    reply(std::move(r));
    return;
  }
  if (request.path == "/") {
    reply(page("text/html; charset=utf-8", kLandingPage));
    return;
  }
  if (request.path == "/-/healthy") {
    reply(page("text/plain; charset=utf-8", kHealthy));
    return;
  }
  if (request.path != "/metrics") {
    reply(http::text_response(404, "Not Found\n"));
    return;
  }
  if (auth_ == nullptr) {
    reply(metrics_response(request));
    return;
  }
  auth_->check(request.authorization, client,
               [this, request, reply = std::move(reply)](AuthVerdict verdict) {
                 http::Response r;
                 switch (verdict) {
                   case AuthVerdict::allowed:
                     reply(metrics_response(request));
                     return;
                   case AuthVerdict::denied:
                     r = http::text_response(401, "Unauthorized\n");
                     r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"rdmatop\"");
                     break;
                   case AuthVerdict::throttled:
                     // RFC 6585 4: too many password checks from this address.
                     r = http::text_response(429, "too many failed logins from this address\n");
                     r.headers.emplace_back("Retry-After", "1");
                     break;
                   case AuthVerdict::busy:
                     r = http::text_response(503, "password checks are queued; retry\n");
                     r.headers.emplace_back("Retry-After", "1");
                     break;
                 }
                 reply(std::move(r));
               });
}

Result<int> ExporterService::start() {
  const Result<ListenAddress> address = parse_listen_address(options_.listen);
  if (!address) return address.error();
  // The exporter binds the socket itself so every failure is explained (listen_address.h).
  // SOMAXCONN (4096 since Linux 5.4, capped by net.core.somaxconn): under 500 concurrent
  // clients civetweb's backlog overflowed and ~4% of connections timed out (#22).
  const Result<int> fd = open_listener(*address, SOMAXCONN);
  if (!fd) return fd.error();
  const int port = bound_port(*fd);
  page_ = std::make_unique<MetricsPage>();
  poll_once();
  if (!options_.basic_auth_users.empty()) {
    BasicAuthOptions auth;
    auth.users = options_.basic_auth_users;
    auth_ = std::make_unique<BasicAuth>(std::move(auth));
  }
  auto server = http::HttpServer::start(
      *fd, options_.http,
      [this](const http::Request& request, const http::ClientAddress& client, http::Reply reply) {
        handle(request, client, std::move(reply));
      });
  if (!server) {
    auth_.reset();
    return Error{server.error().code,
                 "cannot serve on " + address->display() + ": " + server.error().message};
  }
  server_ = std::move(server).value();
  poller_ = std::jthread([this](const std::stop_token& stop) { poll_loop(stop); });
  return port;
}

http::ServerStats ExporterService::http_stats() const {
  return server_ != nullptr ? server_->stats() : http::ServerStats{};
}

void ExporterService::stop() {
  if (poller_.joinable()) {
    poller_.request_stop();
    poller_.join();
  }
  auth_.reset();  // joins the bcrypt workers, whose replies go to the server
  server_.reset();
}

}  // namespace rdmatop
