// The real Prometheus (Debian's `prometheus` and `promtool`) serving a known history: the
// OpenMetrics text is backfilled with `promtool tsdb create-blocks-from openmetrics` into a
// temporary data directory, and Prometheus (no scrape configuration) serves it on a free
// loopback port until destroyed.
#pragma once

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "tests/charts/child_process.h"
#include "tests/kube/observe/http_get.h"

namespace tailor::controller::usage::testing {

class PrometheusPeer {
 public:
  explicit PrometheusPeer(const std::string& history_openmetrics) {
    const std::string prometheus = charts::find_on_path("prometheus");
    const std::string promtool = charts::find_on_path("promtool");
    if (prometheus.empty() || promtool.empty()) {
      throw std::runtime_error(
          "prometheus/promtool are not installed: run "
          "scripts/install-deps.sh (Debian package 'prometheus')");
    }
    char tmpl[] = "/tmp/tailor-usage-prometheus-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    std::ofstream(dir_ / "history.om") << history_openmetrics;
    std::ofstream(dir_ / "prometheus.yml") << "global: {}\n";
    auto backfill =
        charts::run_command(promtool + " tsdb create-blocks-from openmetrics " +
                            (dir_ / "history.om").string() + " " + (dir_ / "data").string());
    if (backfill.exit_code != 0) throw std::runtime_error("promtool: " + backfill.output);
    port_ = kube::testing::free_loopback_port();
    process_ = std::make_unique<charts::ChildProcess>(
        std::vector<std::string>{
            prometheus, "--config.file=" + (dir_ / "prometheus.yml").string(),
            "--storage.tsdb.path=" + (dir_ / "data").string(), "--storage.tsdb.retention.time=30d",
            "--web.listen-address=127.0.0.1:" + std::to_string(port_), "--log.level=warn"},
        dir_ / "prometheus.log");
    wait_ready();
  }
  ~PrometheusPeer() {
    process_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string log() const { return process_ ? process_->log() : ""; }

 private:
  void wait_ready() {
    using namespace std::chrono_literals;
    for (auto deadline = std::chrono::steady_clock::now() + 60s;
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(100ms)) {
      if (!process_->running()) throw std::runtime_error("prometheus exited\n" + log());
      try {
        if (kube::testing::http_get(port_, "/-/ready").status == 200) return;
      } catch (const std::exception&) {
        // Not listening yet.
      }
    }
    throw std::runtime_error("prometheus did not become ready\n" + log());
  }

  std::filesystem::path dir_;
  std::uint16_t port_ = 0;
  std::unique_ptr<charts::ChildProcess> process_;
};

}  // namespace tailor::controller::usage::testing
