#pragma once
// How a write's metric summaries merge into trial_metrics, shared by the
// statement of one observation write (postgres_store_observations.cc) and
// that of a group of them (postgres_store_group_write.cc).

namespace hpt::storage {

// Follows `INSERT INTO trial_metrics AS m (trial_id, name, min_value,
// max_value, latest_value, latest_step) SELECT ...`: the lowest and highest
// of old and new, the latest of the later step (a tie goes to the new).
inline constexpr const char* kMergeMetricSummaries = R"sql(
  ON CONFLICT (trial_id, name) DO UPDATE SET
    min_value = LEAST(m.min_value, excluded.min_value),
    max_value = GREATEST(m.max_value, excluded.max_value),
    latest_value = CASE WHEN excluded.latest_step >= m.latest_step
                        THEN excluded.latest_value ELSE m.latest_value END,
    latest_step = GREATEST(m.latest_step, excluded.latest_step)
)sql";

}  // namespace hpt::storage
