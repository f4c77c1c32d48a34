// CRD defaulting and validation messages, and printer columns (JSONPath, typed cells).
#include "embedded/crd/definition.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/crd/printer.h"

namespace tailor::embedded::crd {
namespace {

namespace bj = boost::json;

bj::object minimal_crd() {
  return bj::parse(R"({"metadata":{"name":"widgets.example.com"},
    "spec":{"group":"example.com","scope":"Namespaced",
            "names":{"plural":"widgets","kind":"Widget"},
            "versions":[{"name":"v1","served":true,"storage":true,
                         "schema":{"openAPIV3Schema":{"type":"object"}}}]}})")
      .as_object();
}

std::vector<std::string> errors(const bj::object& crd) {
  std::vector<std::string> out;
  for (const FieldCause& c : validation_errors(crd)) out.push_back(c.field + ": " + c.message);
  return out;
}

TEST(Definition, DefaultsSingularAndListKind) {
  bj::object crd = minimal_crd();
  default_definition(crd);
  EXPECT_TRUE(errors(crd).empty()) << ::testing::PrintToString(errors(crd));
  Definition d = parse_definition(crd);
  EXPECT_EQ(d.singular, "widget");
  EXPECT_EQ(d.list_kind, "WidgetList");
  ASSERT_EQ(d.resource_infos().size(), 1u);
  ResourceInfo r = d.resource_infos()[0];
  EXPECT_EQ(r.api_version(), "example.com/v1");
  EXPECT_TRUE(r.tracks_generation);
  EXPECT_FALSE(r.has_subresource("status"));
  ASSERT_EQ(d.versions[0].columns.size(), 1u);
  EXPECT_EQ(d.versions[0].columns[0].name, "Age");
}

TEST(Definition, ValidationAsKubeApiserver) {
  bj::object crd = minimal_crd();
  crd["metadata"].as_object()["name"] = "widgets";
  bj::object& spec = crd["spec"].as_object();
  spec["group"] = "example";
  spec["scope"] = "Global";
  spec["names"].as_object()["shortNames"] = bj::array{"W"};
  spec["versions"].as_array()[0].as_object()["storage"] = false;
  default_definition(crd);
  std::vector<std::string> want = {
      "spec.group: Invalid value: \"example\": should be a domain with at least one dot",
      "metadata.name: Invalid value: \"widgets\": must be spec.names.plural+\".\"+spec.group",
      "spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\"",
      "spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{...}: must "
      "have exactly one version marked as storage version",
      "spec.names.shortNames[0]: Invalid value: \"W\": a DNS-1035 label must consist of lower "
      "case alphanumeric characters or '-', start with an alphabetic character, and end with an "
      "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
      "'[a-z]([-a-z0-9]*[a-z0-9])?')"};
  EXPECT_EQ(errors(crd), want);
}

TEST(Definition, NamesAndPrinterColumnsAreChecked) {
  bj::object crd = minimal_crd();
  bj::object& version = crd["spec"].as_object()["versions"].as_array()[0].as_object();
  version["additionalPrinterColumns"] =
      bj::parse(R"([{"name":"X","type":"map","jsonPath":".spec.x"},{"type":"string"}])");
  version.erase("schema");
  std::vector<std::string> got = errors(crd);
  std::vector<std::string> want = {
      "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
      "spec.versions[0].additionalPrinterColumns[0].type: Invalid value: \"map\": must be one of "
      "boolean,date,integer,number,string",
      "spec.versions[0].additionalPrinterColumns[1].name: Required value",
      "spec.versions[0].additionalPrinterColumns[1].jsonPath: Required value",
      "spec.names.singular: Required value",
      "spec.names.listKind: Required value"};
  EXPECT_EQ(got, want);
}

TEST(Printer, JsonPathSelectsFieldsIndexesAndFilters) {
  bj::object o = bj::parse(R"({"spec":{"a":[{"n":"x","v":1},{"n":"y","v":2}]},
      "metadata":{"labels":{"app.kubernetes.io/name":"web"}}})")
                     .as_object();
  EXPECT_EQ(json_path_values(o, ".spec.a[1].v"), std::vector<bj::value>{2});
  EXPECT_EQ(json_path_values(o, ".spec.a[*].n"), (std::vector<bj::value>{"x", "y"}));
  EXPECT_EQ(json_path_values(o, ".spec.a[?(@.n==\"y\")].v"), std::vector<bj::value>{2});
  EXPECT_EQ(json_path_values(o, "{.metadata.labels.app\\.kubernetes\\.io/name}"),
            std::vector<bj::value>{"web"});
  EXPECT_TRUE(json_path_values(o, ".spec.missing").empty());
  EXPECT_THROW(json_path_values(o, "spec"), std::invalid_argument);
  // An index past size_t is an unsupported path like any other (it escaped as out_of_range, and
  // the table of every object of the kind failed).
  EXPECT_THROW(json_path_values(o, ".spec.a[99999999999999999999999].v"), std::invalid_argument);
  EXPECT_THROW(json_path_values(o, ".spec.a[-1].v"), std::invalid_argument);
}

TEST(Printer, CellsAreTypedAsTheTableConvertorTypesThem) {
  Printer p = make_printer({{"Replicas", "integer", "", "", 0, ".spec.replicas"},
                            {"Ready", "boolean", "", "", 0, ".status.ready"},
                            {"Mode", "string", "", "", 0, ".spec.mode"},
                            {"Nested", "string", "", "", 1, ".spec.nested"},
                            {"Created", "date", "", "", 0, ".metadata.creationTimestamp"},
                            {"Wrong", "integer", "", "", 0, ".spec.mode"}});
  ASSERT_EQ(p.columns.size(), 7u);
  EXPECT_EQ(p.columns[0].name, "Name");
  EXPECT_EQ(p.columns[4].priority, 1);
  bj::object o = bj::parse(R"({"metadata":{"name":"w","creationTimestamp":"2026-01-01T00:00:00Z"},
      "spec":{"replicas":3.0,"mode":"Auto","nested":{"k":1}},"status":{"ready":true}})")
                     .as_object();
  kube::TimePoint now = *kube::try_parse_rfc3339("2026-01-01T00:05:00Z");
  EXPECT_EQ(p.cells(o, now), bj::parse(R"(["w",3,true,"Auto","{\"k\":1}","5m",null])").as_array());
}

}  // namespace
}  // namespace tailor::embedded::crd
