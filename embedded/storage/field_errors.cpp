#include "embedded/storage/field_errors.h"

#include <utility>

namespace tailor::embedded {

FieldCause forbidden(std::string field, const std::string& why) {
  return {"FieldValueForbidden", "Forbidden: " + why, std::move(field)};
}

FieldCause invalid_value(std::string field, const std::string& value, const std::string& why) {
  return {"FieldValueInvalid", "Invalid value: \"" + value + "\": " + why, std::move(field)};
}

FieldCause invalid_number(std::string field, std::int64_t value, const std::string& why) {
  return {"FieldValueInvalid", "Invalid value: " + std::to_string(value) + ": " + why,
          std::move(field)};
}

FieldCause required(std::string field, const std::string& why) {
  return {"FieldValueRequired", why.empty() ? "Required value" : "Required value: " + why,
          std::move(field)};
}

FieldCause duplicate(std::string field, const std::string& value) {
  return {"FieldValueDuplicate", "Duplicate value: \"" + value + "\"", std::move(field)};
}

FieldCause not_supported(std::string field, const std::string& value,
                         const std::vector<std::string>& supported) {
  std::string list;
  for (const std::string& s : supported) list += (list.empty() ? "\"" : ", \"") + s + "\"";
  return {"FieldValueNotSupported",
          "Unsupported value: \"" + value + "\": supported values: " + list, std::move(field)};
}

}  // namespace tailor::embedded
