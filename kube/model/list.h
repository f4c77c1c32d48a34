// Lists and watch events of typed objects.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kube/model/event.h"
#include "kube/model/lease.h"
#include "kube/model/meta.h"
#include "kube/model/node.h"
#include "kube/model/pod.h"
#include "kube/model/status.h"
#include "kube/model/watch_event_type.h"

namespace tailor::kube {

template <class T>
struct List {
  ListMeta metadata{};
  std::vector<T> items{};
};

using PodList = List<Pod>;
using NodeList = List<Node>;
using EventList = List<Event>;
using LeaseList = List<Lease>;
using PartialObjectMetadataList = List<PartialObjectMetadata>;

// One line of a watch stream. For Error the object is a Status (e.g. 410 Expired); for
// Bookmark only object.metadata.resourceVersion (and annotations) are meaningful.
template <class T>
struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  T object{};
  std::optional<Status> error{};
};

}  // namespace tailor::kube
