// --record-usage: every usage window tailor-controller receives, from any source, appended to a
// recording that `tailor replay` reads (recommender/recorded_windows.h) and folds as the live
// models do, so a strategy can be tried on what production saw. One series per pod's container
// and source, as the live folds keep them ("namespace/pod/uid/container"; the history and
// metrics.k8s.io readings carry no uid): replay sizes each on its own, where the live model of a
// workload learns from all its pods.
#pragma once

#include <fstream>
#include <mutex>
#include <string>

#include "controller/usage/usage_server.h"

namespace tailor::controller {

class UsageRecorder {
 public:
  // Appends to `path`, writing the header when the file is new or empty. Throws
  // std::runtime_error naming the path when it cannot be opened.
  explicit UsageRecorder(const std::string& path);
  // Thread-safe (the usage stream calls it from gRPC threads); each window is flushed, so a
  // killed controller loses none it recorded.
  void record(const usage::UsageWindow& w);

 private:
  std::mutex mutex_;
  std::ofstream out_;
};

}  // namespace tailor::controller
