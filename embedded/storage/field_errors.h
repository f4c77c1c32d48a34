// The causes of a 422 Invalid (StatusError's FieldCause) in the words of
// k8s.io/apimachinery/pkg/util/validation/field: `Invalid value: "x": why`, `Forbidden: why`,
// `Required value` (": why" when given), `Duplicate value: "x"`,
// `Unsupported value: "x": supported values: "a", "b"`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {

FieldCause forbidden(std::string field, const std::string& why);
FieldCause invalid_value(std::string field, const std::string& value, const std::string& why);
// `Invalid value: 70000: why`: a number is printed unquoted.
FieldCause invalid_number(std::string field, std::int64_t value, const std::string& why);
FieldCause required(std::string field, const std::string& why = "");
FieldCause duplicate(std::string field, const std::string& value);
// `supported` in the order given (field.NotSupported quotes them as they come).
FieldCause not_supported(std::string field, const std::string& value,
                         const std::vector<std::string>& supported);

}  // namespace tailor::embedded
