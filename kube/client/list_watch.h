// ListerWatcher: the informer's only I/O — list one page, watch from a resourceVersion — so the
// informer's logic can run against a fake, and RestListerWatcher adapts the RestClient.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client/rest_client.h"

namespace tailor::kube::cache {

// One page of a List: each item's raw JSON, the list's resourceVersion and continue token.
struct ListPage {
  std::vector<std::string> items;
  std::string resource_version;
  std::string continue_token;
};

class ListerWatcher {
 public:
  virtual ~ListerWatcher() = default;
  // Throws ApiError (e.g. 410 for an expired continue token) or TransportError.
  virtual ListPage list(const ListOptions& options) = 0;
  // Blocks delivering events until the stream ends, on_event returns false, or stop is
  // requested. Throws ApiError (410 when the resourceVersion is too old) or TransportError.
  virtual void watch(const ListOptions& options,
                     const std::function<bool(const RawWatchEvent&)>& on_event,
                     const StopToken& stop) = 0;
};

// Splits a List document into a ListPage; throws DecodeError when it is not a List.
ListPage parse_list_page(std::string_view list_json);

// The fields of a metav1.Status (an ERROR watch event's object); code 0 when absent.
struct StatusInfo {
  int code = 0;
  std::string reason;
  std::string message;
};
StatusInfo parse_status(std::string_view status_json);

// metadata.resourceVersion of a BOOKMARK event's object.
std::string parse_resource_version(std::string_view object_json);

// Lists and watches one resource type (optionally in one namespace, with selectors) through a
// RestClient, which must outlive it.
class RestListerWatcher : public ListerWatcher {
 public:
  RestListerWatcher(RestClient& client, ResourceType type, std::string namespace_ = "",
                    std::string label_selector = "", std::string field_selector = "");
  ListPage list(const ListOptions& options) override;
  void watch(const ListOptions& options, const std::function<bool(const RawWatchEvent&)>& on_event,
             const StopToken& stop) override;

 private:
  ListOptions with_selectors(ListOptions options) const;

  RestClient& client_;
  ObjectRef ref_;
  std::string label_selector_, field_selector_;
};

}  // namespace tailor::kube::cache
