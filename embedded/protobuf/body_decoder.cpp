#include "embedded/protobuf/body_decoder.h"

#include <google/protobuf/message.h>

#include <boost/json.hpp>
#include <memory>
#include <string>

#include "embedded/protobuf/kinds.h"
#include "embedded/protobuf/message_json.h"
#include "proto/k8s/runtime.pb.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;
using Unknown = ::k8s::io::apimachinery::pkg::runtime::Unknown;
using TypeMeta = ::k8s::io::apimachinery::pkg::runtime::TypeMeta;

constexpr std::string_view kMagic{"k8s\0", 4};

// As kube-apiserver summarizes a body it could not recognize: its first 30 bytes in hex.
std::string summary(std::string_view body) {
  if (body.empty()) return "<empty>";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : body.substr(0, 30)) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return body.size() > 30 ? out + " ..." : out;
}

StatusError unrecognized(const ResourceInfo& r, const std::string& why, std::string_view body) {
  return bad_request("the object provided is unrecognized (must be of type " + r.kind +
                     "): " + why + " (" + summary(body) + ")");
}

std::string version_of(const std::string& api_version) {
  return api_version.substr(api_version.find('/') + 1);
}

StatusError cannot_handle(const TypeMeta& t, const ResourceInfo& r, const std::string& why) {
  return bad_request(t.kind() + " in version \"" + version_of(t.apiversion()) +
                     "\" cannot be handled as a " + r.kind + ": " + why);
}

Unknown envelope_of(const ResourceInfo& r, std::string_view body) {
  if (!body.starts_with(kMagic)) {
    throw unrecognized(
        r, "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]",
        body);
  }
  Unknown envelope;
  std::string_view rest = body.substr(kMagic.size());
  if (!envelope.ParseFromArray(rest.data(), static_cast<int>(rest.size()))) {
    throw unrecognized(r, "the runtime.Unknown envelope is truncated or not valid protobuf", body);
  }
  if (envelope.typemeta().kind().empty()) {
    throw unrecognized(r, "Object 'Kind' is missing in the runtime.Unknown envelope", body);
  }
  return envelope;
}

// The envelope names a kind this server decodes, and the one the URL's resource holds.
const google::protobuf::Message& checked_prototype(const TypeMeta& t, const ResourceInfo& r) {
  const google::protobuf::Message* prototype = protobuf_prototype(t.apiversion(), t.kind());
  if (!prototype) {
    throw cannot_handle(
        t, r, "no kind \"" + t.kind() + "\" is registered for version \"" + t.apiversion() + "\"");
  }
  if (t.apiversion() != r.api_version()) {
    throw bad_request("the API version in the data (" + t.apiversion() +
                      ") does not match the expected API version (" + r.api_version() + ")");
  }
  if (t.kind() != r.kind) {
    throw bad_request("the kind in the data (" + t.kind() + ") does not match the expected kind (" +
                      r.kind + ")");
  }
  return *prototype;
}

}  // namespace

bj::object decode_protobuf_body(const ResourceInfo& resource, std::string_view body) {
  if (!protobuf_prototype(resource.api_version(), resource.kind)) {
    throw unsupported_media_type(std::string(kProtobufMediaType));
  }
  const Unknown envelope = envelope_of(resource, body);
  const TypeMeta& t = envelope.typemeta();
  const google::protobuf::Message& prototype = checked_prototype(t, resource);
  if (!envelope.contentencoding().empty()) {
    throw cannot_handle(t, resource,
                        "content encoding \"" + envelope.contentencoding() + "\" is not supported");
  }
  std::unique_ptr<google::protobuf::Message> object(prototype.New());
  if (!object->ParseFromString(envelope.raw())) {
    throw cannot_handle(t, resource,
                        "the protobuf encoding of the object is truncated or not valid");
  }
  bj::object json{{"kind", t.kind()}, {"apiVersion", t.apiversion()}};
  try {
    for (auto& member : message_to_json(*object)) json[member.key()] = std::move(member.value());
  } catch (const ProtobufContentError& e) {
    throw cannot_handle(t, resource, e.what());
  }
  return json;
}

}  // namespace tailor::embedded
