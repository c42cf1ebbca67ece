#include "exporters/prometheus/text_exposition.h"

#include <prometheus/text_serializer.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace rdmatop;
using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

namespace {

/// Values where "%.16g" formatting has edges: integers on both sides of 1e16 and 2^53,
/// fractions, exponents of both signs, subnormals, signed zero, the non-finite ones.
double edge_value(std::mt19937_64& rng) {
  static const std::vector<double> edges = {0.0,
                                            -0.0,
                                            1.0,
                                            -1.0,
                                            0.1,
                                            0.5,
                                            1e-5,
                                            1e-4,
                                            9999999999999998.0,
                                            1e16,
                                            1e16 + 2,
                                            9007199254740992.0,
                                            9007199254740993.0,
                                            123456789012345678.0,
                                            1e15 + 0.5,
                                            1e300,
                                            -1e300,
                                            std::numeric_limits<double>::denorm_min(),
                                            std::numeric_limits<double>::max(),
                                            std::numeric_limits<double>::lowest(),
                                            std::numeric_limits<double>::quiet_NaN(),
                                            std::numeric_limits<double>::infinity(),
                                            -std::numeric_limits<double>::infinity()};
  switch (rng() % 5) {
    case 0:
      return edges[rng() % edges.size()];
    case 1:
      return static_cast<double>(rng() >> (rng() % 64));  // a counter, any magnitude
    case 2:
      return std::ldexp(static_cast<double>(rng() % 1000000) - 500000.0,
                        static_cast<int>(rng() % 200) - 100);
    case 3: {
      // Any bit pattern at all.
      const std::uint64_t bits = rng();
      double d = 0;
      static_assert(sizeof(d) == sizeof(bits));
      std::memcpy(&d, &bits, sizeof(d));
      return d;
    }
    default:
      return static_cast<double>(rng() % 100000) / 1000.0;
  }
}

std::string random_label_value(std::mt19937_64& rng) {
  static const std::string alphabet = "ab_1\\\"\n {}=,\xc3\xa9";
  std::string value;
  const std::size_t length = rng() % 12;
  for (std::size_t i = 0; i < length; ++i) value += alphabet[rng() % alphabet.size()];
  return value;
}

MetricFamily random_family(std::mt19937_64& rng, int index) {
  static const MetricType types[] = {MetricType::Counter, MetricType::Gauge, MetricType::Summary,
                                     MetricType::Untyped, MetricType::Histogram};
  MetricFamily family;
  family.name = "rdma_family_" + std::to_string(index);
  family.help = rng() % 4 == 0 ? "" : "help of " + family.name + " \\ \"as is\"";
  family.type = types[rng() % 5];
  const std::size_t metrics = rng() % 6;
  for (std::size_t m = 0; m < metrics; ++m) {
    ClientMetric metric;
    const std::size_t labels = rng() % 4;
    for (std::size_t l = 0; l < labels; ++l) {
      metric.label.push_back({"label_" + std::to_string(l), random_label_value(rng)});
    }
    if (rng() % 8 == 0) metric.timestamp_ms = static_cast<std::int64_t>(rng() >> 20) - (1LL << 42);
    metric.counter.value = edge_value(rng);
    metric.gauge.value = edge_value(rng);
    metric.untyped.value = edge_value(rng);
    metric.summary.sample_count = rng();
    metric.summary.sample_sum = edge_value(rng);
    for (std::size_t q = rng() % 4; q > 0; --q) {
      metric.summary.quantile.push_back({edge_value(rng), edge_value(rng)});
    }
    metric.histogram.sample_count = rng();
    metric.histogram.sample_sum = edge_value(rng);
    for (std::size_t b = rng() % 5; b > 0; --b) {
      metric.histogram.bucket.push_back({rng(), edge_value(rng)});
    }
    family.metric.push_back(std::move(metric));
  }
  return family;
}

}  // namespace

TEST_CASE("the text exposition is what prometheus-cpp's TextSerializer writes", "[exposition]") {
  std::mt19937_64 rng(18);
  const prometheus::TextSerializer serializer;
  for (int round = 0; round < 400; ++round) {
    std::vector<MetricFamily> families;
    for (int f = static_cast<int>(rng() % 6); f > 0; --f) {
      families.push_back(random_family(rng, f));
    }
    std::string ours = "kept\n";  // appended to, never replaced
    append_text_exposition(ours, families);
    const std::string theirs = "kept\n" + serializer.Serialize(families);
    std::size_t differ = 0;
    while (differ < ours.size() && differ < theirs.size() && ours[differ] == theirs[differ]) {
      ++differ;
    }
    const std::size_t from = differ > 60 ? differ - 60 : 0;
    INFO("round " << round << ", first difference at byte " << differ << ":\nours:   "
                  << ours.substr(from, 120) << "\ntheirs: " << theirs.substr(from, 120));
    REQUIRE(ours == theirs);
  }
}

