#include "controller/app/owner_chains.h"

#include <gtest/gtest.h>

#include <map>

namespace tailor::controller {
namespace {

using kube::ObjectMeta;
using kube::OwnerReference;

OwnerReference owner(const char* kind, const char* name, bool controller = true) {
  return {.api_version = "apps/v1",
          .kind = kind,
          .name = name,
          .uid = std::string("uid-") + name,
          .controller = controller};
}

ObjectMeta meta(const char* ns, const char* name, std::vector<OwnerReference> owners = {}) {
  ObjectMeta m;
  m.name = name;
  m.namespace_ = ns;
  m.uid = std::string("uid-") + name;
  m.owner_references = std::move(owners);
  return m;
}

class CountingOwners : public policy::OwnerLookup {
 public:
  void add(ObjectMeta m) { objects_[m.namespace_ + "/" + m.name] = std::move(m); }
  const ObjectMeta* find(std::string_view ns, const OwnerReference& ref) const override {
    ++lookups;
    auto it = objects_.find(std::string(ns) + "/" + ref.name);
    return it != objects_.end() && it->second.uid == ref.uid ? &it->second : nullptr;
  }
  mutable int lookups = 0;

 private:
  std::map<std::string, ObjectMeta> objects_;
};

CountingOwners cluster() {
  CountingOwners owners;
  owners.add(meta("shop", "web"));
  owners.add(meta("shop", "web-5d9", {owner("Deployment", "web")}));
  owners.add(meta("other", "web-5d9"));  // same name, another namespace, no owner
  // A ReplicaSet "owned" by one of its own pods: the chain stops where it meets the pod.
  owners.add(meta("shop", "loop", {owner("Pod", "loop-a")}));
  return owners;
}

// Every pod gets exactly policy::controller_chain's answer, with its workload key.
TEST(OwnerChains, SameChainsAsWalkingEachPod) {
  struct Case {
    ObjectMeta pod;
    std::string workload;
  };
  std::vector<Case> cases = {
      {meta("shop", "web-5d9-a", {owner("ReplicaSet", "web-5d9")}), "shop/Deployment/web"},
      {meta("shop", "web-5d9-b", {owner("ReplicaSet", "web-5d9")}), "shop/Deployment/web"},
      {meta("other", "web-5d9-a", {owner("ReplicaSet", "web-5d9")}), "other/ReplicaSet/web-5d9"},
      {meta("shop", "renamed",
            {{.api_version = "apps/v1",
              .kind = "ReplicaSet",
              .name = "web-old",
              .uid = "uid-web-5d9",
              .controller = true}}),
       "shop/ReplicaSet/web-old"},
      {meta("shop", "bare"), ""},
      {meta("shop", "weak", {owner("ReplicaSet", "web-5d9", false)}), ""},
      {meta("shop", "gone", {owner("ReplicaSet", "deleted")}), "shop/ReplicaSet/deleted"},
      {meta("shop", "loop-a", {owner("ReplicaSet", "loop")}), "shop/ReplicaSet/loop"},
      {meta("shop", "loop-b", {owner("ReplicaSet", "loop")}), "shop/Pod/loop-a"},
  };
  CountingOwners owners = cluster();
  OwnerChains chains(owners);
  for (const Case& c : cases) {
    const OwnerChain& got = chains.of(c.pod);
    EXPECT_EQ(got.chain, policy::controller_chain(c.pod, owners)) << c.pod.name;
    EXPECT_EQ(got.workload, c.workload) << c.pod.name;
  }
}

// The pod informer's pods share one metadata (no uid) between replicas and give their uid apart:
// the chain is the same as from the pod's own metadata, also where it meets the pod itself.
TEST(OwnerChains, UidGivenApartFromSharedMetadata) {
  CountingOwners owners = cluster();
  OwnerChains chains(owners);
  for (const char* name : {"web-5d9-a", "loop-a", "loop-b"}) {
    const char* rs = std::string_view(name).starts_with("loop") ? "loop" : "web-5d9";
    ObjectMeta own = meta("shop", name, {owner("ReplicaSet", rs)});
    ObjectMeta shared = own;
    shared.name.clear();
    shared.uid.clear();
    const OwnerChain& got = chains.of(shared, own.uid);
    EXPECT_EQ(got.chain, policy::controller_chain(own, owners)) << name;
    EXPECT_EQ(got.workload, chains.of(own).workload) << name;
  }
}

// Ten pods of one ReplicaSet: the ReplicaSet and its Deployment are looked up once.
TEST(OwnerChains, WalksEachControllerOnce) {
  CountingOwners owners = cluster();
  OwnerChains chains(owners);
  for (int i = 0; i < 10; ++i) {
    std::string name = "web-5d9-" + std::to_string(i);
    chains.of(meta("shop", name.c_str(), {owner("ReplicaSet", "web-5d9")}));
  }
  EXPECT_EQ(owners.lookups, 2);
}

}  // namespace
}  // namespace tailor::controller
