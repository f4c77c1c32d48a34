// Private to controllers/: what the controllers write as a client would through the API —
// objects prepared for create with the server's validation, defaults and admission plugins
// (quota, LimitRange, webhooks), and Events.
#pragma once

#include <boost/json.hpp>
#include <map>
#include <string>

#include "embedded/api/extensions.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

// Validated, defaulted and admitted (AdmissionOperation::Create); throws StatusError when a
// plugin rejects it.
boost::json::object admitted_for_create(const ApiExtensions& extensions,
                                        const ResourceInfo& resource, boost::json::object object);

const ResourceInfo& pods_resource();
const ResourceInfo& nodes_resource();
const ResourceInfo& namespaces_resource();
const ResourceInfo& services_resource();
const ResourceInfo& endpoints_resource();
const ResourceInfo& endpoint_slices_resource();
const ResourceInfo& resource_named(const std::string& group, const std::string& resource);

// core/v1 Events about an object, as client-go's recorder writes them: a repeat of the same
// reason and message bumps count and lastTimestamp instead of adding an event.
class EventRecorder {
 public:
  EventRecorder(ObjectStore& store, std::string component);
  void record(const boost::json::object& involved, const std::string& type,
              const std::string& reason, const std::string& message);

 private:
  ObjectStore& store_;
  std::string component_;
  std::map<std::string, std::string> names_;  // uid/reason/message -> event name
};

}  // namespace tailor::embedded
