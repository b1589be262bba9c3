#pragma once
// Nsga2State: what the nsga2 algorithm (nsga2.h) carries from one call to
// the next in its opaque state: the generation's number, its parent
// population and the trials asked for the current generation. Trials are
// referred to, never copied: their values are read from the history on
// every call. Parse and ToJson round-trip it exactly.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "api/types.h"

namespace hpt::suggestion {

// A trial the state refers to.
struct Nsga2Member {
  // Where it is expected in the history (creation order: the history's
  // size when it was asked plus its place in the batch).
  int64_t trial = -1;
  uint64_t key = 0;  // KeyHash (cmaes_state.h) of its AssignmentKey
};

struct Nsga2State {
  // The parameters' names, in order: a state is only read back for them.
  std::vector<std::string> parameters;
  int64_t generation = 0;
  // The population the current generation breeds from (empty in
  // generation 0, whose trials are random).
  std::vector<Nsga2Member> parents;
  // Trials asked for the current generation, those of earlier ones still
  // running when their generation closed, and trials nsga2 did not ask for
  // (enqueued ones) that appeared in the history since the last call.
  std::vector<Nsga2Member> members;
  // The history's size after the last call's suggestions: later trials
  // that are not members were made by someone else.
  int64_t seen = 0;

  // The state `text` holds; Internal when it does not parse, and when it
  // belongs to other parameters than `parameters`.
  static StatusOr<Nsga2State> Parse(std::string_view text,
                                    const std::vector<std::string>& parameters);
  // {"version": 1, "parameters": [...], "generation": g,
  //  "parents": [[trial, key], ...], "members": [[trial, key], ...],
  //  "seen": n}.
  std::string ToJson() const;
};

// The trial each of `members` became (nullptr: none): the history's trial
// at the expected place when its assignment agrees (the server appends
// trials in the order they are suggested); otherwise, the first trial with
// that assignment no other member claimed.
std::vector<const api::Trial*> FindMembers(
    const std::vector<api::ParameterSpec>& parameters,
    const std::vector<api::Trial>& history,
    const std::vector<Nsga2Member>& members);

}  // namespace hpt::suggestion
