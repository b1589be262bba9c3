#pragma once
// LeaseStore: which server drives which experiment, when several servers
// share one database (PostgreSQL; Store::leases() is null on SQLite, where
// one server holds the whole file through DatabaseLock).
//
// Each experiment has at most one lease row: its owner (a server's random
// id), the owner's URL and host, a fencing number and an expiry taken from
// the database's clock, so the servers' own clocks do not matter.
//
// Contract:
// - Until StartLeasing() the store behaves as without leases.
// - After it, every write for an experiment (its row, its trials, their
//   observations; deleting it) checks, in the write's own transaction, that
//   the lease row is still this server's with the fencing number it took
//   (the row is locked FOR SHARE, so a takeover waits for the write to
//   commit, and a write after a takeover fails). A write without the lease
//   fails with FailedPrecondition "experiment 'X': lease lost to server Y
//   (URL)" or "... is driven by server Y (URL)". An expired lease nobody
//   took yet still allows its owner's writes.
// - CreateExperiment takes the new experiment's lease in its transaction.
// - Thread-safe.

#include <optional>
#include <string>
#include <vector>

#include "api/status.h"

namespace hpt::storage {

struct LeaseIdentity {
  std::string owner;  // this server's id (random at start)
  std::string url;    // where other servers and clients reach it
  std::string host;   // its host name: local trials re-attach only there
  int lease_seconds = 10;
};

struct Lease {
  std::string experiment;
  std::string owner;
  std::string owner_url;
  std::string owner_host;
  int64_t fencing = 0;
  bool expired = false;  // by the database's clock
};

// What AcquireLease found.
struct Acquired {
  bool ours = false;  // this server holds the lease now
  // Whether it was taken from another server whose lease had expired (a
  // takeover) — then `previous` is that server's row.
  bool taken_over = false;
  // The holder's row: when `ours` is false, the live owner; on a takeover,
  // the previous owner.
  Lease previous;
};

class LeaseStore {
 public:
  virtual ~LeaseStore() = default;

  // Turns leasing on for this server. Leases held by an earlier run of it
  // (another owner with the same host and URL, which cannot still serve
  // there) expire now, for this run to take back at once. InvalidArgument
  // for an empty owner or lease_seconds < 1.
  virtual Status StartLeasing(const LeaseIdentity& identity) = 0;
  virtual bool Leasing() const = 0;
  virtual const LeaseIdentity& identity() const = 0;

  // Takes the experiment's lease when there is no row, it has expired, or
  // it is this server's (then only renewed); NotFound for no such
  // experiment. A takeover raises the fencing number.
  virtual StatusOr<Acquired> AcquireLease(const std::string& experiment) = 0;
  // Renews every lease this server holds, in one statement. Answers the
  // experiments whose lease it held and holds no more (taken over after it
  // expired, deleted); they are forgotten.
  virtual StatusOr<std::vector<std::string>> RenewLeases() = 0;
  // Lets the lease expire now (the row stays, so fencing numbers keep
  // rising); a no-op when it is not this server's.
  virtual Status ReleaseLease(const std::string& experiment) = 0;
  // Every lease row, by experiment name.
  virtual StatusOr<std::vector<Lease>> ListLeases() = 0;
  // One experiment's lease row; nullopt when it has none.
  virtual StatusOr<std::optional<Lease>> GetLease(const std::string& experiment) = 0;
  // Unfinished experiments (not Succeeded, Failed or Stopped) on which no
  // server holds a live lease: what a server may take over. One query,
  // however many experiments and leases there are.
  virtual StatusOr<std::vector<std::string>> ListUntended() = 0;
  // Whether this server believes it holds the lease (as of its last
  // acquire, renewal or write).
  virtual bool HoldsLease(const std::string& experiment) const = 0;
};

}  // namespace hpt::storage
