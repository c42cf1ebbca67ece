// Shared by the fuzz targets: the input as text, and a byte-order-independent split of one
// input into a selector byte and the rest, so one target can drive several entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace rdmatop::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

inline std::span<const std::uint8_t> as_bytes(const std::uint8_t* data, std::size_t size) {
  return {data, size};
}

}  // namespace rdmatop::fuzz
