#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/error.hpp"
#include "config/config.hpp"
#include "proxy/asio.hpp"
#include "proxy/backend/backend_login.hpp"
#include "proxy/observe/worker_stats.hpp"
#include "proxy/wire/byte_buffer.hpp"

namespace pgrange::proxy {

/// One authenticated connection to a shard's PostgreSQL server, with what pgrange knows of its
/// session: the parameters it reported, the SET statements applied to it, and the protocol-level
/// prepared statements it holds.
class BackendConnection : public std::enable_shared_from_this<BackendConnection> {
 public:
  BackendConnection(tcp::socket socket, const config::ShardConfig& shard, int shard_index);
  ~BackendConnection();

  /// Connects to a shard, over TLS when `tls` is given and the shard's sslmode wants it
  /// (start_shard_tls), and logs in as `login` (trust, cleartext, md5 or SCRAM-SHA-256);
  /// errors name the shard and carry SQLSTATE 08006 (or the server's, such as 28P01).
  static awaitable<Result<std::shared_ptr<BackendConnection>>> connect(
      const config::ShardConfig& shard, int shard_index, asio::ssl::context* tls,
      const BackendLogin& login, std::chrono::milliseconds timeout);

  /// The TCP socket (under TLS when tls()): for cancelling its operations and its state only;
  /// bytes go through read_some() and write().
  tcp::socket& socket() { return socket_; }
  bool tls() const { return tls_ != nullptr; }
  /// Reads what has come (at most `size` bytes).
  awaitable<size_t> read_some(char* data, size_t size, error_code& ec);
  /// Writes all of `bytes`.
  awaitable<void> write(std::string_view bytes, error_code& ec);
  /// Writes what the socket takes at once without waiting (0 over TLS: write() then does it).
  size_t try_write(std::string_view bytes, error_code& ec);
  const config::ShardConfig& shard() const { return shard_; }
  int shard_index() const { return shard_index_; }
  int32_t pid() const { return pid_; }
  int32_t secret() const { return secret_; }
  /// Which use of the connection this is: it changes each time the connection goes back to its
  /// pool, so a cancel meant for one client's statement never reaches the next user's.
  uint64_t lease() const { return lease_.load(std::memory_order_acquire); }
  void end_lease() { lease_.fetch_add(1, std::memory_order_acq_rel); }

  /// Incoming bytes not yet processed.
  ByteBuffer& input() { return in_; }

  /// Parameters the server reported with ParameterStatus, latest value each.
  std::map<std::string, std::string>& reported_params() { return reported_; }
  /// Session settings applied on this connection: parameter → the statement that set it.
  std::map<std::string, std::string>& session_settings() { return settings_; }
  /// Names of the protocol-level prepared statements this connection holds.
  std::unordered_set<std::string>& prepared() { return prepared_; }

  /// Marks the connection unusable; the pool closes it instead of reusing it.
  void mark_broken() { broken_ = true; }
  bool broken() const { return broken_ || !socket_.is_open(); }
  /// Marks the connection to be closed when it goes back to its pool, never handed to another
  /// client: its session is not in the state pgrange believes (restoring settings failed). The
  /// session holding it may still finish what it sent.
  void retire() { retired_ = true; }
  bool retired() const { return retired_; }

  /// Sends a simple Query and reads until ReadyForQuery, discarding results; returns the first
  /// error the server reported. Only for use while no other reader is active on the socket.
  awaitable<Result<void>> run_simple(std::string sql);
  /// The second half of run_simple, for a Query already sent (several connections each sent
  /// theirs before any is read, so that their shards work at once).
  awaitable<Result<void>> finish_simple();
  /// Writes bytes to the server; reads its next whole message (errors name the shard).
  awaitable<Result<void>> send(std::string_view bytes);
  awaitable<Result<void>> read_message(char& type, std::string& body);

  /// The index notes (NoticeResponse bodies with SQLSTATE PGRIX, from the trigger that reports
  /// rows written to a table with global indexes) read_message() took off the stream since
  /// they were last taken, each with its place in the order this process read notes in (one
  /// statement's parts run one after the other, so that is the order of the writes).
  std::vector<std::pair<uint64_t, std::string>>& index_notes() { return index_notes_; }

  /// When the connection last went back to its pool.
  std::chrono::steady_clock::time_point idle_since;
  /// In its pool's idle list (SHOW SERVERS).
  bool idle = false;
  /// The session that took it from its pool (nullptr while idle): while RELOAD holds new
  /// transactions back, a session that holds a connection may take more to finish its own.
  const void* holder = nullptr;
  /// When it was opened (SHOW SERVERS).
  std::chrono::system_clock::time_point connected_at = std::chrono::system_clock::now();

  /// Whether, in the transaction open there, the server reported a command that writes
  /// (CommandComplete of INSERT, UPDATE, DELETE, MERGE, COPY, DDL…) through read_message. Not
  /// set does not mean it did not write: answers read as raw bytes, and a SELECT calling a
  /// function that writes, are not seen (end_transaction asks the server about those).
  bool surely_wrote() const { return surely_wrote_; }

  /// Where its worker counts the shard's answers (nullptr: not counted).
  void set_counters(ShardCounters* counters) { counters_ = counters; }
  /// Counts a ReadyForQuery (its transaction status) or an ErrorResponse the shard sent.
  void count_ready(char status) {
    if (counters_ == nullptr) return;
    counters_->requests.add();
    if (status == 'I') counters_->transactions.add();
  }
  void count_error() {
    if (counters_ != nullptr) counters_->errors.add();
  }

 private:
  awaitable<Result<void>> startup(const BackendLogin& login);
  Error shard_error(std::string what) const;

  tcp::socket socket_;
  std::unique_ptr<asio::ssl::stream<tcp::socket&>> tls_;
  const config::ShardConfig& shard_;
  int shard_index_;
  int32_t pid_ = 0;
  int32_t secret_ = 0;
  bool broken_ = false;
  bool retired_ = false;
  bool surely_wrote_ = false;
  std::atomic<uint64_t> lease_{0};
  ByteBuffer in_;
  std::map<std::string, std::string> reported_;
  std::map<std::string, std::string> settings_;
  std::unordered_set<std::string> prepared_;
  std::vector<std::pair<uint64_t, std::string>> index_notes_;
  ShardCounters* counters_ = nullptr;
};

/// Whether a NoticeResponse body is an index note (its SQLSTATE field is PGRIX).
bool is_index_note(std::string_view notice_body);

/// What a backend answered, up to its `readies`-th ReadyForQuery: the (last) RowDescription,
/// the DataRow bodies, the NoticeResponse bodies, the last CommandComplete tag and the first
/// ErrorResponse body.
struct BackendReply {
  std::optional<std::string> description;
  std::vector<std::string> rows;
  std::vector<std::string> notices;
  std::string tag;
  std::optional<std::string> error;
};

/// Reads a backend's answer to what was sent (marks the connection broken if reading fails).
awaitable<Result<BackendReply>> read_replies(BackendConnection& conn, int readies = 1);

/// Sends a CancelRequest for (pid, secret) to a shard (protocol §55.2.7).
awaitable<void> send_cancel_request(const config::ShardConfig& shard, int32_t pid, int32_t secret);

}  // namespace pgrange::proxy
