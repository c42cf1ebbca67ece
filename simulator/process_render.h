// The simulated host's CPUs and RDMA processes as files, in the kernel's formats: sysfs
// devices/system/node/node<N>/cpulist (drivers/base/node.c) and /proc/<pid>/comm, limits and
// status (fs/proc/base.c, fs/proc/array.c) for every scenario process. The real process
// collector reads them next to the RDMA netlink dumps (nldev_render.h). Pure: model in, file
// image out (added to tree_render.h's image).
#pragma once

#include "simulator/host_model.h"
#include "simulator/tree_render.h"

namespace rdmatop::sim {

/// Adds "sys/devices/system/node/..." and "proc/<pid>/..." to `image`.
void render_processes(const HostModel& host, TreeImage& image);

}  // namespace rdmatop::sim
