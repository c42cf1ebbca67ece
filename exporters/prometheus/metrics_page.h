// The /metrics body: the families of the latest collection, serialized once per collection by
// prometheus-cpp's TextSerializer (text format 0.0.4) and shared by every scrape of it, plus
// the few families that change per scrape (exposer_scrapes_total,
// exposer_transferred_bytes_total, exposer_request_latencies: the names prometheus-cpp's
// Exposer used, kept for dashboards), and gzip when the scraper accepts it (as the Exposer did).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/registry.h>
#include <prometheus/summary.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exporters/prometheus/metrics_collectable.h"

namespace rdmatop {

struct MetricsBody {
  std::shared_ptr<const std::string> text;
  bool gzip = false;  ///< text is gzip-compressed (Content-Encoding: gzip)
};

class MetricsPage {
 public:
  explicit MetricsPage(std::shared_ptr<ReportCollectable> collectable);

  /// The body of one scrape; thread-safe.
  MetricsBody render(bool accept_gzip);

 private:
  std::shared_ptr<ReportCollectable> collectable_;
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Counter* transferred_bytes_ = nullptr;
  prometheus::Counter* scrapes_ = nullptr;
  prometheus::Summary* latencies_ = nullptr;

  std::mutex mutex_;  // guards the cache
  std::shared_ptr<const std::vector<prometheus::MetricFamily>> cached_families_;
  std::shared_ptr<const std::string> cached_text_;
};

/// gzip (RFC 1952) of `text` at the fastest level; empty on failure.
std::string gzip_compress(const std::string& text);

}  // namespace rdmatop
