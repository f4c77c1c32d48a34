// x-kubernetes-validations: the CEL rules of a CRD schema node, compiled when the CRD is written
// (refused with kube-apiserver's "compilation failed" messages) and evaluated on each custom
// object with `self` bound to the node's value (and `oldSelf` to the stored one, on updates), with
// kube-apiserver's field errors when a rule fails.
#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "embedded/storage/status_error.h"

namespace tailor::embedded::crd {

// kube-apiserver's budget for all the rules run on one write (RuntimeCELCostBudget).
constexpr std::uint64_t kRuleCostBudget = 10000000;

// Why the rules' own fields of schema node (at path) are wrong, in kube-apiserver's words: a rule,
// message, messageExpression or fieldPath empty or with line breaks, a fieldPath naming no field,
// an unknown reason. kube-apiserver counts these among the schema's errors.
void check_rule_fields(const boost::json::object& node, const std::string& path,
                       std::vector<FieldCause>& out);

// Each rule of node compiled and type-checked with self of the node's type (crd/rule_types.h;
// resource_root: the CRD's root, whose apiVersion, kind and metadata.name are always there),
// refused unless it is a bool, messageExpression unless it is a string; a rule naming oldSelf is
// refused under the items of the list at path uncorrelatable (items of atomic and set lists have
// no old value). kube-apiserver runs this only where the schema has no errors.
void check_rule_expressions(const boost::json::object& node, const std::string& path,
                            std::vector<FieldCause>& out, bool resource_root = false,
                            const std::string& uncorrelatable = "");

// Both, the expressions only when the fields are sound.
void check_rules(const boost::json::object& node, const std::string& path,
                 std::vector<FieldCause>& out, bool resource_root = false,
                 const std::string& uncorrelatable = "");

// The failed rules of object's schema (old: the stored object on update), after the schema's
// other violations (existing): rules are not run when those include a type error or an unsupported
// value, and kube-apiserver's "some validation rules were not checked" cause is added instead.
void append_rule_violations(std::vector<FieldCause>& existing, const boost::json::object& object,
                            const boost::json::object* old, const boost::json::object& schema,
                            std::uint64_t budget = kRuleCostBudget);

// Runs the node's rules against value (old: the value at the same place in the stored object, null
// on create); path "" is the object's root. Rules naming oldSelf run only when old is given. Each
// rule's cost is taken from budget. Returns false once a rule ran out of its cost limit or the
// budget ran out: no further rules may run.
bool evaluate_rules(const boost::json::value& value, const boost::json::value* old,
                    const boost::json::object& node, const std::string& path,
                    std::vector<FieldCause>& out, std::uint64_t& budget);

}  // namespace tailor::embedded::crd
