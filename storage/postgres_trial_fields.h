#pragma once
// The UPDATE of a trial's fields that PostgresStore::UpdateTrial sends: by
// the trial's row id (postgres_store_trials.cc), or by its experiment's
// and its own names in one round trip (postgres_store_trial_writes.cc).

#include "storage/postgres_db.h"
#include "storage/store.h"

namespace hpt::storage {

// Every field as COALESCE($n, field): $1 to $11 are TrialFieldParams'.
// The caller adds the WHERE clause, numbering its parameters from $12.
inline constexpr const char* kUpdateTrialFields =
    "UPDATE trials SET "
    "phase = COALESCE($1::text, phase), "
    "reason = COALESCE($2::text, reason), "
    "message = COALESCE($3::text, message), "
    "start_time_ms = COALESCE($4::bigint, start_time_ms), "
    "completion_time_ms = COALESCE($5::bigint, completion_time_ms), "
    "exit_code = COALESCE($6::integer, exit_code), "
    "pid = COALESCE($7::bigint, pid), "
    "job_id = COALESCE($8::text, job_id), "
    "preemptions = COALESCE($9::bigint, preemptions), "
    "assignment_json = COALESCE($10::text, assignment_json), "
    "user_attrs_json = COALESCE($11::text, user_attrs_json) ";

// $1 to $11 of kUpdateTrialFields: NULL for each field `update` leaves.
pg::Params TrialFieldParams(const TrialUpdate& update);

}  // namespace hpt::storage
