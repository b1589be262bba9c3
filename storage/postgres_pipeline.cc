// Connection::Flush: the statements queued on a connection, sent in one
// round trip with libpq's pipeline mode (libpq 14 and later).
//
// The server runs them in order and answers each; after a failure it skips
// the rest (PGRES_PIPELINE_ABORTED) up to the pipeline's sync point. Each
// statement's answer ends with a null result, and the sync point has its
// own (PGRES_PIPELINE_SYNC).

#include <libpq-fe.h>

#include <utility>
#include <vector>

#include "storage/postgres_db.h"

namespace hpt::storage::pg {

bool Connection::InTransaction() const {
  const PGTransactionStatusType s = PQtransactionStatus(conn_);
  return s == PQTRANS_INTRANS || s == PQTRANS_INERROR || s == PQTRANS_ACTIVE;
}

Status Connection::Flush(const std::function<void(int socket)>* between) {
  if (queue_.empty()) return Status::Ok();
  last_sqlstate_.clear();
  std::vector<Queued> batch = std::move(queue_);
  queue_.clear();
  // Prepared before the pipeline starts (once per connection and text).
  std::vector<std::string> names(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!batch[i].prepare) continue;
    HPT_ASSIGN_OR_RETURN(names[i], PreparedName(batch[i].sql));
  }
  if (PQenterPipelineMode(conn_) == 0) return Failure(nullptr, "pipeline mode");
  for (size_t i = 0; i < batch.size(); ++i) {
    const Params& params = batch[i].params;
    const int n = params.size();
    std::vector<const char*> values;
    std::vector<int> lengths;
    Pointers(params, &values, &lengths);
    const int sent =
        batch[i].prepare
            ? PQsendQueryPrepared(conn_, names[i].c_str(), n, values.data(),
                                  lengths.data(), params.formats_.data(), 0)
            : PQsendQueryParams(conn_, batch[i].sql.c_str(), n, nullptr,
                                values.data(), lengths.data(),
                                params.formats_.data(), 0);
    if (sent == 0) return Failure(nullptr, batch[i].sql);
  }
  if (PQpipelineSync(conn_) == 0) return Failure(nullptr, "pipeline sync");
  ++round_trips_;
  if (between != nullptr && *between) (*between)(PQsocket(conn_));

  Status status = Status::Ok();
  for (Queued& statement : batch) {
    PGresult* result = PQgetResult(conn_);
    if (result == nullptr) {
      // No answer where one was due: the connection failed.
      return status.ok() ? Failure(nullptr, statement.sql) : status;
    }
    const ExecStatusType s = PQresultStatus(result);
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
      if (status.ok() && statement.on_rows) {
        statement.on_rows(Result(result));
      } else {
        PQclear(result);
      }
    } else if (s == PGRES_PIPELINE_ABORTED || !status.ok()) {
      PQclear(result);
    } else {
      status = Failure(result, statement.sql);  // takes the result
      if (statement.on_failure) statement.on_failure();
      if (broken()) return status;
    }
    // The statement's answer ends with a null result.
    while (PGresult* extra = PQgetResult(conn_)) PQclear(extra);
  }
  PGresult* sync = PQgetResult(conn_);
  const bool synced =
      sync != nullptr && PQresultStatus(sync) == PGRES_PIPELINE_SYNC;
  if (sync != nullptr) PQclear(sync);
  if (!synced || PQexitPipelineMode(conn_) == 0) {
    lost_ = true;  // out of step with the server: not to be used again
    return status.ok() ? Failure(nullptr, "pipeline sync") : status;
  }
  return status;
}

}  // namespace hpt::storage::pg
