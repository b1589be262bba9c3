#pragma once
// The multi-objective quality benchmark's problems (bench/README.md,
// "Quality: multi-objective"): ZDT1 and ZDT2 (Zitzler, Deb & Thiele 2000)
// with 30 variables and DTLZ2 (Deb et al. 2002) with 3 objectives and 12
// variables (k = 10), every variable a double x<i> in [0, 1], every
// objective minimised. bench/quality_mo.py defines the same functions for
// Optuna; the harness checks that both agree before it measures.

#include <string>
#include <vector>

namespace hpt::bench {

struct MoFunction {
  std::string name;  // "zdt1", "zdt2", "dtlz2"
  int variables;     // x0 .. x<variables - 1>
  int objectives;    // f1 .. f<objectives>
  // The hypervolume's reference point, fixed per function (BoTorch's:
  // (11, 11) for ZDT, 1.1 in every objective for DTLZ2).
  std::vector<double> reference;
  std::vector<double> (*evaluate)(const std::vector<double>& x);
};

const std::vector<MoFunction>& MoFunctions();

// Fixed probe points (each of `variables` coordinates) for the cross-check
// with the Python definitions.
std::vector<std::vector<double>> MoProbePoints(const MoFunction& f);

}  // namespace hpt::bench
