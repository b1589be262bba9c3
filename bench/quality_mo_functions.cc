#include "bench/quality_mo_functions.h"

#include <cmath>

namespace hpt::bench {
namespace {

// g of ZDT1 and ZDT2: 1 + 9 mean(x1 ..).
double ZdtG(const std::vector<double>& x) {
  double sum = 0;
  for (size_t i = 1; i < x.size(); ++i) sum += x[i];
  return 1 + 9 * sum / static_cast<double>(x.size() - 1);
}

std::vector<double> Zdt1(const std::vector<double>& x) {
  const double g = ZdtG(x);
  return {x[0], g * (1 - std::sqrt(x[0] / g))};
}

std::vector<double> Zdt2(const std::vector<double>& x) {
  const double g = ZdtG(x);
  return {x[0], g * (1 - (x[0] / g) * (x[0] / g))};
}

std::vector<double> Dtlz2(const std::vector<double>& x) {
  const double half_pi = M_PI / 2;
  double g = 0;
  for (size_t i = 2; i < x.size(); ++i) g += (x[i] - 0.5) * (x[i] - 0.5);
  const double r = 1 + g;
  return {r * std::cos(x[0] * half_pi) * std::cos(x[1] * half_pi),
          r * std::cos(x[0] * half_pi) * std::sin(x[1] * half_pi),
          r * std::sin(x[0] * half_pi)};
}

}  // namespace

const std::vector<MoFunction>& MoFunctions() {
  static const std::vector<MoFunction> functions = {
      {"zdt1", 30, 2, {11, 11}, Zdt1},
      {"zdt2", 30, 2, {11, 11}, Zdt2},
      {"dtlz2", 12, 3, {1.1, 1.1, 1.1}, Dtlz2},
  };
  return functions;
}

std::vector<std::vector<double>> MoProbePoints(const MoFunction& f) {
  std::vector<std::vector<double>> points;
  for (int p = 0; p < 4; ++p) {
    std::vector<double> x;
    for (int i = 0; i < f.variables; ++i) {
      x.push_back(std::fmod(0.137 * (p + 1) + 0.291 * i * (p + 2), 1.0));
    }
    points.push_back(std::move(x));
  }
  points.push_back(std::vector<double>(static_cast<size_t>(f.variables), 0.0));
  return points;
}

}  // namespace hpt::bench
