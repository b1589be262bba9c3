// hpt_bench_admission: the cost of one scheduling decision of the
// admission broker (controller/admission.h) with many namespaces and many
// waiting trials, in process (no HTTP, no executor). The machine is kept
// full; each decision is timed alone:
//
//   refused    a waiting trial asks again (a runner's sweep) and waits
//   release    a running trial ends: its grant goes and the broker finds
//              the waiter that goes next (to tell its runner)
//   admitted   that waiter asks and is admitted
//
// The target (issue 32): under 1 ms with 50 namespaces and 5,000 waiting
// trials; met when no decision used 1 ms of CPU time (the table gives the
// wall clock's quantiles too).
//
//   hpt_bench_admission [--namespaces 50] [--waiting 5000] [--decisions 20000]

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "controller/admission.h"

namespace hpt::bench {
namespace {

using controller::AdmissionBroker;
using controller::AdmissionRequest;
using controller::Verdict;
using Clock = std::chrono::steady_clock;

// This thread's CPU time in µs: unlike the wall clock, it leaves out the
// time the thread was not running (another process had the core).
double CpuMicros() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

struct Times {
  std::vector<double> us;
  double cpu_max = 0;
  Clock::time_point wall0;
  double cpu0 = 0;
  void Start() {
    cpu0 = CpuMicros();
    wall0 = Clock::now();
  }
  void Stop() {
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - wall0).count());
    cpu_max = std::max(cpu_max, CpuMicros() - cpu0);
  }
  double Quantile(double q) {
    std::sort(us.begin(), us.end());
    return us.empty() ? 0 : us[std::min(us.size() - 1, static_cast<size_t>(q * us.size()))];
  }
  double Mean() const {
    double sum = 0;
    for (double u : us) sum += u;
    return us.empty() ? 0 : sum / us.size();
  }
};

struct Experiment {
  AdmissionRequest next;  // its waiting trial
  int trials = 0;
};

// Decisions (FairShare::Next, what a release runs) with every namespace
// holding 1 GPU of its quota of 1.5 while the GPUs are free. `mixed`
// false: every waiter asks for 1 GPU, so none fits its quota and each
// namespace is passed over at once. `mixed` true: the pathological mix
// that makes a decision check every waiter: one waiter per namespace asks
// for half a GPU (which fits) and a core (which its quota of 0.5 cores
// does not), after all the others.
Times QuotaBound(int namespaces, int waiting, int decisions, bool mixed) {
  controller::FairShare policy({64, 512, int64_t{2} << 40});
  for (int n = 0; n < namespaces; ++n) {
    api::Namespace ns;
    ns.name = "ns" + std::to_string(n);
    ns.quota.gpu = 1.5;
    ns.quota.cpu = 0.5;
    policy.SetNamespace(ns);
    AdmissionRequest r;
    r.namespace_name = ns.name;
    r.experiment = "running" + std::to_string(n);
    r.trial = r.experiment + "-0";
    r.resources = {1, 0, 0};
    policy.Claim(r, 0);
  }
  for (int e = 0; e < waiting; ++e) {
    AdmissionRequest r;
    r.namespace_name = "ns" + std::to_string(e % namespaces);
    r.experiment = "e" + std::to_string(e);
    r.trial = r.experiment + "-0";
    const bool small = mixed && e >= waiting - namespaces;
    r.resources = small ? api::ResourceAmounts{0.5, 1, 0} : api::ResourceAmounts{1, 0, 0};
    r.priority = small ? -1 : 0;
    policy.Admit(r, 0);
  }
  Times t;
  for (int i = 0; i < decisions; ++i) {
    t.Start();
    const std::string next = policy.Next(0);
    t.Stop();
    if (!next.empty()) std::fprintf(stderr, "quota bound: %s was admitted\n", next.c_str());
  }
  return t;
}

