// Where `tailor` finds the checkout's files it runs with (the chart's CRDs, scripts/containerd):
// in the directories above its own binary (build/bin/tailor sits inside the checkout).
#pragma once

#include <filesystem>
#include <optional>

namespace tailor::cli {

// The running binary's directory (/proc/self/exe), or the working directory when unknown.
std::filesystem::path self_dir();

// `relative` under the first of `from` and its parents that holds it; nullopt when none does.
std::optional<std::filesystem::path> find_above(const std::filesystem::path& from,
                                                const std::filesystem::path& relative);

}  // namespace tailor::cli
