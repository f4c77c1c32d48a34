// The QoS class the API server records in a new pod's status.qosClass, computed by the resource
// model (kube/model/qos.h) from the pod's spec.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>

namespace tailor::embedded {

// "Guaranteed", "Burstable" or "BestEffort". A spec the model cannot read (e.g. a malformed
// quantity) is a 400, as kube-apiserver rejects it while decoding.
std::string pod_qos_class(const boost::json::object& pod);

}  // namespace tailor::embedded
