// A tailor-cluster API server started in-process on a free port, with its kubeconfig in a
// temporary directory, for the embedded tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "embedded/server/cluster.h"
#include "kube/client/rest_client.h"
#include "tests/embedded/cluster_rest_config.h"

namespace tailor::embedded::testing {

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tailor-cluster-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ClusterOptions options = cluster_options();
    options.dir = (dir_ / "state").string();
    // Objects persist (as tailor-cluster's), committed without an fsync each: durable against a
    // crash of the process, which is all a test can cause, and ~10x the writes per second.
    options.sync = SyncMode::Normal;
    cluster_ = std::make_unique<Cluster>(std::move(options));
    cluster_->start();
    kubeconfig_ = (dir_ / "kubeconfig").string();
    cluster_->write_kubeconfig(kubeconfig_);
  }

  void TearDown() override {
    cluster_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  virtual ClusterOptions cluster_options() { return {}; }

  kube::RestConfig rest_config() const {
    kube::RestConfig c = cluster_rest_config(*cluster_);
    c.max_retries = 0;
    return c;
  }

  std::filesystem::path dir_;
  std::unique_ptr<Cluster> cluster_;
  std::string kubeconfig_;
};

// Without control loops: the test owns every object's state (no scheduler status writes, no
// events, no objects the controllers make).
template <class Fixture>
class WithoutControlLoops : public Fixture {
 protected:
  ClusterOptions cluster_options() override {
    ClusterOptions o = Fixture::cluster_options();
    o.control_loops = false;
    return o;
  }
};

}  // namespace tailor::embedded::testing