int Run(int namespaces, int waiting, int decisions) {
  std::mt19937_64 rng(7);
  const api::ResourceAmounts capacity{64, 512, int64_t{2} << 40};
  AdmissionBroker broker(capacity, api::RealClock());
  // The experiment a release made next, as the ready callback says.
  std::string ready;
  AdmissionBroker::Callbacks callbacks;
  callbacks.ready = [&](const std::string& experiment) { ready = experiment; };
  broker.SetCallbacks(callbacks);
  for (int n = 0; n < namespaces; ++n) {
    api::Namespace ns;
    ns.name = "ns" + std::to_string(n);
    ns.weight = 1 + n % 3;
    if (n % 5 == 0) ns.quota.gpu = 8;
    if (n % 10 == 0) ns.guaranteed.gpu = 1;
    broker.SetNamespace(ns);
  }
  // One waiting trial per experiment: `waiting` experiments.
  const double gpus[] = {0, 0.5, 1, 1, 2};
  std::vector<Experiment> experiments(waiting);
  for (int e = 0; e < waiting; ++e) {
    AdmissionRequest& r = experiments[e].next;
    r.namespace_name = "ns" + std::to_string(e % namespaces);
    r.experiment = "e" + std::to_string(e);
    r.trial = r.experiment + "-0";
    r.priority = static_cast<int>(rng() % 4);
    r.resources = {gpus[rng() % 5], static_cast<double>(1 << (rng() % 3)),
                   int64_t{1} << (30 + rng() % 3)};
    r.since_ms = 1000 + static_cast<int64_t>(rng() % 100000);
  }
  // Fill the machine: admit waiters in the broker's own order until none fits.
  std::vector<std::pair<std::string, std::string>> running;
  auto advance = [&](Experiment& e) {
    ++e.trials;
    e.next.trial = e.next.experiment + "-" + std::to_string(e.trials);
  };
  for (int round = 0; round < 3; ++round) {
    for (Experiment& e : experiments) {
      if (broker.TryAdmit(e.next).verdict != Verdict::kAdmitted) continue;
      running.push_back({e.next.experiment, e.next.trial});
      advance(e);
      broker.TryAdmit(e.next);  // its next trial waits
    }
  }
  for (Experiment& e : experiments) broker.TryAdmit(e.next);
  int waiters = 0;
  for (int n = 0; n < namespaces; ++n) waiters += broker.Use("ns" + std::to_string(n)).waiting;

  Times refused, release, admitted;
  int not_admitted = 0;
  for (int i = 0; i < decisions; ++i) {
    Experiment& asker = experiments[rng() % experiments.size()];
    refused.Start();
    const Verdict v = broker.TryAdmit(asker.next).verdict;
    refused.Stop();
    if (v == Verdict::kAdmitted) {  // it fitted after all: it runs
      running.push_back({asker.next.experiment, asker.next.trial});
      advance(asker);
      broker.TryAdmit(asker.next);
    }
    if (running.empty()) continue;
    const size_t k = rng() % running.size();
    auto [experiment, trial] = running[k];
    running.erase(running.begin() + static_cast<long>(k));
    ready.clear();
    release.Start();
    broker.Release(experiment, trial);
    release.Stop();
    if (ready.empty()) continue;
    Experiment& next = experiments[std::stoul(ready.substr(1))];
    admitted.Start();
    const Verdict granted = broker.TryAdmit(next.next).verdict;
    admitted.Stop();
    if (granted != Verdict::kAdmitted) {
      ++not_admitted;
      continue;
    }
    running.push_back({next.next.experiment, next.next.trial});
    advance(next);
    broker.TryAdmit(next.next);
  }

  std::printf("%d namespaces, %d waiting trials (%d experiments waiting), %zu running on "
              "64 GPUs / 512 cores / 2 TiB; %d decisions of each kind\n\n",
              namespaces, waiting, waiters, running.size(), decisions);
  Times bound = QuotaBound(namespaces, waiting, decisions / 10, false);
  Times worst = QuotaBound(namespaces, waiting, decisions / 10, true);
  std::printf("| decision | count | mean us | p50 us | p99 us | max us (wall) | max us (CPU) "
              "| target | met? |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---|:---:|\n");
  bool met = true;
  for (auto& [name, t] : {std::pair<const char*, Times*>{"refused (asks again, waits)", &refused},
                          {"release (+ finds the next)", &release},
                          {"admitted (the next asks)", &admitted},
                          {"every waiter over its quota", &bound},
                          {"worst case: every waiter checked", &worst}}) {
    // Judged on the decision's own time (its CPU time): the wall clock's
    // tail includes the moments another process had the core (4 ms ticks
    // on a shared 2-core machine), which no scheduler design can remove.
    const bool ok = t->Quantile(0.5) < 1000 && t->cpu_max < 1000;
    met = met && ok;
    std::printf("| %s | %zu | %.1f | %.1f | %.1f | %.1f | %.1f | < 1000 us | %s |\n", name,
                t->us.size(), t->Mean(), t->Quantile(0.5), t->Quantile(0.99), t->Quantile(1.0),
                t->cpu_max, ok ? "yes" : "no");
  }
  if (not_admitted > 0) std::printf("\n%d next waiters were not admitted\n", not_admitted);
  return met && not_admitted == 0 ? 0 : 1;
}

}  // namespace
}  // namespace hpt::bench

int main(int argc, char** argv) {
  int namespaces = 50, waiting = 5000, decisions = 20000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--namespaces")) namespaces = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--waiting")) waiting = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--decisions")) decisions = std::atoi(argv[i + 1]);
  }
  return hpt::bench::Run(namespaces, waiting, decisions);
}
