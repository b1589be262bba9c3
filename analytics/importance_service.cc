#include "analytics/importance_service.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>

#include "api/spec_codec.h"
#include "api/status.h"

namespace hpt::analytics {
namespace {

using Clock = std::chrono::steady_clock;

// Importance is analysis, not service: under load its worker yields the CPU
// to the HTTP threads and the runners (a nice value applies per thread on
// Linux).
constexpr int kWorkerNice = 10;

// Retry-After values are spread over this many seconds.
constexpr uint64_t kRetrySpread = 3;

// FNV-1a, 64 bits: a stable fingerprint of a history (not a defence against
// anyone; a collision would only serve one experiment's earlier answer).
class Hasher {
 public:
  void Add(const void* data, size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) h_ = (h_ ^ p[i]) * 0x100000001b3ULL;
  }
  void Add(const std::string& s) {
    Add(s.data(), s.size());
    Add(static_cast<uint64_t>(s.size()));
  }
  template <typename T>
  void Add(T v) requires std::is_arithmetic_v<T> {
    Add(&v, sizeof v);
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

bool Ranked(const api::Trial& t) {
  return t.phase == api::TrialPhase::kSucceeded ||
         t.phase == api::TrialPhase::kEarlyStopped;
}

const std::string& ExperimentOf(const auto& key) { return std::get<0>(key); }

}  // namespace

ImportanceService::ImportanceService(ImportanceServiceOptions options)
    : options_([&] {
        ImportanceServiceOptions o = std::move(options);
        if (!o.compute) {
          o.compute = [](const api::ExperimentSpec& spec,
                         const std::vector<api::Trial>& trials,
                         const std::string& model_state) {
            ImportanceOptions options;
            options.model_state = model_state;
            return ComputeImportance(spec, trials, options);
          };
        }
        HPT_CHECK(o.threads >= 1 && o.max_queued >= 1 && o.max_callers >= 1 &&
                  o.max_lined_up >= 0 && o.cache_entries >= 1);
        return o;
      }()) {
  for (int i = 0; i < options_.threads; ++i)
    threads_.emplace_back([this] { Loop(); });
}

ImportanceService::~ImportanceService() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (const auto& job : queue_) {
      job->done = true;
      jobs_.erase(job->key);
    }
    queue_.clear();
  }
  work_cv_.notify_all();
  done_cv_.notify_all();
  admit_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

ImportanceService::Key ImportanceService::MakeKey(
    const api::Experiment& experiment, const std::vector<api::Trial>& trials) {
  Hasher spec;
  spec.Add(api::SpecToJson(experiment.spec).dump());
  Hasher history;
  int ranked = 0;
  for (const api::Trial& t : trials) {
    if (!Ranked(t)) continue;
    ++ranked;
    history.Add(t.name);
    history.Add(static_cast<int>(t.phase));
    for (const auto& [name, value] : t.assignment) {
      history.Add(name);
      history.Add(value);
    }
    for (const api::MetricSummary& m : t.metrics) {
      history.Add(m.name);
      history.Add(m.min);
      history.Add(m.max);
      history.Add(m.latest);
    }
  }
  return {experiment.spec.name, experiment.creation_time_ms, spec.value(),
          ranked, history.value()};
}

StatusOr<ImportanceAnswer> ImportanceService::Get(
    const HistoryLoader& load, std::chrono::milliseconds wait) {
  {
    // Reading a long history costs CPU that the other routes need: only a
    // few callers read at once, a few more line up briefly (holding their
    // HTTP threads), and the rest are turned away before reading anything.
    std::unique_lock<std::mutex> lock(mu_);
    if (callers_ >= options_.max_callers && lined_up_ < options_.max_lined_up) {
      ++lined_up_;
      ++counters_.lined_up;
      admit_cv_.wait_for(lock, options_.line_wait, [&] {
        return callers_ < options_.max_callers || stopping_;
      });
      --lined_up_;
    }
    if (callers_ >= options_.max_callers) {
      ++counters_.pending;
      return ImportanceAnswer{ImportanceAnswer::Kind::kPending, nullptr,
                              RetryAfterLocked(1)};
    }
    ++callers_;
  }
  struct Leave {
    ImportanceService* s;
    ~Leave() {
      std::lock_guard<std::mutex> lock(s->mu_);
      --s->callers_;
      s->admit_cv_.notify_one();
    }
  } leave{this};
  StatusOr<ImportanceHistory> history = load();
  if (!history.ok()) return history.status();
  const api::Experiment& experiment = history->experiment;
  std::vector<api::Trial>& trials = history->trials;
  const Key key = MakeKey(experiment, trials);
  std::unique_lock<std::mutex> lock(mu_);
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->key != key) continue;
    cache_.splice(cache_.begin(), cache_, it);  // most recently used
    ++counters_.cache_hits;
    return ImportanceAnswer{ImportanceAnswer::Kind::kReady, it->summary, 0};
  }
  std::shared_ptr<Job> job;
  // Gives `job` this caller's history to compute.
  auto take = [&] {
    job->key = key;
    job->spec = experiment.spec;
    job->model_state = experiment.algorithm_state;
    job->trials = std::move(trials);
    jobs_[key] = job;
  };
  // A newer history of an experiment takes the place of its older one still
  // queued, rather than a second place in the queue.
  auto queued = std::find_if(queue_.begin(), queue_.end(), [&](const auto& j) {
    return ExperimentOf(j->key) == ExperimentOf(key);
  });
  if (auto it = jobs_.find(key); it != jobs_.end()) {
    job = it->second;  // single flight: join the computation under way
  } else if (queued != queue_.end() &&
             std::get<3>((*queued)->key) > std::get<3>(key)) {
    job = *queued;  // newer than the history this caller read: it will do
  } else if (queued != queue_.end()) {
    job = *queued;
    jobs_.erase(job->key);
    take();
  } else if (static_cast<int>(queue_.size()) >= options_.max_queued ||
             stopping_) {
    ++counters_.busy;
    return ImportanceAnswer{
        ImportanceAnswer::Kind::kBusy, nullptr,
        RetryAfterLocked(static_cast<int>(queue_.size()) + 1)};
  } else {
    job = std::make_shared<Job>();
    take();
    queue_.push_back(job);
    work_cv_.notify_one();
  }
  done_cv_.wait_for(lock, wait, [&] { return job->done || stopping_; });
  if (job->done && job->result) {
    return ImportanceAnswer{ImportanceAnswer::Kind::kReady, job->result, 0};
  }
  ++counters_.pending;
  return ImportanceAnswer{ImportanceAnswer::Kind::kPending, nullptr,
                          RetryAfterLocked(1)};
}

