// The capture reader's rdma statistic qp show parser (collector/capture/, docs/capture.md).
#include "fuzz/capture_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return rdmatop::fuzz::run_capture_format(rdmatop::capture::rdma_qp_counters_format(), data, size);
}
