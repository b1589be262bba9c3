// PostgresStore's leases (lease_store.h): which server drives which
// experiment, and the fencing check every experiment write makes.
//
// Why the database's clock: servers on different machines disagree about
// the time; now() inside the statement is one clock for all of them.
// Why FOR SHARE in CheckLease: a takeover is an UPDATE of the lease row,
// which waits for every write holding the share lock to commit, and every
// write after it sees the new owner (READ COMMITTED re-reads the row).

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/postgres_store.h"

namespace hpt::storage {
namespace {

using pg::Connection;
using pg::Params;
using pg::Result;

// "server S (URL)" for messages.
std::string Describe(const std::string& owner, const std::string& url) {
  return "server " + owner + (url.empty() ? "" : " (" + url + ")");
}

Lease ReadLease(const Result& row, int r) {
  Lease lease;
  lease.experiment = row.Text(r, 0);
  lease.owner = row.Text(r, 1);
  lease.owner_url = row.Text(r, 2);
  lease.owner_host = row.Text(r, 3);
  lease.fencing = row.Int(r, 4);
  lease.expired = row.Text(r, 5) == "t";
  return lease;
}

constexpr const char* kSelectLease =
    "SELECT experiment, owner, owner_url, owner_host, fencing, "
    "expires_at <= now() FROM experiment_leases ";

}  // namespace

Status PostgresStore::StartLeasing(const LeaseIdentity& identity) {
  if (identity.owner.empty()) return InvalidArgument("lease owner: is empty");
  if (identity.lease_seconds < 1) {
    return InvalidArgument("--lease-seconds: " + std::to_string(identity.lease_seconds) +
                           " is not a whole number of seconds >= 1");
  }
  if (leasing_.load()) return FailedPrecondition("leasing: already started");
  // An earlier run of this server (same host, same URL: it cannot still
  // be serving there; where either is unknown, nothing is assumed) lets its leases go now rather than at expiry, so a
  // restart takes its experiments back at once. Its writes, should it
  // somehow live on, are fenced off by the takeover as any stale owner's.
  if (!identity.host.empty() && !identity.url.empty()) {
    HPT_RETURN_IF_ERROR(pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
      return conn
        .Exec("UPDATE experiment_leases SET expires_at = now() - interval '1 second' "
              "WHERE owner_host = $1 AND owner_url = $2 AND owner <> $3 AND expires_at > now()",
              Params().Add(identity.host).Add(identity.url).Add(identity.owner))
        .status();
    }));
  }
  identity_ = identity;
  leasing_ = true;
  return Status::Ok();
}

bool PostgresStore::HoldsLease(const std::string& experiment) const {
  std::lock_guard<std::mutex> lock(lease_mu_);
  return held_.count(experiment) > 0;
}

void PostgresStore::ForgetLease(const std::string& experiment) {
  std::lock_guard<std::mutex> lock(lease_mu_);
  held_.erase(experiment);
}

Status PostgresStore::CheckLease(Connection& conn, const std::string& experiment) {
  if (!leasing_.load()) return Status::Ok();
  int64_t fencing = -1;
  {
    std::lock_guard<std::mutex> lock(lease_mu_);
    if (auto it = held_.find(experiment); it != held_.end()) fencing = it->second;
  }
  HPT_ASSIGN_OR_RETURN(
      Result row, conn.Exec(std::string(kSelectLease) + "WHERE experiment = $1 FOR SHARE",
                            Params().Add(experiment)));
  if (row.rows() > 0) {
    Lease lease = ReadLease(row, 0);
    if (fencing >= 0 && lease.owner == identity_.owner && lease.fencing == fencing) {
      return Status::Ok();
    }
    if (fencing >= 0) {
      ForgetLease(experiment);
      return FailedPrecondition("experiment '" + experiment + "': lease lost to " +
                                Describe(lease.owner, lease.owner_url));
    }
    return FailedPrecondition("experiment '" + experiment + "': driven by " +
                              Describe(lease.owner, lease.owner_url) +
                              ", not this server");
  }
  if (fencing >= 0) ForgetLease(experiment);
  return FailedPrecondition("experiment '" + experiment +
                            "': this server holds no lease on it");
}

std::optional<int64_t> PostgresStore::HeldFencing(const std::string& experiment) const {
  std::lock_guard<std::mutex> lock(lease_mu_);
  if (auto it = held_.find(experiment); it != held_.end()) return it->second;
  return std::nullopt;
}

