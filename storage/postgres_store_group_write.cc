// The statement of a group of observation writes (QueueGroupWrite): every
// write of the group in one statement, not two statements each. On this
// 2-core VM a group of 8 took PostgreSQL 1.2 ms as 16 statements and
// 0.7 ms as one (pgbench, pipelined, with BEGIN, marker and COMMIT), and
// the group's time is what its writers wait for.
//
// A write whose lease or trial does not hold is left out rather than
// failing the statement (hpt_require would fail the whole group): the
// statement answers which writes it made, and the caller sends the others
// alone, where the general form says what is wrong.

#include <string>
#include <vector>

#include "storage/postgres_metric_summaries.h"
#include "storage/postgres_store.h"

namespace hpt::storage {
namespace {

using pg::Connection;
using pg::Params;
using pg::Result;

// $1 experiments, $2 trials, $3 fencing numbers: one per write, write i
// (1-based) at place i. $4-$9 the observations' rows and $10-$15 the
// summaries, each row led by its write's place; $16-$17 the texts, one
// JSON object per write that has some; $18 this server's owner id (only
// with leases). The trials are locked in the writes' order (FOR NO KEY
// UPDATE, as TrialId(lock = true); LockRows runs after the sort), the
// lease rows FOR SHARE (as CheckLease). Each write made gets its own
// write id, in the writes' order. Answers, for each write made, the
// trial's summaries as they stand after, sorted by name, or one row with
// a NULL name when it has none.
constexpr const char* kGroupHead = R"sql(
WITH req AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
    WITH ORDINALITY AS r(experiment, trial, fencing, wi)),)sql";
constexpr const char* kLeased = R"sql(
leased AS (
  SELECT l.experiment, l.fencing FROM experiment_leases l
   WHERE l.experiment = ANY($1::text[]) AND l.owner = $18 FOR SHARE),)sql";
constexpr const char* kTrialsLeased = R"sql(
tr AS (
  SELECT t.id, r.wi FROM req r
    JOIN leased l ON l.experiment = r.experiment AND l.fencing = r.fencing
    JOIN experiments e ON e.name = r.experiment
    JOIN trials t ON t.experiment_id = e.id AND t.name = r.trial
   ORDER BY r.wi FOR NO KEY UPDATE OF t),)sql";
constexpr const char* kTrialsUnleased = R"sql(
tr AS (
  SELECT t.id, r.wi FROM req r
    JOIN experiments e ON e.name = r.experiment
    JOIN trials t ON t.experiment_id = e.id AND t.name = r.trial
   ORDER BY r.wi FOR NO KEY UPDATE OF t),)sql";
constexpr const char* kGroupBody = R"sql(
w AS (SELECT wi, id, nextval('observation_writes') AS write_id FROM tr ORDER BY wi),
ins AS (
  INSERT INTO observations (trial_id, write_id, write_index, step, ts_ms, name, value)
  SELECT w.id, w.write_id, u.k, u.s, u.ts, u.n, u.v
    FROM unnest($4::bigint[], $5::integer[], $6::bigint[], $7::bigint[], $8::text[],
                $9::float8[]) WITH ORDINALITY AS u(wi, k, s, ts, n, v, ord)
    JOIN w ON w.wi = u.wi
   ORDER BY u.ord),
up AS (
  INSERT INTO trial_metrics AS m (trial_id, name, min_value, max_value, latest_value, latest_step)
  SELECT w.id, u.n, u.mn, u.mx, u.lv, u.ls
    FROM unnest($10::bigint[], $11::text[], $12::float8[], $13::float8[], $14::float8[],
                $15::bigint[]) AS u(wi, n, mn, mx, lv, ls)
    JOIN w ON w.wi = u.wi
)sql";
constexpr const char* kGroupTail = R"sql(  RETURNING m.trial_id, m.name, m.min_value, m.max_value, m.latest_value),
tx AS (
  UPDATE trials t SET outputs_json = (t.outputs_json::jsonb || x.texts::jsonb)::text
    FROM unnest($16::bigint[], $17::text[]) AS x(wi, texts) JOIN w ON w.wi = x.wi
   WHERE t.id = w.id)
