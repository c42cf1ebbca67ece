// The exporter's runtime: an HTTP server (http_server.h: one epoll thread, deadlines and caps
// against slow and idle clients) serving /metrics, a landing page at / and /-/healthy, basic
// auth on /metrics (basic_auth.h), and ONE poll thread that calls Monitor::step()
// every interval and renders the /metrics page of each collection (metrics_page.h).
// Collection is decoupled from scrapes: a scrape only sends the latest rendered page, so
// concurrent scrapes never read the kernel nor wait for each other or for a collection, and a
// scrape storm cannot make the kernel reads more frequent.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "collector/model/result.h"
#include "exporters/http/http_server.h"
#include "exporters/prometheus/basic_auth.h"
#include "exporters/prometheus/metrics_collectable.h"
#include "exporters/prometheus/metrics_page.h"
#include "pipeline/monitor.h"

namespace rdmatop {

struct ExporterOptions {
  /// PORT or :PORT (all IPv4 addresses), IPv4:PORT, or [IPv6]:PORT (listen_address.h); port 0
  /// picks a free port (start() returns it).
  std::string listen = "9879";
  double interval_seconds = 5.0;
  /// user -> bcrypt hash (--web-config's basic_auth_users); non-empty: /metrics needs one.
  std::map<std::string, std::string> basic_auth_users;
  http::ServerLimits http;  ///< deadlines and caps of the HTTP server (docs/security.md)
  /// The exporter's own process_* metrics (collector/process_collector.h); empty: none.
  ProcessReader read_process;
};

class ExporterService {
 public:
  /// `monitor` must outlive the service; only the poll thread calls its step().
  ExporterService(Monitor& monitor, ExporterOptions options, MetricsOptions metrics);
  ~ExporterService();
  ExporterService(const ExporterService&) = delete;
  ExporterService& operator=(const ExporterService&) = delete;

  /// Collects once (so the first scrape has data), then starts the poll thread and the HTTP
  /// server. Returns the port actually bound, or an error saying why the address cannot be
  /// bound (bad address, in use, privileged port, not an address of this host).
  Result<int> start();

  /// Stops the poll thread and the server; idempotent.
  void stop();

  /// The HTTP server's counters (tests, docs/security.md); zeros before start().
  http::ServerStats http_stats() const;

 private:
  void poll_once();
  /// Renders the latest PublishedTick's page (and the poll status with it).
  void render_page();
  void poll_loop(const std::stop_token& stop);
  ExporterView view() const;
  void handle(const http::Request& request, const http::ClientAddress& client, http::Reply reply);
  http::Response metrics_response(const http::Request& request);

  Monitor& monitor_;
  ExporterOptions options_;
  MetricsOptions metrics_;

  mutable std::mutex mutex_;  // guards poll_ (the PublishedTick itself is published by Monitor)
  PollStatus poll_;
  std::condition_variable_any wake_;

  std::unique_ptr<MetricsPage> page_;
  /// One page is rendered at a time (the poll thread after each collection, a scrape for a
  /// tick the fast path republished): the line cache is the last page's.
  std::mutex render_mutex_;
  MetricsLineCache line_cache_;      // guarded by render_mutex_
  std::unique_ptr<BasicAuth> auth_;  ///< null without basic_auth_users
  std::unique_ptr<http::HttpServer> server_;
  std::jthread poller_;
};

}  // namespace rdmatop
