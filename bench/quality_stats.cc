#include "bench/quality_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hpt::bench {
namespace {

std::string Format(double v) {
  char text[32];
  double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e5)) {
    std::snprintf(text, sizeof(text), "%.2e", v);
  } else {
    std::snprintf(text, sizeof(text), "%.3g", v);
  }
  return text;
}

std::vector<double> Finals(const std::vector<std::vector<double>>& curves) {
  std::vector<double> finals;
  for (const auto& c : curves) finals.push_back(c.back());
  return finals;
}

// Target for bayesianoptimization's median over TPE's (issue 3).
const char* Target(const std::string& function) {
  if (function == "ackley5") return "<= 1";
  if (function == "mixed") return "-";
  return "<= 0.25";
}

}  // namespace

double Quantile(std::vector<double> values, double p) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  double at = p * static_cast<double>(values.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(at));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] +
         (at - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

std::string QualityTable(const QualityCurves& curves,
                         const std::vector<std::string>& rows,
                         const std::vector<std::string>& columns, int seeds,
                         int trials) {
  auto has = [&](const std::string& c) {
    return std::find(columns.begin(), columns.end(), c) != columns.end();
  };
  // A ratio to its Optuna peer for each column that has one: the
  // bayesianoptimization columns and tpe to TPESampler's default,
  // multivariate-tpe to TPESampler(multivariate=True), and the cmaes
  // columns to CmaEsSampler.
  std::vector<std::pair<std::string, std::string>> ratios;
  bool bo_ratio = false;
  for (const auto& c : columns) {
    if (has("optuna-tpe") && (c.rfind("bayesianoptimization", 0) == 0 || c == "tpe")) {
      ratios.push_back({c, "optuna-tpe"});
      bo_ratio = bo_ratio || c != "tpe";
    }
    if (has("optuna-tpe-mv") && c == "multivariate-tpe") ratios.push_back({c, "optuna-tpe-mv"});
    if (has("optuna-cmaes") && c.rfind("cmaes", 0) == 0) ratios.push_back({c, "optuna-cmaes"});
  }
  std::string out = "Simple regret after " + std::to_string(trials) +
                    " trials, median [25th, 75th percentile] over " +
                    std::to_string(seeds) +
                    " seeds (lower is better).\n\n| function |";
  for (const auto& c : columns) out += " " + c + " |";
  for (const auto& [c, peer] : ratios) out += " " + c + " / " + peer + " |";
  if (bo_ratio) out += " target |";
  out += "\n|---|";
  size_t width = columns.size() + ratios.size() + (bo_ratio ? 1 : 0);
  for (size_t i = 0; i < width; ++i) out += "---|";
  out += "\n";
  for (const std::string& function : rows) {
    if (!curves.count(function)) continue;
    const auto& by_algorithm = curves.at(function);
    out += "| " + function + " |";
    for (const auto& c : columns) {
      auto it = by_algorithm.find(c);
      if (it == by_algorithm.end()) {
        out += " |";
        continue;
      }
      std::vector<double> finals = Finals(it->second);
      out += " " + Format(Quantile(finals, 0.5)) + " [" +
             Format(Quantile(finals, 0.25)) + ", " +
             Format(Quantile(finals, 0.75)) + "] |";
    }
    for (const auto& [c, peer] : ratios) {
      out += " " +
             Format(Quantile(Finals(by_algorithm.at(c)), 0.5) /
                    Quantile(Finals(by_algorithm.at(peer)), 0.5)) +
             " |";
    }
    if (bo_ratio) out += std::string(" ") + Target(function) + " |";
    out += "\n";
  }
  return out;
}

nlohmann::json CurvesJson(const QualityCurves& curves) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [function, by_algorithm] : curves) {
    for (const auto& [algorithm, runs] : by_algorithm) {
      size_t length = runs.empty() ? 0 : runs[0].size();
      nlohmann::json median = nlohmann::json::array(), q25 = median,
                     q75 = median;
      for (size_t t = 0; t < length; ++t) {
        std::vector<double> at;
        for (const auto& r : runs) at.push_back(r[t]);
        median.push_back(Quantile(at, 0.5));
        q25.push_back(Quantile(at, 0.25));
        q75.push_back(Quantile(at, 0.75));
      }
      out[function][algorithm] = {
          {"median", median}, {"q25", q25}, {"q75", q75}};
    }
  }
  return out;
}

}  // namespace hpt::bench
