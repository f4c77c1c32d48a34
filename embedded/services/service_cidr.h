// The service IP range of tailor-cluster (kube-apiserver's --service-cluster-ip-range): IPv4
// only, as the rest of the cluster is single-stack. Pure: parsing, membership and the choice of
// a free address; who holds which address is the caller's (cluster_ips.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tailor::embedded {

// "10.0.0.1" as a host-order number; nullopt unless four decimal octets (no leading zeros, as
// Go's netip).
std::optional<std::uint32_t> parse_ipv4(std::string_view text);
std::string format_ipv4(std::uint32_t ip);

class ServiceCidr {
 public:
  // "10.96.0.0/24"; throws std::invalid_argument for anything else, for host bits set (as
  // net.ParseCIDR's caller does: the range must be a network), and outside /8 to /30.
  static ServiceCidr parse(const std::string& cidr);

  const std::string& text() const { return text_; }
  // Inside the range and neither its network nor its broadcast address (never allocated).
  bool allocatable(std::uint32_t ip) const;
  // The first allocatable address: the `kubernetes` Service's (kube-apiserver's
  // GetIndexedIP(range, 1)).
  std::uint32_t first() const { return base_ + 1; }
  // Allocatable addresses (network and broadcast excluded).
  std::uint32_t size() const { return size_; }
  // The lower band kept for addresses asked for by name (KEP-3070):
  // min(max(16, range size / 16), 256), 0 when the range has 16 addresses or fewer.
  std::uint32_t static_band() const;
  // A free address as kube-apiserver's allocator picks one: from a random point of the upper
  // band onwards (wrapping inside it), then the lower band from its start; nullopt when full.
  // `random` picks the point; `taken` says which addresses are held.
  std::optional<std::uint32_t> next_free(const std::function<bool(std::uint32_t)>& taken,
                                         std::uint64_t random) const;

 private:
  std::string text_;
  std::uint32_t base_ = 0;  // network address
  std::uint32_t size_ = 0;  // allocatable addresses: base_+1 .. base_+size_
};

}  // namespace tailor::embedded
