#include "collector/source/rdma_netlink_source.h"

#include <linux/netlink.h>

#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <utility>

#include "collector/source/netlink_socket.h"

namespace rdmatop {
namespace {

/// A request out, its whole reply back.
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual Result<std::vector<std::uint8_t>> exchange(const std::vector<std::uint8_t>& request,
                                                     std::uint32_t seq) = 0;
};

class SocketExchange final : public Exchange {
 public:
  SocketExchange() : nl_(NETLINK_RDMA) {}

  Result<std::vector<std::uint8_t>> exchange(const std::vector<std::uint8_t>& request,
                                             std::uint32_t seq) override {
    // A dump spans as many datagrams as it needs; each ends on a message boundary, so they
    // concatenate into one reply. The receive timeout bounds the loop if the end never comes.
    return nl_.exchange(request, [seq](std::span<const std::uint8_t> datagram) {
      return nldev_reply_complete(datagram, seq);
    });
  }

 private:
  NetlinkSocket nl_;
};

constexpr std::size_t kSeqOffset = offsetof(nlmsghdr, nlmsg_seq);

void set_seq(std::vector<std::uint8_t>& message, std::uint32_t seq) {
  std::memcpy(message.data() + kSeqOffset, &seq, sizeof(seq));
}

class ReplayExchange final : public Exchange {
 public:
  explicit ReplayExchange(NetlinkRecording recording) : recording_(std::move(recording)) {}

  Result<std::vector<std::uint8_t>> exchange(const std::vector<std::uint8_t>& request,
                                             std::uint32_t seq) override {
    std::vector<std::uint8_t> key = request;
    if (key.size() >= sizeof(nlmsghdr)) set_seq(key, 0);
    const auto it = recording_.find(key);
    if (it == recording_.end()) {
      return Error{ENODATA, "netlink replay: no recorded reply for this request"};
    }
    std::vector<std::uint8_t> reply = it->second;
    // Restamp whole messages only; damaged recordings stay damaged for the parser to reject.
    std::size_t offset = 0;
    while (reply.size() - offset >= sizeof(nlmsghdr)) {
      std::uint32_t len = 0;
      std::memcpy(&len, reply.data() + offset, sizeof(len));
      if (len < sizeof(nlmsghdr) || len > reply.size() - offset) break;
      std::memcpy(reply.data() + offset + kSeqOffset, &seq, sizeof(seq));
      offset += NLMSG_ALIGN(len);
    }
    return reply;
  }

 private:
  NetlinkRecording recording_;
};

/// "RDMA_NLDEV_CMD_RES_QP_GET" for qp: the command's uAPI name, for messages.
std::string res_dump_command(NldevResKind kind) {
  std::string name = to_string(kind);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "RDMA_NLDEV_CMD_RES_" + name + "_GET";
}

class NldevClient final : public RdmaNetlinkSource {
 public:
  explicit NldevClient(std::unique_ptr<Exchange> exchange) : exchange_(std::move(exchange)) {}

  Result<std::vector<NldevDevice>> devices() override {
    return transact<std::vector<NldevDevice>>("RDMA_NLDEV_CMD_GET", build_dev_get_request,
                                              parse_dev_get_reply);
  }
  Result<std::vector<NldevPort>> ports(std::uint32_t dev_index) override {
    return transact<std::vector<NldevPort>>(
        "RDMA_NLDEV_CMD_PORT_GET",
        [&](std::uint32_t seq) { return build_port_get_request(dev_index, seq); },
        parse_port_get_reply);
  }
  Result<CounterMap> port_counters(std::uint32_t dev_index, std::uint32_t port) override {
    return transact<CounterMap>(
        "RDMA_NLDEV_CMD_STAT_GET",
        [&](std::uint32_t seq) { return build_stat_get_request(dev_index, port, seq); },
        parse_stat_get_reply);
  }
  Result<std::vector<NldevCounterStatus>> counter_status(std::uint32_t dev_index,
                                                         std::uint32_t port) override {
    return transact<std::vector<NldevCounterStatus>>(
        "RDMA_NLDEV_CMD_STAT_GET_STATUS",
        [&](std::uint32_t seq) { return build_stat_get_status_request(dev_index, port, seq); },
        parse_stat_get_status_reply);
  }
  Result<std::vector<NldevResources>> resources() override {
    return transact<std::vector<NldevResources>>("RDMA_NLDEV_CMD_RES_GET", build_res_get_request,
                                                 parse_res_get_reply);
  }
  Result<std::vector<NldevResOwner>> resource_owners(NldevResKind kind,
                                                     std::uint32_t dev_index) override {
    return transact<std::vector<NldevResOwner>>(
        res_dump_command(kind),
        [&](std::uint32_t seq) { return build_res_dump_request(kind, dev_index, seq); },
        [&](std::span<const std::uint8_t> reply, std::uint32_t seq) {
          return parse_res_dump_reply(kind, reply, seq);
        });
  }
  Result<NldevQpCounterMode> qp_counter_mode(std::uint32_t dev_index, std::uint32_t port) override {
    return transact<NldevQpCounterMode>(
        "RDMA_NLDEV_CMD_STAT_GET (QP counter mode)",
        [&](std::uint32_t seq) { return build_qp_counter_mode_request(dev_index, port, seq); },
        parse_qp_counter_mode_reply);
  }
  Result<std::vector<NldevBoundCounter>> bound_counters(std::uint32_t dev_index,
                                                        std::uint32_t port) override {
    return transact<std::vector<NldevBoundCounter>>(
        "RDMA_NLDEV_CMD_STAT_GET (bound counters)",
        [&](std::uint32_t seq) { return build_bound_counters_request(dev_index, port, seq); },
        parse_bound_counters_reply);
  }

  Result<NldevQpCounterBinding> bind_qp_counter(std::uint32_t dev_index, std::uint32_t port,
                                                std::uint32_t qpn) override {
    return transact<NldevQpCounterBinding>(
        "RDMA_NLDEV_CMD_STAT_SET (bind QP counter)",
        [&](std::uint32_t seq) { return build_qp_counter_bind_request(dev_index, port, qpn, seq); },
        parse_qp_counter_bind_reply);
  }

 private:
  template <class T>
  Result<T> transact(
      const std::string& what, const std::function<std::vector<std::uint8_t>(std::uint32_t)>& build,
      const std::function<Result<T>(std::span<const std::uint8_t>, std::uint32_t)>& parse) {
    const std::uint32_t seq = ++seq_;
    auto reply = exchange_->exchange(build(seq), seq);
    Result<T> r = reply ? parse(*reply, seq) : Result<T>(reply.error());
    if (!r) return Error{r.error().code, what + ": " + r.error().message};
    return r;
  }

  std::unique_ptr<Exchange> exchange_;
  std::uint32_t seq_ = 0;
};

}  // namespace

std::unique_ptr<RdmaNetlinkSource> make_live_rdma_netlink_source() {
  return std::make_unique<NldevClient>(std::make_unique<SocketExchange>());
}

std::unique_ptr<RdmaNetlinkSource> make_replay_rdma_netlink_source(NetlinkRecording recording) {
  return std::make_unique<NldevClient>(std::make_unique<ReplayExchange>(std::move(recording)));
}

}  // namespace rdmatop
