// The CustomResourceDefinitions `tailor cluster up` installs once the API is up: every CRD the
// Helm chart ships (charts/tailor/crds: VerticalScalingPolicy, VerticalScalingCheckpoint, and
// any other the chart adds), so that `kubectl apply` of a policy works right after `cluster up`
// and tailor-controller's informers find their resources from its first list.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tailor::cli {

// The chart's CRD directory: `given`, else charts/tailor/crds found above `from` (the tailor
// binary's directory). Throws std::runtime_error when there is none.
std::filesystem::path chart_crds_dir(const std::string& given, const std::filesystem::path& from);

// Its *.yaml files in name order. Throws std::runtime_error when it holds none.
std::vector<std::string> chart_crd_files(const std::filesystem::path& dir);

// Creates those CRDs (one already there is kept) and waits until each is Established.
void install_chart_crds(const std::filesystem::path& kubeconfig,
                        const std::vector<std::string>& files);

}  // namespace tailor::cli
