#include "embedded/api/selectors.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/api/resources.h"
#include "embedded/storage/stored_object.h"

namespace tailor::embedded {
namespace {

const boost::json::object kPod = boost::json::parse(R"({
  "metadata":{"name":"web","namespace":"shop","labels":{"app":"web","tier":"front","rank":"3"}},
  "spec":{"nodeName":"n1"},"status":{"phase":"Running"}})")
                                     .as_object();

const ResourceInfo& pods() { return *find_resource("", "v1", "pods"); }

// Lists and watches match the stored revision's extracted metadata, never a tree: both forms
// must answer alike.
const StoredObject& stored_pod() {
  static const StoredObject stored(pods(), kPod);
  return stored;
}

TEST(LabelSelector, MatchesAsKubernetes) {
  struct Case {
    const char* selector;
    bool match;
  };
  for (Case c : std::vector<Case>{
           {"", true},
           {"app=web", true},
           {"app==web", true},
           {"app!=web", false},
           {"app!=db", true},
           {"missing!=x", true},
           {"app in (db,web)", true},
           {"app in (db)", false},
           {"app notin (db)", true},
           {"missing notin (db)", true},
           {"tier", true},
           {"!tier", false},
           {"!missing", true},
           {"app=web,tier=back", false},
           {"app=web, tier in (front, back)", true},
           {"rank>2", true},
           {"rank<3", false},
       }) {
    LabelSelector selector = LabelSelector::parse(c.selector);
    EXPECT_EQ(selector.matches(kPod), c.match) << c.selector;
    EXPECT_EQ(selector.matches(stored_pod()), c.match) << c.selector;
  }
}

TEST(LabelSelector, InvalidTextIsBadRequest) {
  for (const char* bad : {"app in (web", "app=we b", "a,,b", "app in web", "rank>x", "=x"}) {
    try {
      LabelSelector::parse(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const StatusError& e) {
      EXPECT_EQ(e.code(), 400) << bad;
    }
  }
}

TEST(FieldSelector, SupportedFields) {
  struct Case {
    const char* selector;
    bool match;
  };
  for (Case c : std::vector<Case>{{"metadata.name=web", true},
                                  {"metadata.namespace!=shop", false},
                                  {"spec.nodeName=n1,status.phase=Running", true},
                                  {"spec.nodeName==n2", false},
                                  {"spec.hostNetwork=false", true},
                                  {"spec.restartPolicy=", true},
                                  {"status.podIP!=", false}}) {
    FieldSelector selector = FieldSelector::parse(c.selector, pods());
    EXPECT_EQ(selector.matches(kPod), c.match) << c.selector;
    EXPECT_EQ(selector.matches(stored_pod()), c.match) << c.selector;
  }
}

TEST(FieldSelector, UnknownFieldIsBadRequest) {
  try {
    FieldSelector::parse("spec.priority=1", pods());
    FAIL();
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), 400);
    EXPECT_EQ(e.message(), "field label not supported: spec.priority");
  }
}

}  // namespace
}  // namespace tailor::embedded
