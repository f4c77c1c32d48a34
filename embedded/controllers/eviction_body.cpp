#include "embedded/controllers/eviction_body.h"

#include <functional>

#include "embedded/storage/json_text.h"
#include "embedded/storage/status_error.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

StatusError malformed() { return bad_request("the Eviction in the body could not be decoded"); }

// A protobuf message, read field by field.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  // Calls visit(field, wire type, payload) per field: varints as their value in `number`,
  // length-delimited fields as bytes; other wire types are skipped.
  void each(const std::function<void(int, std::uint64_t number, std::string_view bytes)>& visit) {
    while (pos_ < data_.size()) {
      std::uint64_t key = varint();
      int field = static_cast<int>(key >> 3);
      switch (key & 7) {
        case 0:
          visit(field, varint(), {});
          break;
        case 1:
          skip(8);
          break;
        case 2: {
          std::uint64_t n = varint();
          if (n > data_.size() - pos_) throw malformed();
          visit(field, 0, data_.substr(pos_, n));
          pos_ += n;
          break;
        }
        case 5:
          skip(4);
          break;
        default:
          throw malformed();
      }
    }
  }

 private:
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) throw malformed();
      auto b = static_cast<unsigned char>(data_[pos_++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw malformed();
  }
  void skip(std::size_t n) {
    if (n > data_.size() - pos_) throw malformed();
    pos_ += n;
  }

  std::string_view data_;
  std::size_t pos_ = 0;
};

bj::object object_meta(std::string_view bytes) {
  bj::object meta;
  Reader(bytes).each([&](int field, std::uint64_t, std::string_view b) {
    if (field == 1) meta["name"] = b;
    if (field == 3) meta["namespace"] = b;
  });
  return meta;
}

bj::object delete_options(std::string_view bytes) {
  bj::object options;
  Reader(bytes).each([&](int field, std::uint64_t n, std::string_view b) {
    if (field == 1) options["gracePeriodSeconds"] = static_cast<std::int64_t>(n);
    if (field == 4) options["propagationPolicy"] = b;
    if (field == 5) {
      bj::value& dry = options["dryRun"];
      if (!dry.is_array()) dry = bj::array{};
      dry.as_array().emplace_back(b);
    }
    if (field == 2) {
      bj::object pre;
      Reader(b).each([&](int f, std::uint64_t, std::string_view s) {
        if (f == 1) pre["uid"] = s;
        if (f == 2) pre["resourceVersion"] = s;
      });
      options["preconditions"] = std::move(pre);
    }
  });
  return options;
}

bj::object from_protobuf(std::string_view body) {
  constexpr std::string_view kMagic("k8s\0", 4);
  if (!body.starts_with(kMagic)) throw malformed();
  std::string_view raw;
  std::string kind;
  Reader(body.substr(4)).each([&](int field, std::uint64_t, std::string_view b) {
    if (field == 2) raw = b;
    if (field == 1) {
      Reader(b).each([&](int f, std::uint64_t, std::string_view s) {
        if (f == 2) kind = s;
      });
    }
  });
  if (kind != "Eviction") {
    throw bad_request("the object provided is unrecognized (must be of type Eviction)");
  }
  bj::object eviction{{"apiVersion", "policy/v1"}, {"kind", "Eviction"}};
  Reader(raw).each([&](int field, std::uint64_t, std::string_view b) {
    if (field == 1) eviction["metadata"] = object_meta(b);
    if (field == 2) eviction["deleteOptions"] = delete_options(b);
  });
  return eviction;
}

}  // namespace

bj::object eviction_body(std::string_view content_type, std::string_view body) {
  if (content_type.starts_with("application/vnd.kubernetes.protobuf")) return from_protobuf(body);
  boost::system::error_code ec;
  bj::value v = parse_json_text(body, ec);
  if (ec || !v.is_object()) throw bad_request("the body of the request must be an Eviction");
  return std::move(v.as_object());
}

}  // namespace tailor::embedded
