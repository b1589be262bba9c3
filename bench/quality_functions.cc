#include "bench/quality_functions.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace hpt::bench {
namespace {

using Values = std::map<std::string, std::string>;
using nlohmann::json;

double Number(const Values& v, const std::string& name) {
  return std::strtod(v.at(name).c_str(), nullptr);
}

std::vector<double> Vector(const Values& v, int dim) {
  std::vector<double> x;
  for (int d = 0; d < dim; ++d) x.push_back(Number(v, "x" + std::to_string(d)));
  return x;
}

json Box(int dim, double lo, double hi) {
  json parameters = json::array();
  for (int d = 0; d < dim; ++d) {
    parameters.push_back({{"name", "x" + std::to_string(d)},
                          {"parameterType", "double"},
                          {"feasibleSpace", {{"min", lo}, {"max", hi}}}});
  }
  return parameters;
}

double Branin(const std::vector<double>& v) {
  const double b = 5.1 / (4 * M_PI * M_PI), c = 5 / M_PI, t = 1 / (8 * M_PI);
  double x = v[0], y = v[1];
  return std::pow(y - b * x * x + c * x - 6, 2) + 10 * (1 - t) * std::cos(x) +
         10;
}


double Rosenbrock(const std::vector<double>& x) {
  double sum = 0;
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    sum += 100 * std::pow(x[i + 1] - x[i] * x[i], 2) + std::pow(1 - x[i], 2);
  }
  return sum;
}

double Ackley(const std::vector<double>& x) {
  double squares = 0, cosines = 0;
  for (double v : x) {
    squares += v * v;
    cosines += std::cos(2 * M_PI * v);
  }
  double d = static_cast<double>(x.size());
  return -20 * std::exp(-0.2 * std::sqrt(squares / d)) - std::exp(cosines / d) +
         20 + std::exp(1.0);
}

double Levy(const std::vector<double>& x) {
  size_t d = x.size();
  std::vector<double> w(d);
  for (size_t i = 0; i < d; ++i) w[i] = 1 + (x[i] - 1) / 4;
  double sum = std::pow(std::sin(M_PI * w[0]), 2);
  for (size_t i = 0; i + 1 < d; ++i) {
    sum += std::pow(w[i] - 1, 2) *
           (1 + 10 * std::pow(std::sin(M_PI * w[i] + 1), 2));
  }
  sum += std::pow(w[d - 1] - 1, 2) *
         (1 + std::pow(std::sin(2 * M_PI * w[d - 1]), 2));
  return sum;
}

double Mixed(const Values& v) {
  double lr = Number(v, "lr"), momentum = Number(v, "momentum");
  double layers = Number(v, "layers"), units = Number(v, "units");
  static const std::map<std::string, double> optimizer = {
      {"sgd", 1.0}, {"adam", 0.0}, {"rmsprop", 0.4}};
  return std::pow(std::log10(lr) + 2.5, 2) + 4 * std::pow(momentum - 0.9, 2) +
         0.25 * std::pow(layers - 4, 2) +
         0.5 * std::pow(std::log2(units) - 7, 2) +
         optimizer.at(v.at("optimizer"));
}

std::vector<QualityFunction> Make() {
  auto boxed = [](std::string name, int dim, double lo, double hi,
                  double minimum, double (*f)(const std::vector<double>&)) {
    return QualityFunction{
        std::move(name), Box(dim, lo, hi), minimum,
        [dim, f](const Values& v) { return f(Vector(v, dim)); }};
  };
  json mixed = {
      {{"name", "lr"},
       {"parameterType", "double"},
       {"feasibleSpace",
        {{"min", 1e-5}, {"max", 1}, {"distribution", "logUniform"}}}},
      {{"name", "momentum"},
       {"parameterType", "double"},
       {"feasibleSpace", {{"min", 0}, {"max", 1}}}},
      {{"name", "layers"},
       {"parameterType", "int"},
       {"feasibleSpace", {{"min", 1}, {"max", 8}}}},
      {{"name", "units"},
       {"parameterType", "int"},
       {"feasibleSpace",
        {{"min", 16}, {"max", 1024}, {"distribution", "logUniform"}}}},
      {{"name", "optimizer"},
       {"parameterType", "categorical"},
       {"feasibleSpace", {{"list", {"sgd", "adam", "rmsprop"}}}}}};
  // Branin's boxes differ per coordinate.
  json branin = Box(2, 0, 0);
  branin[0]["feasibleSpace"] = {{"min", -5}, {"max", 10}};
  branin[1]["feasibleSpace"] = {{"min", 0}, {"max", 15}};
  return {
      {"branin", branin, 0.397887357729738,
       [](const Values& v) { return Branin(Vector(v, 2)); }},
      boxed("hartmann6", 6, 0, 1, -3.32236801141551, Hartmann6),
      boxed("rosenbrock4", 4, -5, 10, 0, Rosenbrock),
      boxed("ackley5", 5, -32.768, 32.768, 0, Ackley),
      boxed("levy5", 5, -10, 10, 0, Levy),
      {"mixed", mixed, 0, Mixed},
  };
}

}  // namespace

double Hartmann6(const std::vector<double>& x) {
  static const double a[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                 {0.05, 10, 17, 0.1, 8, 14},
                                 {3, 3.5, 1.7, 10, 17, 8},
                                 {17, 8, 0.05, 10, 0.1, 14}};
  static const double p[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                 {2329, 4135, 8307, 3736, 1004, 9991},
                                 {2348, 1451, 3522, 2883, 3047, 6650},
                                 {4047, 8828, 8732, 5743, 1091, 381}};
  static const double alpha[4] = {1, 1.2, 3, 3.2};
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double e = 0;
    for (int j = 0; j < 6; ++j)
      e += a[i][j] * std::pow(x[j] - p[i][j] * 1e-4, 2);
    sum += alpha[i] * std::exp(-e);
  }
  return -sum;
}

const std::vector<QualityFunction>& QualityFunctions() {
  static const std::vector<QualityFunction> functions = Make();
  return functions;
}

std::vector<Values> ProbePoints(const QualityFunction& f) {
  if (f.name == "mixed") {
    return {{{"lr", "0.001"},
             {"momentum", "0.5"},
             {"layers", "2"},
             {"units", "300"},
             {"optimizer", "sgd"}},
            {{"lr", "0.00316"},
             {"momentum", "0.9"},
             {"layers", "4"},
             {"units", "128"},
             {"optimizer", "adam"}}};
  }
  std::vector<Values> probes;
  for (double t : {0.1, 0.37, 0.8}) {
    Values v;
    for (const auto& p : f.parameters) {
      double lo = p["feasibleSpace"]["min"], hi = p["feasibleSpace"]["max"];
      char text[32];
      std::snprintf(text, sizeof(text), "%.17g", lo + t * (hi - lo));
      v[p["name"]] = text;
    }
    probes.push_back(std::move(v));
  }
  return probes;
}

}  // namespace hpt::bench
