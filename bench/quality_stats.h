#pragma once
// Summaries for the quality benchmark: quantiles of final regret per
// function and algorithm, as a markdown table, and the median/quartile
// curves the plot draws.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hpt::bench {

// curves[function][algorithm]: one best-so-far regret curve per seed.
using QualityCurves =
    std::map<std::string,
             std::map<std::string, std::vector<std::vector<double>>>>;

// The p-quantile (0 <= p <= 1) with linear interpolation, as numpy's
// default; values need not be sorted.
double Quantile(std::vector<double> values, double p);

// Rows: the functions, in the order given; columns: algorithms, "median [q25,
// q75]" of the final regret; then the ratio of each hpt column's median to
// its Optuna peer's where both are columns (bayesianoptimization and tpe to
// optuna-tpe, multivariate-tpe to optuna-tpe-mv, cmaes to optuna-cmaes),
// and bayesianoptimization's target.
std::string QualityTable(const QualityCurves& curves,
                         const std::vector<std::string>& rows,
                         const std::vector<std::string>& columns, int seeds,
                         int trials);

// {function: {algorithm: {"median": [...], "q25": [...], "q75": [...]}}}.
nlohmann::json CurvesJson(const QualityCurves& curves);

}  // namespace hpt::bench
