// /proc/interrupts, numa_node, /proc/<pid>/limits and status, CPU lists (collector/parse/procfs_*).
#include "collector/parse/procfs_parse.h"
#include "collector/parse/procfs_process_parse.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rdmatop;
  const std::string_view text = fuzz::as_text(data, size);
  (void)parse_proc_interrupts(text);
  (void)parse_numa_node(text);
  (void)parse_proc_limits_memlock(text);
  (void)parse_proc_status(text);
  (void)parse_cpu_list(text);
  return 0;
}
