// List continuation tokens: base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"<key>\u0000"}, the
// shape kube-apiserver uses; clients treat them as opaque.
#include "embedded/api/rest.h"
#include "kube/http/base64.h"

namespace tailor::embedded {

std::string encode_continue(const std::string& last_key, std::uint64_t resource_version) {
  bj::object token{{"v", "meta.k8s.io/v1"}, {"rv", resource_version}, {"start", last_key + '\0'}};
  return kube::base64_encode(bj::serialize(token));
}

std::pair<std::string, std::uint64_t> decode_continue(const std::string& token) {
  try {
    bj::value v = bj::parse(kube::base64_decode(token));
    const bj::object& o = v.as_object();
    if (o.at("v").as_string() != "meta.k8s.io/v1") throw std::invalid_argument("version");
    std::string start(o.at("start").as_string());
    if (start.empty() || start.back() != '\0') throw std::invalid_argument("start");
    start.pop_back();
    return {start, o.at("rv").to_number<std::uint64_t>()};
  } catch (const std::exception&) {
    throw bad_request(
        "continue key is not valid: incorrect encoded start resourceVersion (version "
        "meta.k8s.io/v1)");
  }
}

}  // namespace tailor::embedded
