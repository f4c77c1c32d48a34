#include <stdexcept>

#include "recommender/checkpoint.h"
#include "recommender/strategy.h"
#include "recommender/vpa_knobs.h"

namespace tailor::recommender {

void Strategy::restore(std::string_view) {
  throw CheckpointError("checkpoint: this strategy keeps no durable state to restore");
}

std::vector<std::string> strategy_names() { return {"vpa", "default"}; }

std::unique_ptr<StrategyFactory> make_strategy(const std::string& name) {
  if (is_vpa_spec(name)) return make_vpa_strategy(name);
  if (name == "default") return make_default_strategy();
  throw std::invalid_argument("unknown strategy '" + name +
                              "' (known: vpa, vpa:KNOB=VALUE[,...], default)");
}

}  // namespace tailor::recommender
