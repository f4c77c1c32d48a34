// The recommender's checkpoint text (recommender/checkpoint.h, checkpoint_text.h), which the
// controller restores its usage models from after a restart: any text is a model checkpoint or
// throws CheckpointError, and what parses formats to text that parses and formats the same. Each
// strategy restores from the text or refuses it with CheckpointError and then still recommends;
// once through save and restore, a strategy's checkpoint restores to the same save.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "recommender/checkpoint.h"
#include "recommender/strategy.h"

namespace {

namespace rec = tailor::recommender;
using tailor::fuzz::check;

void model_checkpoint(const std::string& text) {
  rec::ModelCheckpoint parsed;
  try {
    parsed = rec::parse_checkpoint(text);
  } catch (const rec::CheckpointError&) {
    return;
  }
  const std::string formatted = rec::format_checkpoint(parsed);
  try {
    check(rec::format_checkpoint(rec::parse_checkpoint(formatted)) == formatted,
          "a model checkpoint's text is a fixed point", formatted);
  } catch (const rec::CheckpointError& e) {
    tailor::fuzz::invariant_broken("a formatted model checkpoint parses", e.what());
  }
}

// save(restore(text)) for a text that a strategy saved.
std::string restored_save(const rec::StrategyFactory& factory, const std::string& saved) {
  auto strategy = factory.create();
  try {
    strategy->restore(saved);
  } catch (const rec::CheckpointError& e) {
    tailor::fuzz::invariant_broken("a restored strategy's save restores", e.what());
  }
  return strategy->save();
}

void strategy_checkpoint(const rec::StrategyFactory& factory, std::string_view text) {
  auto strategy = factory.create();
  try {
    strategy->restore(text);
  } catch (const rec::CheckpointError&) {
    (void)strategy->recommend(0);  // refused: left as it was, and still usable
    return;
  }
  (void)strategy->recommend(86400);
  // Once through save and restore, a checkpoint is a fixed point. The first pass may lose what a
  // restore drops as VPA's does: a bucket scaled to a weight that restores below epsilon.
  const std::string once = restored_save(factory, strategy->save());
  check(restored_save(factory, once) == once, "save(restore(save)) is the save", once);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  model_checkpoint(text);
  static const auto vpa = rec::make_strategy("vpa");
  static const auto tailored = rec::make_strategy("default");
  strategy_checkpoint(*vpa, text);
  strategy_checkpoint(*tailored, text);
  return 0;
}
