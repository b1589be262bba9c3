#pragma once
// Trials' parameter values as the rows fANOVA's forest is fitted to
// (fanova.h): one group of columns per parameter, in the spec's order.
//
//   double, int,   one column in [0, 1]: the value (its logarithm for
//   discrete       logUniform and logNormal) scaled linearly from the
//                  space's bounds, widened to any trial outside them.
//   categorical    one-hot, a column per category of the spec's list.
// Values the space does not know still count, as Optuna's fANOVA cannot
// (it drops such trials): an unknown category, or text where a number is
// expected (the parameter is then taken as categories by text), adds a
// category of its own. A parameter absent from a trial (an inactive
// conditional one) is the number's middle 0.5, or a category "absent".
//
// Pure; any input is encoded (no errors).

#include <Eigen/Core>
#include <vector>

#include "analytics/fanova.h"
#include "api/types.h"

namespace hpt::analytics {

struct EncodedTrials {
  Eigen::MatrixXd x;                // one row per assignment
  std::vector<FanovaGroup> groups;  // one per parameter, in the spec's order
};

EncodedTrials EncodeTrials(const std::vector<api::ParameterSpec>& parameters,
                           const std::vector<const api::Assignment*>& rows);

}  // namespace hpt::analytics
