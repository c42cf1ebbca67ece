// The capture reader's /proc/interrupts parser (collector/capture/, docs/capture.md).
#include "fuzz/capture_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return rdmatop::fuzz::run_capture_format(rdmatop::capture::proc_interrupts_format(), data, size);
}