void ImportanceService::Forget(const std::string& experiment) {
  std::lock_guard<std::mutex> lock(mu_);
  cache_.remove_if(
      [&](const CacheEntry& e) { return ExperimentOf(e.key) == experiment; });
  for (auto it = jobs_.begin(); it != jobs_.end();) {
    if (ExperimentOf(it->first) != experiment) {
      ++it;
      continue;
    }
    it->second->forgotten = true;
    it = jobs_.erase(it);
  }
  queue_.remove_if([&](const std::shared_ptr<Job>& job) {
    if (!job->forgotten) return false;
    job->done = true;  // never run: its callers get kPending
    return true;
  });
  done_cv_.notify_all();
}

ImportanceService::Counters ImportanceService::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

void ImportanceService::Loop() {
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)),
                kWorkerNice);
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    std::shared_ptr<Job> job = queue_.front();
    queue_.pop_front();
    // The job stays in jobs_ (callers join it) but its inputs are ours now.
    api::ExperimentSpec spec = std::move(job->spec);
    std::vector<api::Trial> trials = std::move(job->trials);
    std::string model_state = std::move(job->model_state);
    lock.unlock();
    const Clock::time_point start = Clock::now();
    ImportanceSummary summary;
    try {
      summary = options_.compute(spec, trials, model_state);
    } catch (const std::exception& e) {
      // Not expected (ComputeImportance reports by its note); never lost.
      summary = {};
      summary.metric = spec.objective.metric_name;
      summary.note =
          std::string("importance could not be computed: ") + e.what();
    }
    auto result = std::make_shared<const ImportanceSummary>(
        std::move(summary));
    lock.lock();
    last_duration_ = std::chrono::duration_cast<std::chrono::milliseconds>(
        Clock::now() - start);
    ++counters_.computations;
    job->done = true;
    job->result = result;
    if (auto it = jobs_.find(job->key); it != jobs_.end() && it->second == job)
      jobs_.erase(it);
    if (!job->forgotten) Store(job->key, std::move(result));
    done_cv_.notify_all();
  }
}

void ImportanceService::Store(
    const Key& key,
    std::shared_ptr<const ImportanceSummary> summary) {
  cache_.remove_if([&](const CacheEntry& e) {
    return ExperimentOf(e.key) == ExperimentOf(key);
  });
  cache_.push_front({key, std::move(summary)});
  while (cache_.size() > options_.cache_entries) cache_.pop_back();
}

int ImportanceService::RetryAfterLocked(int jobs_ahead) {
  const double seconds = std::chrono::duration<double>(last_duration_).count() *
                         std::max(1, jobs_ahead) / options_.threads;
  // Spread over a few seconds: a crowd turned away together must not come
  // back together (only a few are let in at once).
  const int spread = static_cast<int>(retry_turn_++ % kRetrySpread);
  return std::clamp(static_cast<int>(std::ceil(seconds)), 1, 60) + spread;
}

}  // namespace hpt::analytics