TEST_CASE("the text exposition formats the edges of %.16g as printf does", "[exposition]") {
  MetricFamily family;
  family.name = "x";
  family.type = MetricType::Gauge;
  for (const double v : {1e15 + 0.5, 1e16, 9007199254740993.0, -0.0, 1e-5}) {
    ClientMetric metric;
    metric.gauge.value = v;
    family.metric.push_back(metric);
  }
  std::string out;
  append_text_exposition(out, {family});
  CHECK(out == "# TYPE x gauge\nx 1000000000000000\nx 1e+16\nx 9007199254740992\nx -0\nx 1e-05\n");
}

TEST_CASE("a label value is escaped wherever its escaped byte sits", "[exposition]") {
  // A label's value is tested eight bytes at a time: put each escaped byte at every position of
  // values that span one, two and three words and a tail, among bytes next to it in value
  // ('!' is '"' - 1, '[' and ']' surround '\\', tab and VT surround '\n'), and compare with an
  // escape written byte by byte.
  const auto reference = [](std::string_view value) {
    std::string out;
    for (const char c : value) {
      if (c == '\\') {
        out += "\\\\";
      } else if (c == '"') {
        out += "\\\"";
      } else if (c == '\n') {
        out += "\\n";
      } else {
        out += c;
      }
    }
    return out;
  };
  const std::string filler = "![]\t\v#a\xc3\xa9";
  std::size_t escaped = 0;
  for (std::size_t length = 0; length <= 25; ++length) {
    std::string plain;
    for (std::size_t i = 0; i < length; ++i) plain += filler[i % filler.size()];
    std::string out = "kept";
    append_label(out, true, "l", plain);
    CHECK(out == "kept" + ("l=\"" + plain + "\""));
    for (const char special : {'\\', '"', '\n'}) {
      for (std::size_t at = 0; at < length; ++at) {
        std::string value = plain;
        value[at] = special;
        std::string written = "kept";
        append_label(written, true, "l", value);
        INFO("length " << length << ", byte " << int(special) << " at " << at);
        CHECK(written == "kept" + ("l=\"" + reference(value) + "\""));
        ++escaped;
      }
    }
  }
  CHECK(escaped == 3 * (25 * 26 / 2));
}

TEST_CASE("a TextBuffer keeps its text across growth and writes after a clear", "[exposition]") {
  // LineWriter reserves more than it writes (a value's bound is 32 bytes) and gives the rest
  // back: the text is what was written, in order, whether or not the room had to grow under
  // it, and a cleared buffer is written from its start again.
  TextBuffer buffer;
  std::string want;
  for (int i = 0; i < 500; ++i) {
    {
      LineWriter line(buffer, LineWriter::kMaxValueText + 8);
      line.text("x{a=\"");
      line.label_value(i % 7 == 0 ? "q\"" : "v");
      line.text("\"} ");
      line.value(i * 1.5);
      line.text('\n');
    }
    want += "x{a=\"" + std::string(i % 7 == 0 ? "q\\\"" : "v") + "\"} ";
    char number[32];
    std::snprintf(number, sizeof number, "%.16g", i * 1.5);
    want += std::string(number) + "\n";
    REQUIRE(buffer.view() == want);
  }
  CHECK(buffer.size() == want.size());
  buffer.clear();
  CHECK(buffer.size() == 0);
  {
    LineWriter line(buffer, 64);
    line.text("again ");
    line.value(-0.0);
  }
  CHECK(buffer.view() == "again -0");
}

TEST_CASE("a raw counter is written as its value as a double would be", "[exposition]") {
  // counter_value formats counts below 2^53 as integers and larger ones through the double:
  // either way the text is printf's "%.16g" of the count made a double, as value() writes it
  // (the counts around 2^53 and 1e16 are where the two ways could part).
  const std::uint64_t two53 = std::uint64_t{1} << 53;
  const std::uint64_t counts[] = {0,
                                  1,
                                  9,
                                  10,
                                  4294967295U,
                                  4294967296U,
                                  two53 - 1,
                                  two53,
                                  two53 + 1,
                                  9999999999999999ULL,
                                  10000000000000000ULL,
                                  10000000000000001ULL,
                                  18446744073709551615ULL};
  for (const std::uint64_t count : counts) {
    TextBuffer as_counter;
    TextBuffer as_double;
    {
      LineWriter line(as_counter, LineWriter::kMaxValueText);
      line.counter_value(count);
    }
    {
      LineWriter line(as_double, LineWriter::kMaxValueText);
      line.value(static_cast<double>(count));
    }
    char printed[40];
    std::snprintf(printed, sizeof printed, "%.16g", static_cast<double>(count));
    INFO("count " << count);
    CHECK(as_counter.view() == as_double.view());
    CHECK(as_counter.view() == std::string_view(printed));
  }
}
