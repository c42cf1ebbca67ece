// The /metrics body. Each collection is rendered once, by the poll thread right after the
// collection (render_metrics_page, published here), as text format 0.0.4 and,
// once any scraper has asked for gzip, as the shared body of a gzip member (gzip_parts.h).
// A scrape then only sends those bytes, after the few families that change per scrape
// (exposer_scrapes_total, exposer_transferred_bytes_total, exposer_request_latencies: the names
// prometheus-cpp's Exposer used, kept for dashboards): no scrape waits for a rendering, the
// first after a collection included, which is every scrape when Prometheus scrapes less often
// than rdmatop collects.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/registry.h>
#include <prometheus/summary.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exporters/http/gzip_parts.h"
#include "exporters/http/http_server.h"

namespace rdmatop {

struct MetricsBody {
  http::BodyParts parts;
  bool gzip = false;  ///< the parts are one gzip member (Content-Encoding: gzip)
};

class MetricsPage {
 public:
  MetricsPage();

  /// A collection's text, which every later scrape serves; thread-safe. `source`: what it was
  /// rendered from (held, so its address cannot be reused while the page is current).
  void publish(std::string text, std::shared_ptr<const void> source = nullptr);
  /// Whether the current page was rendered from `source`.
  bool rendered_from(const std::shared_ptr<const void>& source) const;
  /// The size of the last text published: what the next one may reserve.
  std::size_t last_size() const { return last_size_.load(std::memory_order_relaxed); }

  /// The body of one scrape; thread-safe. Before the first publish: the per-scrape families.
  MetricsBody render(bool accept_gzip);

 private:
  struct Rendered {
    std::shared_ptr<const std::string> text;
    /// Null until a scraper asks for gzip: a collection nobody scrapes compressed is never
    /// compressed.
    std::shared_ptr<const http::GzipBody> gzip;
    std::shared_ptr<const void> source;
  };
  Rendered rendered() const;
  /// The gzip body of `text`, made now by the first gzip scrape after a publish that did not
  /// make one.
  std::shared_ptr<const http::GzipBody> gzip_body_of(const Rendered& page);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Counter* transferred_bytes_ = nullptr;
  prometheus::Counter* scrapes_ = nullptr;
  prometheus::Summary* latencies_ = nullptr;

  std::atomic<bool> gzip_wanted_{false};   ///< a scraper has asked for gzip
  std::atomic<std::size_t> last_size_{0};  ///< of the last page's text: the next one's reserve
  mutable std::mutex mutex_;               // guards rendered_
  Rendered rendered_;
};

}  // namespace rdmatop
