// Kubernetes' generated protobuf messages as the JSON Kubernetes would write for the same Go
// object: a walk over the message by reflection, guided by the field options of
// proto/k8s/json.proto (pointer / always / embedded) and by the apimachinery types that have
// their own JSON form (Quantity, Time, MicroTime, IntOrString).
#pragma once

#include <boost/json/fwd.hpp>
#include <stdexcept>

namespace google::protobuf {
class Message;
}

namespace tailor::embedded {

// The message cannot be shown as JSON: a field this server does not know carries a value, or
// a value is invalid (a malformed Quantity, an IntOrString of unknown type). The message says
// what and at which JSON path.
class ProtobufContentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

boost::json::object message_to_json(const google::protobuf::Message& message);

}  // namespace tailor::embedded
