// The exporter's runtime: an HTTP server (prometheus-cpp's Exposer, i.e. civetweb) serving
// /metrics, a landing page at / and /-/healthy, and ONE poll thread that calls Monitor::step()
// every interval. Collection is decoupled from scrapes: a scrape only serializes the latest
// published Report, so concurrent scrapes never read the kernel nor wait for each other or for
// a collection, and a scrape storm cannot make the kernel reads more frequent.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "collector/model/result.h"
#include "exporters/monitor/monitor.h"
#include "exporters/prometheus/metrics_collectable.h"

namespace prometheus {
class Exposer;
}  // namespace prometheus

namespace rdmatop {

class TcpRelay;

struct ExporterOptions {
  /// PORT or :PORT (all IPv4 addresses), IPv4:PORT, or [IPv6]:PORT (listen_address.h; relayed
  /// to civetweb on loopback when civetweb has no IPv6, tcp_relay.h); port 0 picks a free port
  /// (start() returns it).
  std::string listen = "9879";
  double interval_seconds = 5.0;
  std::size_t http_threads = 2;
  /// user -> bcrypt hash (--web-config's basic_auth_users); non-empty: /metrics needs one.
  std::map<std::string, std::string> basic_auth_users;
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

 private:
  void poll_once();
  bool authorized(const std::string& user, const std::string& password);
  void poll_loop(const std::stop_token& stop);
  ExporterView view() const;

  Monitor& monitor_;
  ExporterOptions options_;
  MetricsOptions metrics_;

  mutable std::mutex mutex_;  // guards poll_ (the Report itself is published by Monitor)
  PollStatus poll_;
  std::condition_variable_any wake_;

  std::mutex auth_mutex_;  // guards verified_
  /// user + '\0' + password pairs that matched: bcrypt costs ~0.1 s by design, too much for
  /// every scrape (the exporter-toolkit caches verified credentials for the same reason).
  std::set<std::string> verified_;

  std::shared_ptr<ReportCollectable> collectable_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  std::unique_ptr<TcpRelay> relay_;  ///< only for an IPv6 --listen without IPv6 in civetweb
  std::jthread poller_;
};

}  // namespace rdmatop
