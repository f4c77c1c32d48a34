#include "controller/app/precise_json.h"

#include <simdjson.h>

#include <stdexcept>
#include <string>

namespace tailor::controller {
namespace {

namespace bj = boost::json;
namespace dom = simdjson::dom;

bj::value to_value(dom::element e) {
  switch (e.type()) {
    case dom::element_type::ARRAY: {
      bj::array a;
      for (dom::element item : dom::array(e)) a.push_back(to_value(item));
      return a;
    }
    case dom::element_type::OBJECT: {
      bj::object o;
      for (dom::key_value_pair field : dom::object(e)) o[field.key] = to_value(field.value);
      return o;
    }
    case dom::element_type::INT64:
      return std::int64_t(e);
    case dom::element_type::UINT64:
      return std::uint64_t(e);
    case dom::element_type::DOUBLE:
      return double(e);
    case dom::element_type::STRING:
      return bj::string(std::string_view(e));
    case dom::element_type::BOOL:
      return bool(e);
    case dom::element_type::NULL_VALUE:
      break;
  }
  return nullptr;
}

}  // namespace

bj::value parse_precise(std::string_view json) {
  dom::parser parser;
  dom::element root;
  if (auto error = parser.parse(json.data(), json.size()).get(root)) {
    throw std::runtime_error(simdjson::error_message(error));
  }
  return to_value(root);
}

}  // namespace tailor::controller
