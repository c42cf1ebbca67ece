// Parsers for procfs text rdmatop reads for host readiness. Pure functions over text.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>

#include "collector/model/host_config.h"
#include "collector/model/result.h"

namespace rdmatop {

/// /proc/interrupts: the numbered IRQ rows (NMI, LOC, ... are skipped), each with its count
/// summed over the CPU columns and its action name (the text after the chip and hardware-IRQ
/// columns, e.g. "mlx5_comp3@pci:0000:3b:00.0"). Format: kernel/irq/proc.c show_interrupts.
/// Errors: EPROTO when the header has no CPU column or a numbered row is malformed.
Result<std::map<std::uint32_t, IrqSample>> parse_proc_interrupts(std::string_view text);

/// A sysfs `numa_node` attribute ("0\n"; "-1\n" = no NUMA information): nullopt for -1.
Result<std::optional<std::int32_t>> parse_numa_node(std::string_view text);

}  // namespace rdmatop
