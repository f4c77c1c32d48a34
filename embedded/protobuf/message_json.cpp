#include "embedded/protobuf/message_json.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "kube/http/base64.h"
#include "kube/model/quantity.h"
#include "kube/model/time.h"
#include "proto/k8s/intstr.pb.h"
#include "proto/k8s/json.pb.h"
#include "proto/k8s/meta.pb.h"
#include "proto/k8s/resource.pb.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;
namespace pb = google::protobuf;
using K8sQuantity = ::k8s::io::apimachinery::pkg::api::resource::Quantity;
using K8sIntOrString = ::k8s::io::apimachinery::pkg::util::intstr::IntOrString;
using K8sTime = ::k8s::io::apimachinery::pkg::apis::meta::v1::Time;
using K8sMicroTime = ::k8s::io::apimachinery::pkg::apis::meta::v1::MicroTime;

// Go's zero time.Time in Unix seconds; its JSON form is null, as for an empty Time.
constexpr std::int64_t kGoZeroTimeSeconds = -62135596800;
// TimePoint counts nanoseconds in 64 bits: about ±292 years around 1970.
constexpr std::int64_t kMaxTimeSeconds = 9'223'372'035;

bj::object object_json(const pb::Message& message, const std::string& path);

std::string child(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

std::string where(const std::string& path) { return path.empty() ? "" : " at " + path; }

// Go writes every non-pointer field, zero ones as empty values; only unknown fields that carry
// something would be lost by decoding into this server's subset of the schema.
bool carries_value(const pb::UnknownField& field) {
  switch (field.type()) {
    case pb::UnknownField::TYPE_VARINT:
      return field.varint() != 0;
    case pb::UnknownField::TYPE_FIXED32:
      return field.fixed32() != 0;
    case pb::UnknownField::TYPE_FIXED64:
      return field.fixed64() != 0;
    case pb::UnknownField::TYPE_LENGTH_DELIMITED:
      return !field.length_delimited().empty();
    case pb::UnknownField::TYPE_GROUP:
      return true;
  }
  return true;
}

void check_unknown_fields(const pb::Message& message, const std::string& path) {
  const pb::UnknownFieldSet& unknown = message.GetReflection()->GetUnknownFields(message);
  for (int i = 0; i < unknown.field_count(); ++i) {
    if (!carries_value(unknown.field(i))) continue;
    throw ProtobufContentError("field " + std::to_string(unknown.field(i).number()) + " of " +
                               message.GetDescriptor()->full_name() + where(path) +
                               " is not supported by this server");
  }
}

bj::value quantity_json(const K8sQuantity& quantity, const std::string& path) {
  std::string error;
  std::optional<kube::Quantity> parsed = kube::Quantity::try_parse(quantity.string(), &error);
  if (!parsed) {
    throw ProtobufContentError("invalid quantity \"" + quantity.string() + "\"" + where(path) +
                               ": " + error);
  }
  return bj::string(parsed->to_string());
}

template <typename TimeMessage>
bj::value time_json(const TimeMessage& time, bool micro, const std::string& path) {
  if (!time.has_seconds() && !time.has_nanos()) return nullptr;
  if (time.seconds() == kGoZeroTimeSeconds && time.nanos() == 0) return nullptr;
  if (time.seconds() < -kMaxTimeSeconds || time.seconds() > kMaxTimeSeconds || time.nanos() < 0 ||
      time.nanos() > 999'999'999) {
    throw ProtobufContentError("time out of range" + where(path) + ": " +
                               std::to_string(time.seconds()) + "s " +
                               std::to_string(time.nanos()) + "ns");
  }
  kube::TimePoint t{std::chrono::seconds(time.seconds()) + std::chrono::nanoseconds(time.nanos())};
  return bj::string(micro ? kube::format_rfc3339_micro(t) : kube::format_rfc3339(t));
}

bj::value int_or_string_json(const K8sIntOrString& value, const std::string& path) {
  if (value.type() == 0) return value.intval();
  if (value.type() == 1) return bj::string(value.strval());
  throw ProtobufContentError("IntOrString of unknown type " + std::to_string(value.type()) +
                             where(path));
}

// The apimachinery types with a JSON form of their own, else a plain object.
bj::value message_json(const pb::Message& message, const std::string& path) {
  if (const auto* q = pb::DynamicCastToGenerated<K8sQuantity>(&message)) {
    return quantity_json(*q, path);
  }
  if (const auto* t = pb::DynamicCastToGenerated<K8sTime>(&message)) {
    return time_json(*t, false, path);
  }
  if (const auto* t = pb::DynamicCastToGenerated<K8sMicroTime>(&message)) {
    return time_json(*t, true, path);
  }
  if (const auto* v = pb::DynamicCastToGenerated<K8sIntOrString>(&message)) {
    return int_or_string_json(*v, path);
  }
  return object_json(message, path);
}

// A scalar field's value; index < 0 for a singular field (its default when unset).
bj::value scalar_json(const pb::Message& m, const pb::FieldDescriptor* f, int index) {
  const pb::Reflection* r = m.GetReflection();
  const bool repeated = index >= 0;
  switch (f->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32:
      return repeated ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f);
    case pb::FieldDescriptor::CPPTYPE_INT64:
      return repeated ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f);
    case pb::FieldDescriptor::CPPTYPE_UINT32:
      return repeated ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f);
    case pb::FieldDescriptor::CPPTYPE_UINT64:
      return repeated ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f);
    case pb::FieldDescriptor::CPPTYPE_DOUBLE:
      return repeated ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f);
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
      return repeated ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f);
    case pb::FieldDescriptor::CPPTYPE_BOOL:
      return repeated ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f);
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      const pb::EnumValueDescriptor* e =
          repeated ? r->GetRepeatedEnum(m, f, index) : r->GetEnum(m, f);
      return bj::string(e->name());
    }
    case pb::FieldDescriptor::CPPTYPE_STRING: {
      std::string s = repeated ? r->GetRepeatedString(m, f, index) : r->GetString(m, f);
      // []byte is base64 in Go's JSON.
      if (f->type() == pb::FieldDescriptor::TYPE_BYTES) return bj::string(kube::base64_encode(s));
      return bj::string(s);
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE:
      break;
  }
  throw std::logic_error("scalar_json on a message field");
}

