// `hpt db copy FROM TO`: every row of one database into a new, empty one,
// then both compared row by row (storage/store_copy.h, store_compare.h).
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "storage/db_lock.h"
#include "storage/open_store.h"
#include "storage/postgres_server_lock.h"
#include "storage/store_compare.h"
#include "storage/store_copy.h"

namespace hpt::cli {
namespace {

constexpr int kShownDifferences = 20;

int FailCopy(const Status& status) {
  return Fail(Status(status.code(), "db copy: " + status.message()));
}

Status Named(const std::string& label, const Status& status) {
  return Status(status.code(), label + ": " + status.message());
}

// No server may write TO while it is filled (nor start on a partial copy):
// the lock `hpt serve` takes, held until the copy is compared.
struct TargetLock {
  std::unique_ptr<storage::DatabaseLock> file;
  std::unique_ptr<storage::PostgresServerLock> postgres;
};

StatusOr<TargetLock> LockTarget(const std::string& to) {
  TargetLock lock;
  Status status = Status::Ok();
  if (storage::IsPostgresUrl(to)) {
    auto held = storage::PostgresServerLock::Acquire(to);
    if (held.ok()) lock.postgres = std::move(held).value();
    status = held.status();
  } else {
    auto held = storage::DatabaseLock::Acquire(to);
    if (held.ok()) lock.file = std::move(held).value();
    status = held.status();
  }
  if (status.ok()) return lock;
  std::string message = status.message();
  // The locks' advice is for a second server ("give this one another --db").
  if (size_t cut = message.find("; stop it"); cut != std::string::npos) {
    message = message.substr(0, cut) + "; stop it before copying into the database";
  }
  return Status(status.code(), message);
}

}  // namespace

int DbCopy(const DbCopyOptions& options) {
  storage::StoreOptions read_only;
  read_only.read_only = true;
  // A running server may keep using FROM: its WAL lets a reader see
  // committed rows only (but what it writes meanwhile may make the
  // comparison below find differences).
  auto from = storage::OpenStore(options.from, read_only);
  if (!from.ok()) return FailCopy(Named("FROM", from.status()));
  auto lock = LockTarget(options.to);
  if (!lock.ok()) return FailCopy(Named("TO", lock.status()));
  auto to = storage::OpenStore(options.to);
  if (!to.ok()) return FailCopy(Named("TO", to.status()));

  storage::CopyOptions copy;
  copy.from_label = "FROM";
  copy.to_label = "TO";
  copy.skip_unreadable = options.skip_unreadable;
  const bool tty = ::isatty(STDERR_FILENO);
  if (tty) {
    copy.progress = [](const storage::CopyProgress& p) {
      std::cerr << "\rhpt: db copy: " << p.experiments_done << "/" << p.experiments_total
                << " experiments, " << p.copied.trials << " trials" << std::flush;
    };
  }
  auto copied = storage::CopyStore(**from, **to, copy);
  if (tty) std::cerr << "\r\033[K" << std::flush;
  if (!copied.ok()) return FailCopy(copied.status());
  for (const std::string& row : copied->skipped) {
    std::cerr << "hpt: db copy: left out: " << row << "\n";
  }

  storage::CompareOptions compare;
  compare.a_label = "FROM";
  compare.b_label = "TO";
  compare.max_differences = kShownDifferences;
  if (tty) std::cerr << "hpt: db copy: comparing FROM and TO row by row" << std::flush;
  auto comparison = storage::CompareStores(**from, **to, compare);
  if (tty) std::cerr << "\r\033[K" << std::flush;
  if (!comparison.ok()) return FailCopy(comparison.status());
  if (!comparison->equal()) {
    std::cerr << "hpt: db copy: copied " << storage::DescribeCounts(copied->copied)
              << ", but TO differs from FROM in " << comparison->difference_count
              << " place(s) (was a server writing FROM meanwhile? stop it and copy into a new "
                 "database):\n";
    for (const std::string& difference : comparison->differences) {
      std::cerr << "  " << difference << "\n";
    }
    if (comparison->difference_count > kShownDifferences) {
      std::cerr << "  ... and " << comparison->difference_count - kShownDifferences << " more\n";
    }
    return 1;
  }
  std::cout << "copied " << storage::DescribeCounts(copied->copied)
            << (copied->skipped.empty()
                    ? ""
                    : " (" + std::to_string(copied->skipped.size()) + " unreadable left out)")
            << "; every row compared equal\n";
  return 0;
}

}  // namespace hpt::cli
