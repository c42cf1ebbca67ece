// Binding a probe QP to a counter of its own through RDMA netlink, against recorded kernel
// replies (the replay source answers each request with its recorded reply): the device index
// comes from the device list, success gives the kernel's counter id, and each refusal the
// kernel can give (nldev.c nldev_stat_set_doit, counters.c rdma_counter_bind_qpn_alloc,
// netlink.c rdma_nl_rcv_msg) becomes a reason in words.
#include "probes/qp_counter_binding.h"

#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>

#include <catch2/catch.hpp>
#include <cerrno>

#include "tests/support/nldev_messages.h"

namespace rdmatop::probes {
namespace {

using testing::Reply;

NetlinkRecording recording(const std::vector<std::uint8_t>& bind_reply,
                           std::optional<std::uint32_t> mode = std::nullopt) {
  NetlinkRecording r;
  r[build_dev_get_request(0)] =
      Reply().message(RDMA_NLDEV_CMD_GET, 0, testing::device(3, "rxe0", 1, 0x1)).done(0).bytes();
  r[build_qp_counter_bind_request(3, 1, 17, 0)] = bind_reply;
  if (mode) {
    r[build_qp_counter_mode_request(3, 1, 0)] =
        Reply()
            .message(
                RDMA_NLDEV_CMD_STAT_GET, 0,
                testing::qp_counter_mode(3, 1, *mode, *mode == RDMA_COUNTER_MODE_AUTO ? 1 : -1))
            .ack(0)
            .bytes();
  }
  return r;
}

QpCounterBinding bind_replayed(NetlinkRecording r, const std::string& device = "rxe0") {
  auto netlink = make_replay_rdma_netlink_source(std::move(r));
  return bind_qp_counter(*netlink, device, 1, 17);
}

}  // namespace

TEST_CASE("qp counter binding: the kernel's counter id on success", "[probes][qp_counter]") {
  const auto ok = Reply()
                      .message(RDMA_NLDEV_CMD_STAT_SET, 0,
                               [](nlmsghdr* nlh) {
                                 mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
                                 mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
                                 mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
                                 mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 9);
                                 mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 17);
                               })
                      .ack(0)
                      .bytes();
  CHECK(bind_replayed(recording(ok)) == QpCounterBinding{9u, ""});
}

TEST_CASE("qp counter binding: each refusal in words", "[probes][qp_counter]") {
  struct Case {
    int err;
    std::optional<std::uint32_t> mode;  ///< the port's mode, read only after EINVAL
    std::string note;
  };
  const Case cases[] = {
      {EPERM, std::nullopt, "rxe0/1: binding QP counters not permitted (needs CAP_NET_ADMIN)"},
      {ENOMEM, std::nullopt, "rxe0/1: driver cannot bind QP counters or has none left (ENOMEM)"},
      {EOPNOTSUPP, std::nullopt, "rxe0/1: no hardware counters on this port (EOPNOTSUPP)"},
      {ENOENT, std::nullopt, "rxe0/1: the kernel does not know QP 17 (ENOENT)"},
      {EINVAL, RDMA_COUNTER_MODE_AUTO,
       "rxe0/1: port in auto mode, the kernel binds QPs itself (EINVAL)"},
      {EINVAL, RDMA_COUNTER_MODE_NONE,
       "rxe0/1: bind refused (EINVAL: RDMA_NLDEV_CMD_STAT_SET (bind QP counter): Invalid argument "
       "(bad port))"},
      {EBUSY, std::nullopt,
       "rxe0/1: bind refused (EBUSY: RDMA_NLDEV_CMD_STAT_SET (bind QP counter): Device or "
       "resource busy (bad port))"},
  };
  for (const Case& c : cases) {
    INFO(c.err);
    const auto b = bind_replayed(recording(Reply().error(0, -c.err, "bad port").bytes(), c.mode));
    CHECK_FALSE(b.counter_id.has_value());
    CHECK(b.note == c.note);
  }
}

TEST_CASE("qp counter binding: a device the kernel does not list, or no netlink",
          "[probes][qp_counter]") {
  const auto refused = Reply().error(0, -ENOMEM).bytes();
  CHECK(bind_replayed(recording(refused), "mlx5_0").note ==
        "mlx5_0/1: device not in the RDMA netlink list");
  const auto none = bind_replayed({});
  CHECK_FALSE(none.counter_id.has_value());
  CHECK(none.note.rfind("rxe0/1: cannot list RDMA devices: ", 0) == 0);
}

}  // namespace rdmatop::probes