bool is_zero(const bj::value& v) {
  if (v.is_string()) return v.get_string().empty();
  if (v.is_bool()) return !v.get_bool();
  if (v.is_int64()) return v.get_int64() == 0;
  if (v.is_uint64()) return v.get_uint64() == 0;
  if (v.is_double()) return v.get_double() == 0;
  return v.is_null();
}

bj::value element_json(const pb::Message& m, const pb::FieldDescriptor* f, int index,
                       const std::string& path) {
  if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) return scalar_json(m, f, index);
  return message_json(m.GetReflection()->GetRepeatedMessage(m, f, index), path);
}

// Go sorts map keys when it writes JSON.
bj::object map_json(const pb::Message& m, const pb::FieldDescriptor* f, const std::string& path) {
  const pb::Reflection* r = m.GetReflection();
  const pb::FieldDescriptor* key_field = f->message_type()->map_key();
  const pb::FieldDescriptor* value_field = f->message_type()->map_value();
  std::vector<std::pair<std::string, bj::value>> entries;
  for (int i = 0; i < r->FieldSize(m, f); ++i) {
    const pb::Message& entry = r->GetRepeatedMessage(m, f, i);
    check_unknown_fields(entry, path);
    bj::value key = scalar_json(entry, key_field, -1);
    std::string name = key.is_string() ? std::string(key.get_string()) : bj::serialize(key);
    std::string at = path + "[" + name + "]";
    const pb::Reflection* er = entry.GetReflection();
    bj::value value = value_field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE
                          ? message_json(er->GetMessage(entry, value_field), at)
                          : scalar_json(entry, value_field, -1);
    entries.emplace_back(std::move(name), std::move(value));
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  bj::object out;
  for (auto& [key, value] : entries) out[key] = std::move(value);  // the last duplicate wins
  return out;
}

bj::array array_json(const pb::Message& m, const pb::FieldDescriptor* f, const std::string& path) {
  bj::array out;
  const int n = m.GetReflection()->FieldSize(m, f);
  out.reserve(n);
  for (int i = 0; i < n; ++i) {
    out.push_back(element_json(m, f, i, path + "[" + std::to_string(i) + "]"));
  }
  return out;
}

void add_message_field(bj::object& out, const pb::Message& m, const pb::FieldDescriptor* f,
                       const std::string& path) {
  const pb::Reflection* r = m.GetReflection();
  if (!r->HasField(m, f)) return;
  if (f->options().GetExtension(tailor::gojson::embedded)) {
    bj::object inner = object_json(r->GetMessage(m, f), path);
    for (auto& member : inner) out[member.key()] = std::move(member.value());
    return;
  }
  out[f->json_name()] = message_json(r->GetMessage(m, f), child(path, f->json_name()));
}

// Non-pointer scalars are on the wire even when zero: JSON shows them unless omitempty drops
// the zero; pointers show whenever sent.
void add_scalar_field(bj::object& out, const pb::Message& m, const pb::FieldDescriptor* f) {
  const pb::FieldOptions& options = f->options();
  const bool present = m.GetReflection()->HasField(m, f);
  if (options.GetExtension(tailor::gojson::pointer)) {
    if (present) out[f->json_name()] = scalar_json(m, f, -1);
    return;
  }
  bj::value value = scalar_json(m, f, -1);
  if (options.GetExtension(tailor::gojson::always) || !is_zero(value)) {
    out[f->json_name()] = std::move(value);
  }
}

void add_field(bj::object& out, const pb::Message& m, const pb::FieldDescriptor* f,
               const std::string& path) {
  const std::string& name = f->json_name();
  if (f->is_map()) {
    if (m.GetReflection()->FieldSize(m, f) > 0) out[name] = map_json(m, f, child(path, name));
  } else if (f->is_repeated()) {
    if (m.GetReflection()->FieldSize(m, f) > 0) out[name] = array_json(m, f, child(path, name));
  } else if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
    add_message_field(out, m, f, path);
  } else {
    add_scalar_field(out, m, f);
  }
}

bj::object object_json(const pb::Message& message, const std::string& path) {
  check_unknown_fields(message, path);
  bj::object out;
  const pb::Descriptor* d = message.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) add_field(out, message, d->field(i), path);
  return out;
}

}  // namespace

bj::object message_to_json(const pb::Message& message) { return object_json(message, ""); }

}  // namespace tailor::embedded
