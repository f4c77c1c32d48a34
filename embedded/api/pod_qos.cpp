#include "embedded/api/pod_qos.h"

#include <boost/json.hpp>

#include "embedded/storage/status_error.h"
#include "kube/model/decode.h"
#include "kube/model/qos.h"

namespace tailor::embedded {

std::string pod_qos_class(const boost::json::object& pod) {
  std::string text = boost::json::serialize(pod);
  kube::reserve_json_padding(text);
  try {
    return std::string(to_string(compute_pod_qos(decode<kube::Pod>(kube::JsonInput(text)).spec)));
  } catch (const std::exception& e) {
    throw bad_request(std::string("Pod in version \"v1\" cannot be handled as a Pod: ") + e.what());
  }
}

}  // namespace tailor::embedded
