#include <boost/json/object.hpp>
#include <stdexcept>

#include "embedded/api/resources.h"
#include "embedded/protobuf/access_review.h"
#include "embedded/protobuf/body_decoder.h"
#include "embedded/server/features.h"

namespace tailor::embedded {

void add_protobuf_bodies(ApiExtensions& extensions) { extensions.protobuf = decode_protobuf_body; }

void add_access_reviews(ApiExtensions& extensions) {
  const ResourceInfo* reviews =
      find_resource("authorization.k8s.io", "v1", "selfsubjectaccessreviews");
  if (!reviews) throw std::logic_error("selfsubjectaccessreviews missing from the resource table");
  // A virtual resource: its handler is keyed with an empty subresource.
  extensions.handlers[subresource_key(*reviews, "")] = serve_self_subject_access_review;
}

}  // namespace tailor::embedded
