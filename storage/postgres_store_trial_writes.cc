// AddTrials and UpdateTrial of PostgresStore in one round trip, as
// observation writes are (postgres_store_observations.cc): every statement
// queued (pg::Connection::Queue) and sent with BEGIN, the commit marker
// and COMMIT; the lease and the rows they assume checked with hpt_require,
// which fails the statement rather than being read. When a check fails,
// nothing was written, and the general form (postgres_store_trials.cc)
// runs and says what is wrong.

#include <set>
#include <string>
#include <vector>

#include "storage/assignment_json.h"
#include "storage/postgres_store.h"
#include "storage/postgres_trial_fields.h"

namespace hpt::storage {
namespace {

using pg::Connection;
using pg::Params;

// The new trials numbered after the experiment's last. A statement of its
// own, after the one that locked the experiment's row, so its snapshot
// sees every trial committed before (READ COMMITTED).
constexpr const char* kInsertTrials = R"sql(
INSERT INTO trials (experiment_id, seq, name, assignment_json, phase, reason, message,
                    creation_time_ms, start_time_ms, completion_time_ms, pid, job_id,
                    preemptions, user_attrs_json)
SELECT e.id, s.last + u.ord, u.n, u.a, u.ph, u.r, u.m, u.ct, u.st, u.ft, u.pid, u.job,
       u.pre, u.ua
  FROM (SELECT id FROM experiments WHERE name = $1) e,
       LATERAL (SELECT COALESCE(MAX(seq), 0) AS last FROM trials
                 WHERE experiment_id = e.id) s,
       unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[],
              $8::bigint[], $9::bigint[], $10::bigint[], $11::text[], $12::bigint[],
              $13::text[])
         WITH ORDINALITY AS u(n, a, ph, r, m, ct, st, ft, pid, job, pre, ua, ord)
 ORDER BY u.ord)sql";

// No trial of the batch is there yet (SqliteStore's row-by-row insert
// would stop at the first that is: the general form names it).
constexpr const char* kNamesFree =
    "SELECT hpt_require(NOT EXISTS (SELECT 1 FROM trials t JOIN experiments e "
    "ON e.id = t.experiment_id WHERE e.name = $1 AND t.name = ANY($2::text[])))";

// What the one-round-trip AddTrials covers: new trials numbered in turn
// (not kept indices), no exit code, no first observations, names not
// repeated within the batch. :suggest's batches are all of this kind.
bool OneRoundTripCovers(const NewTrials& batch) {
  if (batch.keep_index || batch.trials.empty()) return false;
  for (const auto& list : batch.observations) {
    if (!list.empty()) return false;
  }
  std::set<std::string> names;
  for (const api::Trial& trial : batch.trials) {
    if (trial.exit_code || trial.name.empty() || !names.insert(trial.name).second) return false;
  }
  return true;
}

}  // namespace

Params TrialFieldParams(const TrialUpdate& update) {
  Params params;
  if (update.phase) {
    params.Add(api::ToString(*update.phase));
  } else {
    params.AddNull();
  }
  params.AddOptional(update.reason).AddOptional(update.message);
  params.AddOptional(update.start_time_ms).AddOptional(update.completion_time_ms);
  params.AddOptional(update.exit_code).AddOptional(update.pid);
  params.AddOptional(update.job_id).AddOptional(update.preemptions);
  if (update.assignment) {
    params.Add(AssignmentToJson(*update.assignment));
  } else {
    params.AddNull();
  }
  if (update.user_attrs) {
    params.Add(UserAttrsToText(*update.user_attrs));
  } else {
    params.AddNull();
  }
  return params;
}

std::optional<Status> PostgresStore::TryInOneRoundTrip(
    const std::function<bool(Connection&)>& queue) {
  bool queued = false;
  Status answer = pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    queued = queue(conn);
    return queued ? Status::Ok() : FailedPrecondition("the general form must run");
  });
  if (!queued || pg::IsRequirementFailed(answer)) return std::nullopt;
  return answer;
}

bool PostgresStore::QueueAddTrials(Connection& conn, const std::string& experiment,
                                   const NewTrials& batch) {
  if (!OneRoundTripCovers(batch)) return false;
  // The lease first, then the experiment's row, locked as ExperimentId(lock
  // = true) does: one AddTrials at a time numbers its trials.
  Params checked = Params().Add(experiment);
  const std::optional<std::string> lease = LeaseCondition(experiment, checked);
  if (!lease) return false;
  conn.Queue({"SELECT hpt_require(" + *lease +
                  ") AND hpt_require(EXISTS (SELECT 1 FROM experiments WHERE name = $1 "
                  "FOR UPDATE))",
              std::move(checked)});
  std::vector<std::string> names, assignments, phases, reasons, messages, jobs, attrs;
  std::vector<int64_t> created, started, completed, pids, preemptions;
  for (const api::Trial& t : batch.trials) {
    names.push_back(t.name);
    assignments.push_back(AssignmentToJson(t.assignment));
    phases.push_back(api::ToString(t.phase));
    reasons.push_back(t.reason);
    messages.push_back(t.message);
    created.push_back(t.creation_time_ms);
    started.push_back(t.start_time_ms);
    completed.push_back(t.completion_time_ms);
    pids.push_back(t.pid);
    jobs.push_back(t.job_id);
    preemptions.push_back(t.preemptions);
    attrs.push_back(UserAttrsToText(t.user_attrs));
  }
  conn.Queue({kNamesFree, Params().Add(experiment).AddArray(names)});
  Params rows = Params().Add(experiment).AddArray(names).AddArray(assignments);
  rows.AddArray(phases).AddArray(reasons).AddArray(messages);
  rows.AddArray(created).AddArray(started).AddArray(completed).AddArray(pids);
  rows.AddArray(jobs).AddArray(preemptions).AddArray(attrs);
  conn.Queue({kInsertTrials, std::move(rows)});
  if (batch.algorithm_state) {
    conn.Queue({"UPDATE experiments SET algorithm_state = $1::bytea WHERE name = $2",
                Params().AddBytes(*batch.algorithm_state).Add(experiment)});
  }
  if (batch.queue) {
    conn.Queue({"UPDATE experiments SET queue_json = $1 WHERE name = $2",
                Params().Add(QueueToJson(*batch.queue)).Add(experiment)});
  }
  return true;
}

bool PostgresStore::QueueTrialUpdate(Connection& conn, const std::string& experiment,
                                     const std::string& trial, const TrialUpdate& update) {
  if (!QueueTrialChecks(conn, experiment, trial)) return false;
  conn.Queue({std::string(kUpdateTrialFields) +
                  "WHERE id = (SELECT t.id FROM trials t JOIN experiments e ON e.id = "
                  "t.experiment_id WHERE e.name = $12 AND t.name = $13)",
              TrialFieldParams(update).Add(experiment).Add(trial)});
  if (!update.observations.empty()) {
    QueueObservationRows(conn, experiment, trial, RowsOf(update.observations), nullptr);
  }
  return true;
}

}  // namespace hpt::storage
