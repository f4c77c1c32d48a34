#include "embedded/api/strict_decoding.h"

#include <algorithm>
#include <boost/json/basic_parser_impl.hpp>
#include <set>

#include "embedded/storage/json_text.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

// How a value is looked at: its fields checked against a KnownFields node, only for repeated
// keys (a map, or a part whose fields are not listed), or not at all (below an unknown field).
enum class Check { Known, Open, Skip };

struct Context {
  Check check = Check::Open;
  const KnownFields* known = nullptr;
};

// An object or list being read. Paths are built only for an error, from the frames' keys and
// indexes.
struct Frame {
  bool object = false;
  Context self;
  std::vector<std::string> keys{};  // seen so far (objects; the last one is the current key)
  std::size_t index = 0;            // the next element (lists)
  Context pending{};                // the value after the current key (objects)

  bool seen(std::string_view key) const {
    // Most objects have a few keys; a large map (a ConfigMap's data) pays for a sorted copy.
    if (keys.size() < 64) return std::find(keys.begin(), keys.end(), key) != keys.end();
    return sorted.count(key) > 0;
  }
  void add(std::string key) {
    if (keys.size() >= 63) {
      if (sorted.empty()) sorted.insert(keys.begin(), keys.end());
      sorted.insert(key);
    }
    keys.push_back(std::move(key));
  }
  std::set<std::string, std::less<>> sorted{};
};

class Handler {
 public:
  static constexpr std::size_t max_array_size = -1;
  static constexpr std::size_t max_object_size = -1;
  static constexpr std::size_t max_string_size = -1;
  static constexpr std::size_t max_key_size = -1;

  Handler(const KnownFields* root, std::string prefix) : prefix_(std::move(prefix)) {
    root_ = root ? Context{Check::Known, root} : Context{Check::Open, nullptr};
  }

  std::vector<std::string> errors;

  bool on_document_begin(bj::error_code&) { return true; }
  bool on_document_end(bj::error_code&) { return true; }
  bool on_object_begin(bj::error_code&) { return push(true); }
  bool on_object_end(std::size_t, bj::error_code&) { return pop(); }
  bool on_array_begin(bj::error_code&) { return push(false); }
  bool on_array_end(std::size_t, bj::error_code&) { return pop(); }
  bool on_string_part(bj::string_view, std::size_t, bj::error_code&) { return true; }
  bool on_string(bj::string_view, std::size_t, bj::error_code&) { return scalar(); }
  bool on_key_part(bj::string_view s, std::size_t, bj::error_code&) {
    key_.append(s.data(), s.size());
    return true;
  }
  bool on_key(bj::string_view s, std::size_t, bj::error_code&) {
    key_.append(s.data(), s.size());
    on_full_key(stack_.back());
    key_.clear();
    return true;
  }
  bool on_number_part(bj::string_view, bj::error_code&) { return true; }
  bool on_int64(std::int64_t, bj::string_view, bj::error_code&) { return scalar(); }
  bool on_uint64(std::uint64_t, bj::string_view, bj::error_code&) { return scalar(); }
  bool on_double(double, bj::string_view, bj::error_code&) { return scalar(); }
  bool on_bool(bool, bj::error_code&) { return scalar(); }
  bool on_null(bj::error_code&) { return scalar(); }
  bool on_comment_part(bj::string_view, bj::error_code&) { return true; }
  bool on_comment(bj::string_view, bj::error_code&) { return true; }

 private:
  bool push(bool object) {
    Frame f;
    f.object = object;
    // A list's elements are looked at as the list is (a node applies to each element).
    f.self = stack_.empty()         ? root_
             : stack_.back().object ? stack_.back().pending
                                    : stack_.back().self;
    if (!stack_.empty() && !stack_.back().object) ++stack_.back().index;
    stack_.push_back(std::move(f));
    return true;
  }

  bool pop() {
    stack_.pop_back();
    return true;
  }

  bool scalar() {
    if (!stack_.empty() && !stack_.back().object) ++stack_.back().index;
    return true;
  }

  // "spec.template.spec.containers[0]." up to the current key of the innermost object.
  std::string path() const {
    std::string p;
    for (std::size_t i = 0; i + 1 < stack_.size(); ++i) {
      const Frame& f = stack_[i];
      if (f.object) {
        p += (p.empty() ? "" : ".") + f.keys.back();
      } else {
        p += "[" + std::to_string(f.index - 1) + "]";
      }
    }
    return p.empty() ? key_ : p + "." + key_;
  }

  void report(const char* what) { errors.push_back(prefix_ + what + " field \"" + path() + "\""); }

  void on_full_key(Frame& f) {
    f.pending = {Check::Skip, nullptr};
    if (f.self.check == Check::Skip) return;  // nothing below reports, nor needs the keys
    bool seen = f.seen(key_);
    f.add(key_);
    if (f.self.check == Check::Known) {
      auto it = f.self.known->fields.find(std::string_view(key_));
      if (it == f.self.known->fields.end()) {
        // Reported once, as unknown only, however often it repeats.
        if (!seen) report("unknown");
        return;
      }
      f.pending = {it->second ? Check::Known : Check::Open, it->second};
    } else {
      f.pending.check = Check::Open;
    }
    if (seen) report("duplicate");
  }

  std::string prefix_;
  Context root_;
  std::vector<Frame> stack_;
  std::string key_;
};

}  // namespace

std::vector<std::string> strict_decoding_errors(std::string_view json, const KnownFields* known,
                                                const std::string& prefix) {
  bj::parse_options options;
  options.max_depth = kMaxJsonDepth;
  bj::basic_parser<Handler> parser(options, known, prefix);
  bj::error_code ec;
  parser.write_some(false, json.data(), json.size(), ec);
  if (ec) return {};
  return std::move(parser.handler().errors);
}

const KnownFields& json_patch_operation_fields() {
  static const KnownFields f = [] {
    KnownFields op;
    for (const char* name : {"op", "path", "from", "value"}) op.fields.emplace(name, nullptr);
    return op;
  }();
  return f;
}

}  // namespace tailor::embedded