std::optional<std::string> PostgresStore::LeaseCondition(const std::string& experiment,
                                                        Params& params) {
  if (!leasing_.load()) return "true";
  const std::optional<int64_t> fencing = HeldFencing(experiment);
  if (!fencing) return std::nullopt;
  const int first = params.size() + 1;
  params.Add(experiment).Add(identity_.owner).Add(*fencing);
  return "EXISTS (SELECT 1 FROM experiment_leases WHERE experiment = $" +
         std::to_string(first) + " AND owner = $" + std::to_string(first + 1) +
         " AND fencing = $" + std::to_string(first + 2) + " FOR SHARE)";
}

Status PostgresStore::TakeNewLease(Connection& conn, const std::string& experiment) {
  if (!leasing_.load()) return Status::Ok();
  // A row left by a deleted experiment of the same name keeps its number.
  HPT_ASSIGN_OR_RETURN(
      Result row,
      conn.Exec("INSERT INTO experiment_leases AS l "
                "(experiment, owner, owner_url, owner_host, fencing, expires_at) "
                "VALUES ($1, $2, $3, $4, 1, now() + $5 * interval '1 second') "
                "ON CONFLICT (experiment) DO UPDATE SET owner = EXCLUDED.owner, "
                "owner_url = EXCLUDED.owner_url, owner_host = EXCLUDED.owner_host, "
                "fencing = l.fencing + 1, expires_at = EXCLUDED.expires_at "
                "RETURNING fencing",
                Params()
                    .Add(experiment)
                    .Add(identity_.owner)
                    .Add(identity_.url)
                    .Add(identity_.host)
                    .Add(identity_.lease_seconds)));
  // Recorded before commit: a transaction that then fails leaves a lease
  // on nothing, which the next renewal finds gone.
  std::lock_guard<std::mutex> lock(lease_mu_);
  held_[experiment] = row.Int(0, 0);
  return Status::Ok();
}

StatusOr<Acquired> PostgresStore::AcquireLease(const std::string& experiment) {
  if (!leasing_.load()) return FailedPrecondition("leasing: not started");
  Acquired acquired;
  int64_t fencing = 0;
  HPT_RETURN_IF_ERROR(pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    acquired = Acquired();
    HPT_RETURN_IF_ERROR(ExperimentId(conn, experiment).status());
    // The row as it was, locked: a takeover names whom it took from.
    HPT_ASSIGN_OR_RETURN(
        Result before, conn.Exec(std::string(kSelectLease) + "WHERE experiment = $1 FOR UPDATE",
                                 Params().Add(experiment)));
    if (before.rows() > 0) {
      acquired.previous = ReadLease(before, 0);
      if (acquired.previous.owner != identity_.owner && !acquired.previous.expired) {
        return Status::Ok();  // another server's, alive
      }
      acquired.taken_over = acquired.previous.owner != identity_.owner;
    }
    acquired.ours = true;
    HPT_ASSIGN_OR_RETURN(
        Result row,
        conn.Exec("INSERT INTO experiment_leases AS l "
                  "(experiment, owner, owner_url, owner_host, fencing, expires_at) "
                  "VALUES ($1, $2, $3, $4, 1, now() + $5 * interval '1 second') "
                  "ON CONFLICT (experiment) DO UPDATE SET owner = EXCLUDED.owner, "
                  "owner_url = EXCLUDED.owner_url, owner_host = EXCLUDED.owner_host, "
                  "fencing = l.fencing + CASE WHEN l.owner = EXCLUDED.owner THEN 0 ELSE 1 END, "
                  "expires_at = EXCLUDED.expires_at "
                  // With no row to lock above, another server may insert
                  // one first: then its live lease stands.
                  "WHERE l.owner = EXCLUDED.owner OR l.expires_at <= now() "
                  "RETURNING fencing",
                  Params()
                      .Add(experiment)
                      .Add(identity_.owner)
                      .Add(identity_.url)
                      .Add(identity_.host)
                      .Add(identity_.lease_seconds)));
    if (row.rows() == 0) {
      acquired.ours = false;
      acquired.taken_over = false;
      HPT_ASSIGN_OR_RETURN(
          Result now_held, conn.Exec(std::string(kSelectLease) + "WHERE experiment = $1",
                                     Params().Add(experiment)));
      if (now_held.rows() > 0) acquired.previous = ReadLease(now_held, 0);
      return Status::Ok();
    }
    fencing = row.Int(0, 0);
    return Status::Ok();
  }));
  if (acquired.ours) {
    std::lock_guard<std::mutex> lock(lease_mu_);
    held_[experiment] = fencing;
  }
  return acquired;
}

