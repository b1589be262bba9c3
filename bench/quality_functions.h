#pragma once
// The closed-form objectives of the quality benchmark, each with its search
// space (as the experiment's `parameters` JSON) and its known minimum.
// bench/quality_tpe.py defines the same functions for Optuna; the harness
// checks that both agree before it measures (quality_tpe.py check).

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hpt::bench {

struct QualityFunction {
  std::string name;           // "branin", ...
  nlohmann::json parameters;  // Katib parameter specs
  double minimum;             // the global minimum's value
  // The value at an assignment given as {name: value text}.
  std::function<double(const std::map<std::string, std::string>&)> evaluate;
};

// Branin (2-D), Hartmann6, Rosenbrock-4 on [-5, 10]^4, Ackley-5 on
// [-32.768, 32.768]^5, Levy-5 on [-10, 10]^5, and "mixed": a log-uniform
// double, a double, an int, a log-uniform int and a categorical whose
// optimum (value 0) is lr 10^-2.5, momentum 0.9, layers 4, units 128, adam.
const std::vector<QualityFunction>& QualityFunctions();

// Hartmann6 on [0, 1]^6 (minimum -3.32237).
double Hartmann6(const std::vector<double>& x);

// Fixed probe points per function (as assignments) for the cross-check
// with the Python definitions.
std::vector<std::map<std::string, std::string>> ProbePoints(
    const QualityFunction& f);

}  // namespace hpt::bench
