#include <boost/json/object.hpp>

#include "embedded/protobuf/body_decoder.h"
#include "embedded/server/features.h"

namespace tailor::embedded {

void add_protobuf_bodies(ApiExtensions& extensions) { extensions.protobuf = decode_protobuf_body; }

}  // namespace tailor::embedded
