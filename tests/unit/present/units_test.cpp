#include <catch2/catch.hpp>
#include <clocale>

#include "present/text_table.h"
#include "present/units.h"

using rdmatop::Rate;
using rdmatop::RateState;

TEST_CASE("format_si scales by thousands and trims zeros", "[units]") {
  CHECK(rdmatop::format_si(0) == "0");
  CHECK(rdmatop::format_si(12.5) == "12.5");
  CHECK(rdmatop::format_si(999) == "999");
  CHECK(rdmatop::format_si(1000) == "1k");
  CHECK(rdmatop::format_si(1234567) == "1.23M");
  CHECK(rdmatop::format_si(-2500) == "-2.5k");
  CHECK(rdmatop::format_si(1.8e19) == "18E");
}

TEST_CASE("format_bytes and format_percent", "[units]") {
  CHECK(rdmatop::format_bytes(980) == "980 B");
  CHECK(rdmatop::format_bytes(1.25e9) == "1.25 GB");
  CHECK(rdmatop::format_bytes_iec(980) == "980 B");
  CHECK(rdmatop::format_bytes_iec(65536) == "64 KiB");
  CHECK(rdmatop::format_bytes_iec(8388608) == "8 MiB");
  CHECK(rdmatop::format_bytes_iec(1.5 * 1073741824.0) == "1.5 GiB");
  CHECK(rdmatop::format_bytes_iec(1023) == "1023 B");
  CHECK(rdmatop::format_percent(0.973) == "97.3%");
  CHECK(rdmatop::format_percent(1.0) == "100%");
}

TEST_CASE("format_rate shows the state instead of a number unless ok or wrap", "[units]") {
  CHECK(rdmatop::format_rate(Rate{RateState::init, 0}, "/s") == "init");
  CHECK(rdmatop::format_rate(Rate{RateState::reset, 0}, "/s") == "reset");
  CHECK(rdmatop::format_rate(Rate{RateState::stale, 5}, "/s") == "stale");
  CHECK(rdmatop::format_rate(Rate{RateState::ok, 1500}, "/s") == "1.5k/s");
  CHECK(rdmatop::format_rate(Rate{RateState::wrap, 2e9}, " B/s") == "2 GB/s");
  CHECK(rdmatop::format_rate(Rate{RateState::ok, 0.5}, "%") == "50%");
}

TEST_CASE("number formatting ignores a comma-decimal locale", "[units]") {
  const char* previous = std::setlocale(LC_NUMERIC, nullptr);
  const std::string saved = previous ? previous : "C";
  if (std::setlocale(LC_NUMERIC, "de_DE.UTF-8") == nullptr) {
    WARN("de_DE.UTF-8 locale not installed; checking under the C locale only");
  }
  CHECK(rdmatop::format_si(12.5) == "12.5");
  CHECK(rdmatop::format_percent(0.973) == "97.3%");
  std::setlocale(LC_NUMERIC, saved.c_str());
}

TEST_CASE("TextTable aligns columns to the widest cell", "[units]") {
  rdmatop::TextTable table({"A", "LONGER"});
  table.add_row({"wide-cell", "x"});
  table.add_row({"b", ""});
  CHECK(table.render("  ") ==
        "  A          LONGER\n"
        "  wide-cell  x\n"
        "  b\n");
}

TEST_CASE("TextTable with only a header is empty", "[units]") {
  rdmatop::TextTable table({"A", "B"});
  CHECK(table.empty());
  table.add_row({"x", "y"});
  CHECK_FALSE(table.empty());
}
