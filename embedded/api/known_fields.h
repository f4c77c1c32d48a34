// The fields each served built-in kind declares, as the tree kube-apiserver's typed decoding
// walks: a name with a subtree has its own fields checked (in every element when the value is a
// list), a name without one is open (maps such as labels, raw extensions, a CRD's schema). The
// nodes are in known_fields_*.cpp, one file per API area. Custom resources are checked against
// their CRD's schema instead.
#pragma once

#include <boost/json/fwd.hpp>
#include <map>
#include <string>
#include <vector>

#include "embedded/storage/resource_info.h"

namespace tailor::embedded {

// A map key of a list (+listMapKey): server-side apply names an element of such a list by its
// keys ([name="app"]), taking a key the element omits from the schema's default.
struct ListKey {
  std::string name;
  std::string default_value{};  // "" : none
};

struct KnownFields {
  // nullptr: the field is known and what is below it is not checked.
  std::map<std::string, const KnownFields*, std::less<>> fields;
  // When the node describes the elements of a list: that list's map keys, sorted by name (empty:
  // an element is named by its index).
  std::vector<ListKey> keys{};
};

// The fields of the resource's kind in its version (apiVersion, kind and metadata included);
// nullptr for kinds without a table (custom resources).
const KnownFields* known_fields(const ResourceInfo& resource);

// The paths of the fields `known` does not declare, as kube-apiserver names them: "spec.foo",
// "spec.template.spec.containers[0].colour".
std::vector<std::string> unknown_fields(const KnownFields& known,
                                        const boost::json::object& object);
// Removes them, returning their paths (the same walk).
std::vector<std::string> drop_unknown_fields(const KnownFields& known, boost::json::object& object);

}  // namespace tailor::embedded
