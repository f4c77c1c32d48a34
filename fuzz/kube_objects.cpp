// The kube model's decoders (kube/model/decode.h), which read every API answer and watch event the
// controller and the node agent act on: any bytes decode or throw DecodeError naming a path, never
// anything else. A decoded pod or node encodes to JSON that decodes and encodes the same again
// (encode.h's writer and the decoders agree on every field the model holds).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "kube/model/decode.h"
#include "kube/model/encode.h"

namespace {

using tailor::fuzz::check;
namespace kube = tailor::kube;

// Decodes `json` as T; false when it is refused with DecodeError (anything else escapes and
// libFuzzer reports it as a crash).
template <class T, class Decode>
bool decodes(Decode decode, std::string_view json, T& out) {
  try {
    out = decode(kube::JsonInput(json));
    return true;
  } catch (const kube::DecodeError& e) {
    check(std::string_view(e.what()).size() >= e.detail().size(), "the message has the detail");
    return false;
  }
}

// encode(decode(encode(x))) == encode(x).
template <class T, class Decode>
void round_trips(Decode decode, const T& decoded) {
  const std::string encoded = kube::to_json(decoded);
  T again;
  check(decodes<T>(decode, encoded, again), "what the encoder writes decodes", encoded);
  check(kube::to_json(again) == encoded, "encoding is a fixed point", encoded);
}

template <class T, class Decode>
void decode_only(Decode decode, std::string_view json) {
  T ignored;
  decodes<T>(decode, json, ignored);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  kube::Pod pod;
  if (decodes<kube::Pod>(kube::decode<kube::Pod>, json, pod)) {
    round_trips<kube::Pod>(kube::decode<kube::Pod>, pod);
  }
  kube::Node node;
  if (decodes<kube::Node>(kube::decode<kube::Node>, json, node)) {
    round_trips<kube::Node>(kube::decode<kube::Node>, node);
  }
  decode_only<kube::Event>(kube::decode<kube::Event>, json);
  decode_only<kube::Lease>(kube::decode<kube::Lease>, json);
  decode_only<kube::Status>(kube::decode<kube::Status>, json);
  decode_only<kube::PartialObjectMetadata>(kube::decode<kube::PartialObjectMetadata>, json);
  decode_only<kube::PodList>(kube::decode_list<kube::Pod>, json);
  decode_only<kube::NodeList>(kube::decode_list<kube::Node>, json);
  decode_only<kube::WatchEvent<kube::Pod>>(kube::decode_watch_event<kube::Pod>, json);
  decode_only<kube::WatchEvent<kube::Node>>(kube::decode_watch_event<kube::Node>, json);
  return 0;
}
