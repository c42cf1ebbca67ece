// Human-readable numbers for text outputs. Locale-independent (fmt), so reports read the same
// under any LC_NUMERIC.
#pragma once

#include <string>

#include "collector/normalize/rates.h"

namespace rdmatop {

/// What a text cell shows where a value is absent (never a 0).
inline const std::string kAbsentCell = "-";

/// 1234567 -> "1.23M"; values below 1000 keep up to 2 decimals ("12.5", "0.25", "0").
std::string format_si(double value);
/// Bytes with binary-free SI units: "1.25 GB", "980 B".
std::string format_bytes(double bytes);
/// Memory sizes in binary units, as limits.conf, `ulimit -l` and /proc/<pid>/status think of
/// them: "64 KiB", "8 MiB", "1.5 GiB", "980 B".
std::string format_bytes_iec(double bytes);
/// A fraction 0..1 as a percentage: "97.3%".
std::string format_percent(double fraction);
/// A duration for latency columns: "850.0us", "4.25ms", "1.50s".
std::string format_seconds(double seconds);
/// A rate with its state: "init", "reset", "stale", or the formatted per-second value with
/// `suffix` ("/s", " B/s"; a suffix of "%" formats a fraction as a percentage).
std::string format_rate(const Rate& rate, const std::string& suffix);

}  // namespace rdmatop
