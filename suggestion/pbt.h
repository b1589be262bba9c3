#pragma once
// Pbt ("pbt"): population-based training (Jaderberg et al. 2017) with
// Katib's settings, in generations as Katib's pbt suggestion service runs it
// (pkg/suggestion/v1beta1/pbt/service.py). A trial is one segment of a
// member's training: it starts from a checkpoint folder, trains, saves to
// that folder and reports the objective. Each Suggestion carries a Lineage
// per trial; the server gives every trial a folder of its own, a copy of
// its parent's (controller/runner_checkpoints.cc), before it starts.
//
// Settings (Katib's, with the defaults of Katib's UI):
//   n_population          members per generation (40; at least 5, as in
//                         Katib); a finite space smaller than that makes
//                         the population as large as the space.
//   truncation_threshold  the fraction (0.2; 0 to 1) of a generation that
//                         is truncated: its members restart from a member
//                         of the same best fraction (at least one member).
//   resample_probability  absent: explore perturbs every value (x0.8 or
//                         x1.2); 0 to 1: each value is instead drawn afresh
//                         from its prior with this probability.
//   suggestion_trial_dir  the absolute path at which the trial command
//                         expects its checkpoint folder (Katib mounts the
//                         folder there; the server rewrites it in the
//                         command to the trial's own folder). Optional:
//                         trials always find it in $HPT_CHECKPOINT_DIR.
//   random_state          seed (hpt's): the same spec, history and seed
//                         give the same trials.
//
// Generations. Generation 0 is n_population random draws (no repeats in a
// finite space until failures use it up), each from an empty folder. Once every
// member of generation g has finished with an objective value, they are ranked
// and generation g+1 is planned, one child per member (its "slot"):
//   - a member in the worst floor(n * truncation_threshold) (exploit)
//     gets a parent drawn uniformly from the best max(1, that many): the
//     parent's checkpoint and hyperparameters, then explored;
//   - any other member is its own child's parent, its hyperparameters
//     explored.
// Explore, per parameter: double  value x 0.8 or x 1.2 (0 moves by a fifth
// of the range), clamped to [min, max], then the nearest grid value with a
// step; int  the same rounded, moving at least one step; discrete and
// categorical  the list's neighbour on either side (wrapping around), as
// Katib does. Conditional parameters (api/conditions.h): only the active
// ones are explored; when an explored (or resampled) parent changes, a
// child it activates is drawn from its prior and one it deactivates is
// left out (pbt_explore.h). Katib continues an exploiting member from its own checkpoint
// with the better member's values unperturbed; hpt copies the better
// member's checkpoint and explores from it, as the paper does.
//
// A member that fails (Failed, Killed, MetricsUnavailable) is retried in
// its slot: in generation 0 with a fresh draw, later with the same parent
// and values. A generation's children wait for all of it, so Suggest
// returns fewer trials than asked (none while every slot is busy) and never
// sets exhausted; parallelTrialCount above n_population leaves slots idle.
// Children may repeat an earlier trial's values: they resume a different
// checkpoint. The experiment ends on its goal or maxTrialCount.
//
// State (JSON): each trial's slot, generation and parent in creation order,
// and the planned children of the current generation not yet created.
// Needs a trialTemplate: client-run trials have no server-made folders.

#include <string>
#include <string_view>
#include <vector>

#include "suggestion/algorithm.h"

namespace hpt::suggestion {

class Pbt : public Algorithm {
 public:
  static constexpr char kName[] = "pbt";
  static constexpr char kPopulation[] = "n_population";
  static constexpr char kTruncation[] = "truncation_threshold";
  static constexpr char kResample[] = "resample_probability";
  static constexpr const char* kTrialDir = kTrialDirSetting;

  Status Validate(const api::ExperimentSpec& spec) const override;
  StatusOr<Suggestion> Suggest(const api::ExperimentSpec& spec,
                               const std::vector<api::Trial>& history,
                               std::string_view state, int count) override;
};

}  // namespace hpt::suggestion
