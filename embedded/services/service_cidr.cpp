#include "embedded/services/service_cidr.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace tailor::embedded {

std::optional<std::uint32_t> parse_ipv4(std::string_view text) {
  std::uint32_t ip = 0;
  for (int octet = 0; octet < 4; ++octet) {
    if (octet > 0) {
      if (text.empty() || text.front() != '.') return std::nullopt;
      text.remove_prefix(1);
    }
    const std::size_t digits = std::min(text.find('.'), text.size());
    if (digits == 0 || digits > 3 || (digits > 1 && text.front() == '0')) return std::nullopt;
    unsigned value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + digits, value);
    if (error != std::errc() || end != text.data() + digits || value > 255) return std::nullopt;
    ip = (ip << 8) | value;
    text.remove_prefix(digits);
  }
  if (!text.empty()) return std::nullopt;
  return ip;
}

std::string format_ipv4(std::uint32_t ip) {
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." +
         std::to_string((ip >> 8) & 255) + "." + std::to_string(ip & 255);
}

ServiceCidr ServiceCidr::parse(const std::string& cidr) {
  const auto slash = cidr.find('/');
  const std::string why = "service CIDR \"" + cidr + "\": ";
  if (slash == std::string::npos) throw std::invalid_argument(why + "want ADDRESS/BITS");
  const auto address = parse_ipv4(std::string_view(cidr).substr(0, slash));
  if (!address) throw std::invalid_argument(why + "not an IPv4 address");
  int bits = -1;
  const std::string_view b = std::string_view(cidr).substr(slash + 1);
  auto [end, error] = std::from_chars(b.data(), b.data() + b.size(), bits);
  if (error != std::errc() || end != b.data() + b.size() || bits < 8 || bits > 30) {
    throw std::invalid_argument(why + "the prefix length must be 8 to 30");
  }
  const std::uint32_t mask = ~std::uint32_t{0} << (32 - bits);
  if ((*address & ~mask) != 0) throw std::invalid_argument(why + "host bits are set");
  ServiceCidr range;
  range.text_ = cidr;
  range.base_ = *address;
  range.size_ = (std::uint32_t{1} << (32 - bits)) - 2;
  return range;
}

bool ServiceCidr::allocatable(std::uint32_t ip) const { return ip > base_ && ip - base_ <= size_; }

std::uint32_t ServiceCidr::static_band() const {
  const std::uint32_t addresses = size_ + 2;
  if (addresses <= 16) return 0;
  return std::clamp<std::uint32_t>(addresses / 16, 16, 256);
}

std::optional<std::uint32_t> ServiceCidr::next_free(const std::function<bool(std::uint32_t)>& taken,
                                                    std::uint64_t random) const {
  const std::uint32_t band = static_band();
  const std::uint32_t upper = size_ - band;
  for (std::uint32_t i = 0; i < upper; ++i) {
    const std::uint32_t ip = base_ + 1 + band + static_cast<std::uint32_t>((random + i) % upper);
    if (!taken(ip)) return ip;
  }
  for (std::uint32_t i = 0; i < band; ++i) {
    if (!taken(base_ + 1 + i)) return base_ + 1 + i;
  }
  return std::nullopt;
}

}  // namespace tailor::embedded
