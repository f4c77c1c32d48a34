// JSON documents shaped like real API server answers (kubectl get -o json), for the decoder tests.
#pragma once

namespace tailor::kube::testing {

// A running pod with a sidecar, two app containers, managedFields and a resize in progress.
inline constexpr const char* kPodJson = R"json({
  "kind": "Pod",
  "apiVersion": "v1",
  "metadata": {
    "name": "web-7d9f8c6b5-x2x4q",
    "generateName": "web-7d9f8c6b5-",
    "namespace": "shop",
    "uid": "0b1f7d7e-4f3a-4c61-9b0e-2f8f3b1c9a11",
    "resourceVersion": "123456",
    "generation": 2,
    "creationTimestamp": "2025-03-01T10:00:00Z",
    "labels": {"app": "web", "pod-template-hash": "7d9f8c6b5", "app.kubernetes.io/part-of": "shop"},
    "annotations": {"kubectl.kubernetes.io/restartedAt": "2025-03-01T09:59:00Z"},
    "ownerReferences": [
      {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f8c6b5",
       "uid": "7a3c1d2e-0000-4000-8000-000000000001", "controller": true, "blockOwnerDeletion": true}
    ],
    "finalizers": ["example.com/keep"],
    "managedFields": [
      {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
       "time": "2025-03-01T10:00:00Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}}}}}}
    ]
  },
  "spec": {
    "volumes": [{"name": "data", "emptyDir": {}}],
    "initContainers": [
      {"name": "init-db", "image": "busybox:1.36", "resources": {"requests": {"cpu": "200m"}}},
      {"name": "proxy", "image": "envoy:1.30", "restartPolicy": "Always",
       "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}}}
    ],
    "containers": [
      {"name": "app", "image": "shop/web:1.2.3",
       "env": [{"name": "MODE", "value": "prod"}],
       "resources": {"limits": {"cpu": "1", "memory": "512Mi"}, "requests": {"cpu": "250m", "memory": "256Mi"}},
       "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"},
                        {"resourceName": "memory", "restartPolicy": "RestartContainer"}],
       "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
       "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
      {"name": "worker", "image": "shop/worker:1.2.3",
       "resources": {"requests": {"cpu": 1, "memory": 1e9, "example.com/gpu": "1"}}}
    ],
    "restartPolicy": "Always",
    "nodeName": "node-a",
    "schedulerName": "default-scheduler",
    "priorityClassName": "high",
    "priority": 1000,
    "overhead": {"cpu": "10m", "memory": "16Mi"},
    "os": {"name": "linux"},
    "enableServiceLinks": true
  },
  "status": {
    "phase": "Running",
    "observedGeneration": 2,
    "conditions": [
      {"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2025-03-01T10:00:20Z"},
      {"type": "PodResizeInProgress", "status": "True", "lastProbeTime": null,
       "lastTransitionTime": "2025-03-01T11:00:00Z", "observedGeneration": 2}
    ],
    "hostIP": "10.0.0.5",
    "hostIPs": [{"ip": "10.0.0.5"}],
    "podIP": "10.244.1.7",
    "startTime": "2025-03-01T10:00:01Z",
    "initContainerStatuses": [
      {"name": "init-db", "state": {"terminated": {"exitCode": 0, "reason": "Completed",
        "startedAt": "2025-03-01T10:00:02Z", "finishedAt": "2025-03-01T10:00:05Z",
        "containerID": "containerd://aaa"}}, "lastState": {}, "ready": true, "restartCount": 0,
       "image": "busybox:1.36", "imageID": "docker.io/library/busybox@sha256:1", "containerID": "containerd://aaa"},
      {"name": "proxy", "state": {"running": {"startedAt": "2025-03-01T10:00:06Z"}}, "lastState": {},
       "ready": true, "started": true, "restartCount": 0, "image": "envoy:1.30", "imageID": "x",
       "containerID": "containerd://bbb",
       "allocatedResources": {"cpu": "50m", "memory": "64Mi"},
       "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "128Mi"}}}
    ],
    "containerStatuses": [
      {"name": "app", "state": {"running": {"startedAt": "2025-03-01T10:05:00Z"}},
       "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled",
         "startedAt": "2025-03-01T10:00:07Z", "finishedAt": "2025-03-01T10:04:59Z", "containerID": "containerd://old"}},
       "ready": true, "restartCount": 1, "image": "shop/web:1.2.3", "imageID": "y",
       "containerID": "containerd://ccc", "started": true,
       "allocatedResources": {"cpu": "250m", "memory": "256Mi"},
       "resources": {"limits": {"cpu": "1", "memory": "512Mi"}, "requests": {"cpu": "200m", "memory": "256Mi"}},
       "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
      {"name": "worker", "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}},
       "lastState": {}, "ready": false, "restartCount": 12, "image": "shop/worker:1.2.3", "imageID": "",
       "started": false}
    ],
    "qosClass": "Burstable"
  }
})json";

}  // namespace tailor::kube::testing
