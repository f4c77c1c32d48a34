#include "embedded/api/extensions.h"

namespace tailor::embedded {

void ApiExtensions::admit(AdmissionRequest& request) const {
  for (const AdmissionPlugin& plugin : mutating) plugin(request);
  for (const AdmissionPlugin& plugin : validating) plugin(request);
}

const SubresourceHandler* ApiExtensions::handler(const ResourceInfo& resource,
                                                 const std::string& subresource) const {
  auto it = handlers.find(subresource_key(resource, subresource));
  return it == handlers.end() ? nullptr : &it->second;
}

const StreamingHandler* ApiExtensions::streaming_handler(const ResourceInfo& resource,
                                                         const std::string& subresource) const {
  auto it = streaming.find(subresource_key(resource, subresource));
  return it == streaming.end() ? nullptr : &it->second;
}

StatusError admission_forbidden(const AdmissionRequest& r, const std::string& why) {
  std::string resource = r.resource.resource;
  if (!r.resource.group.empty()) resource += "." + r.resource.group;
  std::string who = r.name.empty() ? resource : resource + " \"" + r.name + "\"";
  StatusError e(403, "Forbidden", who + " is forbidden: " + why);
  e.with_details(r.name, r.resource.group, r.resource.resource);
  return e;
}

std::string subresource_key(const ResourceInfo& resource, const std::string& subresource) {
  std::string key = resource.resource;
  if (!resource.group.empty()) key += "." + resource.group;
  return key + "/" + subresource;
}

}  // namespace tailor::embedded