SELECT w.wi, s.name, s.min_value, s.max_value, s.latest_value FROM w
  LEFT JOIN (
    SELECT trial_id, name, min_value, max_value, latest_value FROM up
    UNION ALL
    SELECT trial_id, name, min_value, max_value, latest_value FROM trial_metrics
     WHERE trial_id IN (SELECT id FROM w)
       AND (trial_id, name) NOT IN (SELECT trial_id, name FROM up)) s ON s.trial_id = w.id
 ORDER BY w.wi, s.name COLLATE "C"
)sql";

const std::string& GroupSql(bool leased) {
  static const std::string with_leases =
      std::string(kGroupHead) + kLeased + kTrialsLeased + kGroupBody + kMergeMetricSummaries +
      kGroupTail;
  static const std::string without = std::string(kGroupHead) + kTrialsUnleased + kGroupBody +
                                     kMergeMetricSummaries + kGroupTail;
  return leased ? with_leases : without;
}

// Appends `count` copies of `value`.
void Repeat(std::vector<int64_t>& into, int64_t value, size_t count) {
  into.insert(into.end(), count, value);
}

template <typename T>
void Extend(std::vector<T>& into, const std::vector<T>& from) {
  into.insert(into.end(), from.begin(), from.end());
}

}  // namespace

void PostgresStore::QueueGroupWrite(Connection& conn, const std::vector<PendingWrite*>& writes) {
  std::vector<std::string> experiments, trials, names, summary_names, texts;
  std::vector<int64_t> fencings, row_writes, places, steps, times, summary_writes, latest_steps,
      text_writes;
  std::vector<double> values, mins, maxs, latests;
  for (size_t i = 0; i < writes.size(); ++i) {
    const PendingWrite& w = *writes[i];
    const ObservationRows& rows = *w.rows;
    const int64_t place = static_cast<int64_t>(i) + 1;  // WITH ORDINALITY's
    experiments.push_back(*w.experiment);
    trials.push_back(*w.trial);
    fencings.push_back(w.fencing);
    Repeat(row_writes, place, rows.names.size());
    Extend(places, rows.places);
    Extend(steps, rows.steps);
    Extend(times, rows.times);
    Extend(names, rows.names);
    Extend(values, rows.values);
    Repeat(summary_writes, place, rows.summary_names.size());
    Extend(summary_names, rows.summary_names);
    Extend(mins, rows.mins);
    Extend(maxs, rows.maxs);
    Extend(latests, rows.latests);
    Extend(latest_steps, rows.latest_steps);
    if (!rows.texts.empty()) {
      text_writes.push_back(place);
      texts.push_back(rows.texts);
    }
  }
  Params params;
  params.AddArray(experiments).AddArray(trials).AddArray(fencings);
  params.AddArray(row_writes).AddArray(places).AddArray(steps).AddArray(times);
  params.AddArray(names).AddArray(values);
  params.AddArray(summary_writes).AddArray(summary_names);
  params.AddArray(mins, /*nan_is_null=*/true).AddArray(maxs, /*nan_is_null=*/true);
  params.AddArray(latests).AddArray(latest_steps);
  params.AddArray(text_writes).AddArray(texts);
  const bool leased = leasing_.load();
  if (leased) params.Add(identity_.owner);
  conn.Queue({GroupSql(leased), std::move(params), [writes](Result r) {
                for (int row = 0; row < r.rows(); ++row) {
                  const int64_t place = r.Int(row, 0);
                  if (place < 1 || place > static_cast<int64_t>(writes.size())) continue;
                  PendingWrite& w = *writes[place - 1];
                  w.written = true;
                  if (w.summaries == nullptr || r.IsNull(row, 1)) continue;
                  api::MetricSummary summary;
                  summary.name = r.Text(row, 1);
                  summary.min = r.Double(row, 2);
                  summary.max = r.Double(row, 3);
                  summary.latest = r.Double(row, 4);
                  w.summaries->push_back(std::move(summary));
                }
              }});
}

}  // namespace hpt::storage
