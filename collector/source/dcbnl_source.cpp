#include "collector/source/dcbnl_source.h"

#include <linux/netlink.h>

#include "collector/parse/dcbnl_parse.h"
#include "collector/source/netlink_socket.h"

namespace rdmatop {
namespace {

class LiveDcbSource final : public DcbSource {
 public:
  LiveDcbSource() : nl_(NETLINK_ROUTE) {}

  Result<DcbInfo> ieee(const std::string& ifname) override {
    const std::uint32_t seq = ++seq_;
    auto reply =
        nl_.exchange(build_dcb_ieee_get_request(ifname, seq),
                     [&](std::span<const std::uint8_t> r) { return dcb_reply_complete(r, seq); });
    Result<DcbInfo> info =
        reply ? parse_dcb_ieee_reply(*reply, seq) : Result<DcbInfo>(reply.error());
    if (!info) return Error{info.error().code, "dcb ieee " + ifname + ": " + info.error().message};
    return info;
  }

 private:
  NetlinkSocket nl_;
  std::uint32_t seq_ = 0;
};

}  // namespace

std::unique_ptr<DcbSource> make_live_dcb_source() {
  return std::make_unique<LiveDcbSource>();
}

}  // namespace rdmatop
