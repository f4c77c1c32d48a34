// The resource types tailor-cluster serves: the built-in ones and the custom resources that
// CustomResourceDefinitions add at run time (crd/). Lookups are thread-safe and the pointers they
// return stay valid for the life of the process (requests and the store hold them).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "embedded/storage/resource_info.h"

namespace tailor::embedded {

const std::vector<ResourceInfo>& builtin_resources();
// One of builtin_resources() (custom resources' infos live elsewhere).
bool is_builtin(const ResourceInfo& resource);
// The built-in type that stores objects of group/resource (autoscaling/v1 HPAs are stored as v2);
// null for any other (custom resources). What a persisted store resolves its objects with.
const ResourceInfo* stored_builtin(const std::string& group, const std::string& resource);
// Built-in first, then custom resources; nullptr when the group/version does not serve it.
const ResourceInfo* find_resource(const std::string& group, const std::string& version,
                                  const std::string& resource);
// Every resource served now, built-in then custom (a snapshot).
std::vector<const ResourceInfo*> served_resources();
// The group versions served, core ("", "v1") first.
std::vector<std::pair<std::string, std::string>> served_group_versions();

// Custom resources, served on behalf of an owner (one per cluster, e.g. its CRD state) and a
// key (the CRD's name). Replaces what that owner served under that key (empty: stops serving it)
// and returns the stable pointers of infos, in order. Two owners serving the same group, version
// and resource identically share one ResourceInfo.
std::vector<const ResourceInfo*> serve_custom_resources(const void* owner, const std::string& key,
                                                        std::vector<ResourceInfo> infos);
// Stops serving everything of owner and forgets its refresher.
void forget_custom_resources(const void* owner);
// Called (outside the registry's lock) before custom resources are looked up or listed, so that
// an owner can bring what it serves up to date with its store first (read-your-writes after a
// CRD write). Replaces the owner's previous refresher.
void set_custom_resource_refresher(const void* owner, std::function<void()> refresh);

}  // namespace tailor::embedded
