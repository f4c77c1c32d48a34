#include "controller/app/usage_recorder.h"

#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "controller/app/measured_window.h"
#include "recommender/recorded_windows.h"

namespace tailor::controller {

UsageRecorder::UsageRecorder(const std::string& path) {
  std::error_code ec;
  const bool fresh =
      !std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) == 0;
  out_.open(path, std::ios::app);
  if (!out_) throw std::runtime_error("--record-usage: cannot open " + path + " for appending");
  if (fresh) recommender::write_recording_header(out_);
  out_.flush();
}

void UsageRecorder::record(const usage::UsageWindow& w) {
  const recommender::RecordedWindow row{window_source(w) + "/" + w.container, measured_window(w)};
  std::lock_guard lock(mutex_);
  recommender::write_recorded_window(out_, row);
  out_.flush();
}

}  // namespace tailor::controller
