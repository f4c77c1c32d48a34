#include "embedded/metrics/metrics_api.h"
#include "embedded/metrics/metrics_scraper.h"
#include "embedded/server/features.h"

namespace tailor::embedded {

std::unique_ptr<ControlLoop> add_metrics_api(ApiExtensions& extensions, ObjectStore& store,
                                             std::chrono::milliseconds resolution) {
  auto storage = std::make_shared<MetricsStorage>();
  add_metrics_api_handlers(extensions, storage);
  return make_metrics_scraper(store, std::move(storage), resolution);
}

}  // namespace tailor::embedded
