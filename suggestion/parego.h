#pragma once
// ParEGO's scalarisation (Knowles 2006), with which bayesianoptimization
// handles several objectives: each suggestion draws a weight vector and
// models one scalar per trial, the augmented Chebyshev function of the
// trial's normalised objectives.

#include <optional>
#include <random>
#include <vector>

#include "api/types.h"

namespace hpt::suggestion {

// The augmentation's weight (Knowles' rho).
inline constexpr double kParegoRho = 0.05;

// A weight vector drawn uniformly from the simplex (m >= 1 entries, each
// >= 0, summing to 1): normalised Exp(1) draws.
std::vector<double> DrawSimplexWeights(int m, std::mt19937_64& rng);

// Per history trial: the scalar to minimise, or nullopt when the trial is
// not Succeeded or EarlyStopped or lacks a finite value of some objective.
// Each objective, in minimisation form (api::ToMinimization), is
// normalised to [0, 1] by its minimum and maximum over those trials (an
// objective whose values are all equal contributes 0); then
//   s = max_i(w_i f_i) + kParegoRho * sum_i(w_i f_i).
// `weights` has one entry per objective (api::Objectives order).
std::vector<std::optional<double>> ParegoLosses(
    const std::vector<api::Trial>& history, const api::Objective& objective,
    const std::vector<double>& weights);

}  // namespace hpt::suggestion
