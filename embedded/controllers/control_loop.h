// A control loop that runs inside tailor-cluster beside the API server, over its ObjectStore
// (watches and writes go straight to storage, as kube-controller-manager's would through the API).
#pragma once

namespace tailor::embedded {

class ControlLoop {
 public:
  virtual ~ControlLoop() = default;
  virtual void start() = 0;  // returns at once; the loop runs on its own thread(s)
  virtual void stop() = 0;   // joins; idempotent
};

}  // namespace tailor::embedded
