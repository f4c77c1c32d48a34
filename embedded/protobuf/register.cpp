#include "embedded/server/features.h"

namespace tailor::kube::embedded {

void add_protobuf_bodies(ApiExtensions&) {}
void add_access_reviews(ApiExtensions&) {}

}  // namespace tailor::kube::embedded
