#include <stdexcept>

#include "recommender/checkpoint.h"
#include "recommender/strategy.h"

namespace tailor::recommender {

void Strategy::restore(std::string_view) {
  throw CheckpointError("checkpoint: this strategy keeps no durable state to restore");
}

std::vector<std::string> strategy_names() { return {"vpa", "default"}; }

std::unique_ptr<StrategyFactory> make_strategy(const std::string& name) {
  if (name == "vpa") return make_vpa_strategy();
  if (name == "default") return make_default_strategy();
  throw std::invalid_argument("unknown strategy '" + name + "' (known: vpa, default)");
}

}  // namespace tailor::recommender
