#include "embedded/metrics/metrics_scraper.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "embedded/api/resources.h"
#include "embedded/storage/object_meta.h"
#include "kube/http/client.h"
#include "kube/observe/log.h"

namespace tailor::embedded {
namespace {

// One node's scrape, or why it failed.
NodeScrape scrape(const std::string& url, std::chrono::milliseconds timeout) {
  kube::http::Client client({.base_url = url, .max_idle_connections = 0});
  const auto response = client.send({.target = "/metrics/resource", .timeout = timeout});
  if (response.status != 200) {
    throw std::runtime_error("GET " + url + "/metrics/resource: HTTP " +
                             std::to_string(response.status));
  }
  return decode_resource_metrics(response.body);
}

class MetricsScraper : public ControlLoop {
 public:
  MetricsScraper(ObjectStore& store, std::shared_ptr<MetricsStorage> storage,
                 std::chrono::milliseconds resolution)
      : store_(store), storage_(std::move(storage)), resolution_(resolution) {}
  ~MetricsScraper() override { stop(); }

  void start() override {
    if (thread_.joinable()) return;
    thread_ = std::thread([this] { run(); });
  }

  void stop() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      scrape_all();
      lock.lock();
      wake_.wait_for(lock, resolution_, [this] { return stopping_; });
    }
  }

  void scrape_all() {
    const ResourceInfo* nodes = find_resource("", "v1", "nodes");
    // metrics-server's kubelet request timeout, never longer than a round.
    const auto timeout = std::min<std::chrono::milliseconds>(resolution_, std::chrono::seconds(10));
    std::set<std::string> scraped;
    for (const auto& node : store_.list_objects(*nodes, "")) {
      const std::string name = meta_string(*node, "name");
      const std::string url = kubelet_url(*node);
      if (url.empty()) continue;
      scraped.insert(name);
      try {
        storage_->store(name, scrape(url, timeout));
      } catch (const std::exception& e) {
        storage_->forget(name);
        kube::log::v(2).info("Scraping a node's resource metrics failed",
                             {{"node", name}, {"error", e.what()}});
      }
    }
    storage_->retain(scraped);
  }

  ObjectStore& store_;
  std::shared_ptr<MetricsStorage> storage_;
  std::chrono::milliseconds resolution_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace

std::string kubelet_url(const bj::object& node) {
  const bj::value* port = find_path(node, "status.daemonEndpoints.kubeletEndpoint.Port");
  const std::string ip = node_address(node, "InternalIP").value_or("");
  if (!port || !port->is_int64() || port->get_int64() <= 0 || ip.empty()) return {};
  const bool v6 = ip.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + ip + "]" : ip) + ":" + std::to_string(port->get_int64());
}

std::unique_ptr<ControlLoop> make_metrics_scraper(ObjectStore& store,
                                                  std::shared_ptr<MetricsStorage> storage,
                                                  std::chrono::milliseconds resolution) {
  return std::make_unique<MetricsScraper>(store, std::move(storage), resolution);
}

}  // namespace tailor::embedded
