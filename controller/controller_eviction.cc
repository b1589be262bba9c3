// The cap on experiments whose state the controller keeps in memory
// (ControllerOptions::max_loaded_experiments). A runner holds its
// experiment's spec, every trial and, with early stopping, every curve:
// with many large experiments that is most of the server's memory. An idle
// runner (ExperimentRunner::Idle(): nothing of it lives only in memory) is
// as good as what a restart would build from the store, so the least
// recently used idle ones are dropped past the cap and built again from
// the store on their next use, as Start() builds them.
#include <malloc.h>

#include <algorithm>

#include "controller/controller.h"

namespace hpt::controller {

size_t Controller::LoadedExperiments() const {
  ReaderLock lock(&map_mu_);
  return runners_.size();
}

bool Controller::IsEvicted(const std::string& name) const {
  ReaderLock lock(&map_mu_);
  return evicted_.count(name) > 0;
}

StatusOr<Controller::Entry> Controller::Reload(const std::string& name) {
  HPT_ASSIGN_OR_RETURN(api::Experiment exp, store_->GetExperiment(name));
  HPT_ASSIGN_OR_RETURN(std::vector<api::Trial> trials, store_->ListTrials(name));
  // Dropped only when idle: nothing to recover or reconcile.
  Entry entry = MakeEntry(std::move(exp), std::move(trials));
  {
    WriterLock lock(&map_mu_);
    // Another caller built it first: theirs is the one.
    if (auto it = runners_.find(name); it != runners_.end()) return it->second;
    if (evicted_.erase(name) == 0) {  // deleted meanwhile
      return NotFound("experiment '" + name + "' not found");
    }
    runners_[name] = entry;
  }
  EvictIdle();
  return entry;
}

void Controller::EvictIdle() {
  const int cap = options_.max_loaded_experiments;
  if (cap <= 0) return;
  struct Candidate {
    uint64_t used;
    std::string name;
    Entry entry;  // one reference: with the map's, use_count() is 2 when unused
  };
  std::vector<Candidate> candidates;
  {
    ReaderLock lock(&map_mu_);
    if (runners_.size() <= static_cast<size_t>(cap)) return;
    for (const auto& [name, entry] : runners_) {
      candidates.push_back({entry.used->load(), name, entry});
    }
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.used < b.used; });
  size_t excess = candidates.size() - static_cast<size_t>(cap);
  bool dropped = false;
  for (const Candidate& c : candidates) {
    if (excess == 0) break;
    // In use (a request, a queued task): not idle now, whatever Idle() says.
    if (c.entry.runner.use_count() != 2 || !c.entry.runner->Idle()) continue;
    WriterLock lock(&map_mu_);
    auto it = runners_.find(c.name);
    if (it == runners_.end() || it->second.runner != c.entry.runner) continue;
    // Found since it was judged (a new reference needs map_mu_, held here).
    if (c.entry.used->load() != c.used || c.entry.runner.use_count() != 2) continue;
    runners_.erase(it);
    evicted_.insert(c.name);
    --excess;
    dropped = true;
  }
  candidates.clear();  // the last references: the dropped runners go here
  // glibc keeps freed memory in its arenas; hand it back to the system.
  if (dropped) malloc_trim(0);
}

}  // namespace hpt::controller
