// The format parsers, one per file (parse_<format>.cpp), each a pure function of a Section
// (capture_facts.h). formats() lists them in this order.
#pragma once

#include "collector/capture/capture_facts.h"

namespace rdmatop::capture {

FormatParser ttar_format();             // prometheus/procfs ttar archives of sysfs
FormatParser sysfs_values_format();     // grep "" .../*, cat loops, find-cat, tail -n +1
FormatParser ethtool_stats_format();    // ethtool -S (whole or grep fragments)
FormatParser ethtool_info_format();     // ethtool -i
FormatParser ethtool_pause_format();    // ethtool -a / -I -a
FormatParser rdma_statistic_format();   // rdma statistic [show [link X]]
FormatParser rdma_link_format();        // rdma link [show]
FormatParser rdma_dev_format();         // rdma dev [show]
FormatParser ibstat_format();           // ibstat
FormatParser ibv_devinfo_format();      // ibv_devinfo [-v]
FormatParser ibdev2netdev_format();     // ibdev2netdev [-v] [| column -t]
FormatParser ip_link_format();          // ip addr / ip link / ip -s link
FormatParser ls_links_format();         // ls -l[R] /sys/class/infiniband
FormatParser show_gids_format();        // show_gids
FormatParser dcb_format();              // dcb pfc|ets|app show dev IF
FormatParser mlnx_qos_format();         // mlnx_qos -i IF
FormatParser perfquery_format();        // perfquery [-x]
FormatParser lldptool_format();         // lldptool -t -i IF [-n] [-V TLV]
FormatParser ethtool_tunable_format();  // ethtool --get-tunable IF ...
FormatParser proc_interrupts_format();  // cat /proc/interrupts

// iproute2's rdma JSON, resource and QP counter mode outputs, and devlink's (issue #16).
FormatParser rdma_statistic_json_format();  // rdma statistic [show] -j / -p
FormatParser rdma_resource_format();        // rdma resource [show] (the summary), -j
FormatParser rdma_res_objects_format();     // rdma resource show qp|cq|mr|pd, -j
FormatParser rdma_qp_mode_format();         // rdma statistic qp mode, -j
FormatParser rdma_qp_counters_format();     // rdma statistic qp show, -j
FormatParser devlink_info_format();         // devlink dev info, -j
FormatParser devlink_health_format();       // devlink health [show], -j

}  // namespace rdmatop::capture
