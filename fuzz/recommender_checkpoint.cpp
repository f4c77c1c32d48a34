// The recommender's checkpoint text (recommender/checkpoint.h, checkpoint_text.h), which the
// controller restores its usage models from after a restart: any text is a model checkpoint or
// throws CheckpointError, and what parses formats to text that parses and formats the same. Each
// strategy restores from the text or refuses it with CheckpointError and then still recommends;
// a restored strategy saves a checkpoint that restores to the same save.
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

void strategy_checkpoint(const rec::StrategyFactory& factory, std::string_view text) {
  auto strategy = factory.create();
  try {
    strategy->restore(text);
  } catch (const rec::CheckpointError&) {
    (void)strategy->recommend(0);  // refused: left as it was, and still usable
    return;
  }
  (void)strategy->recommend(86400);
  const std::string saved = strategy->save();
  auto again = factory.create();
  try {
    again->restore(saved);
  } catch (const rec::CheckpointError& e) {
    tailor::fuzz::invariant_broken("a restored strategy's save restores", e.what());
  }
  check(again->save() == saved, "save(restore(save)) is the save", saved);
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