StatusOr<std::vector<std::string>> PostgresStore::RenewLeases() {
  if (!leasing_.load()) return std::vector<std::string>();
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(lease_mu_);
    for (const auto& [name, fencing] : held_) names.push_back(name);
  }
  if (names.empty()) return std::vector<std::string>();
  std::map<std::string, int64_t> renewed;
  HPT_RETURN_IF_ERROR(pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    renewed.clear();
    HPT_ASSIGN_OR_RETURN(
        Result rows,
        conn.Exec("UPDATE experiment_leases SET expires_at = now() + $2 * interval '1 second' "
                  "WHERE owner = $1 AND experiment = ANY($3::text[]) RETURNING experiment, fencing",
                  Params().Add(identity_.owner).Add(identity_.lease_seconds).AddArray(names)));
    for (int r = 0; r < rows.rows(); ++r) renewed[rows.Text(r, 0)] = rows.Int(r, 1);
    return Status::Ok();
  }));
  std::vector<std::string> lost;
  std::lock_guard<std::mutex> lock(lease_mu_);
  for (auto it = held_.begin(); it != held_.end();) {
    // Taken meanwhile (after the statement): kept for the next renewal.
    if (std::find(names.begin(), names.end(), it->first) == names.end()) {
      ++it;
      continue;
    }
    auto found = renewed.find(it->first);
    if (found == renewed.end() || found->second != it->second) {
      lost.push_back(it->first);
      it = held_.erase(it);
    } else {
      ++it;
    }
  }
  return lost;
}

Status PostgresStore::ReleaseLease(const std::string& experiment) {
  if (!leasing_.load()) return Status::Ok();
  ForgetLease(experiment);
  return pool_->Transact(Kind::kWrite, [&](Connection& conn) -> Status {
    return conn
        .Exec("UPDATE experiment_leases SET expires_at = now() - interval '1 second' "
              "WHERE experiment = $1 AND owner = $2",
              Params().Add(experiment).Add(identity_.owner))
        .status();
  });
}

StatusOr<std::vector<Lease>> PostgresStore::ListLeases() {
  std::vector<Lease> leases;
  HPT_RETURN_IF_ERROR(pool_->Transact(Kind::kRead, [&](Connection& conn) -> Status {
    leases.clear();
    HPT_ASSIGN_OR_RETURN(Result rows,
                         conn.Exec(std::string(kSelectLease) + "ORDER BY experiment COLLATE \"C\""));
    for (int r = 0; r < rows.rows(); ++r) leases.push_back(ReadLease(rows, r));
    return Status::Ok();
  }));
  return leases;
}

StatusOr<std::optional<Lease>> PostgresStore::GetLease(const std::string& experiment) {
  std::optional<Lease> lease;
  HPT_RETURN_IF_ERROR(pool_->Transact(Kind::kRead, [&](Connection& conn) -> Status {
    HPT_ASSIGN_OR_RETURN(Result rows, conn.Exec(std::string(kSelectLease) + "WHERE experiment = $1",
                                                Params().Add(experiment)));
    lease.reset();
    if (rows.rows() > 0) lease = ReadLease(rows, 0);
    return Status::Ok();
  }));
  return lease;
}

StatusOr<std::vector<std::string>> PostgresStore::ListUntended() {
  const std::vector<std::string> finished = {
      api::ToString(api::ExperimentPhase::kSucceeded), api::ToString(api::ExperimentPhase::kFailed),
      api::ToString(api::ExperimentPhase::kStopped)};
  std::vector<std::string> names;
  HPT_RETURN_IF_ERROR(pool_->Transact(Kind::kRead, [&](Connection& conn) -> Status {
    HPT_ASSIGN_OR_RETURN(
        Result rows,
        conn.Exec("SELECT e.name FROM experiments e LEFT JOIN experiment_leases l "
                  "ON l.experiment = e.name WHERE e.phase <> ALL ($1::text[]) "
                  "AND (l.experiment IS NULL OR l.expires_at <= now()) "
                  "ORDER BY e.id",
                  Params().AddArray(finished)));
    names.clear();
    for (int r = 0; r < rows.rows(); ++r) names.push_back(rows.Text(r, 0));
    return Status::Ok();
  }));
  return names;
}

}  // namespace hpt::storage
