// The chart's Grafana dashboards (charts/tailor/dashboards/*.json) as the tests read them.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "tests/charts/chart_paths.h"

namespace tailor::charts {

struct Dashboard {
  std::string file;
  boost::json::object json;
};

struct PanelQuery {
  std::string dashboard;
  std::string panel;
  std::string expr;  // as written, with Grafana variables
};

inline std::vector<Dashboard> dashboards() {
  std::vector<Dashboard> out;
  for (const auto& path : chart_files("dashboards", ".json")) {
    out.push_back({path.filename().string(), boost::json::parse(read_file(path)).as_object()});
  }
  return out;
}

// Every target expression of every panel (rows' nested panels included), and every annotation
// query (as panel "annotation NAME").
inline std::vector<PanelQuery> panel_queries() {
  std::vector<PanelQuery> out;
  for (const Dashboard& d : dashboards()) {
    for (const auto& a : d.json.at("annotations").at("list").as_array()) {
      if (const auto* expr = a.as_object().if_contains("expr")) {
        out.push_back({d.file, "annotation " + std::string(a.at("name").as_string()),
                       std::string(expr->as_string())});
      }
    }
    std::vector<const boost::json::object*> panels;
    for (const auto& p : d.json.at("panels").as_array()) {
      panels.push_back(&p.as_object());
      if (const auto* nested = p.as_object().if_contains("panels")) {
        for (const auto& n : nested->as_array()) panels.push_back(&n.as_object());
      }
    }
    for (const auto* p : panels) {
      const auto* targets = p->if_contains("targets");
      if (!targets) continue;
      for (const auto& t : targets->as_array()) {
        out.push_back({d.file, std::string(p->at("title").as_string()),
                       std::string(t.at("expr").as_string())});
      }
    }
  }
  return out;
}

// The queries of one dashboard file only.
inline std::vector<PanelQuery> panel_queries(const std::string& file) {
  std::vector<PanelQuery> out;
  for (PanelQuery& q : panel_queries()) {
    if (q.dashboard == file) out.push_back(std::move(q));
  }
  return out;
}

// label_values(METRIC, LABEL) of the query variables: {"count by (LABEL) (METRIC)", ...}.
inline std::vector<PanelQuery> variable_queries() {
  std::vector<PanelQuery> out;
  for (const Dashboard& d : dashboards()) {
    for (const auto& v : d.json.at("templating").at("list").as_array()) {
      if (v.at("type").as_string() != "query") continue;
      const std::string q(v.at("query").at("query").as_string());
      const auto open = q.find('('), comma = q.rfind(','), close = q.rfind(')');
      if (q.rfind("label_values(", 0) != 0 || comma == std::string::npos) {
        throw std::invalid_argument(d.file +
                                    ": variable query is not label_values(metric, "
                                    "label): " +
                                    q);
      }
      std::string label = q.substr(comma + 1, close - comma - 1);
      label.erase(0, label.find_first_not_of(' '));
      out.push_back({d.file, std::string(v.at("name").as_string()),
                     "count by (" + label + ") (" + q.substr(open + 1, comma - open - 1) + ")"});
    }
  }
  return out;
}

}  // namespace tailor::charts
