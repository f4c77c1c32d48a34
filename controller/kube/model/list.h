// Lists and watch events of typed objects.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/kube/model/event.h"
#include "controller/kube/model/lease.h"
#include "controller/kube/model/meta.h"
#include "controller/kube/model/node.h"
#include "controller/kube/model/pod.h"
#include "controller/kube/model/status.h"
#include "controller/kube/model/watch_event_type.h"

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
