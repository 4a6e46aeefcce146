#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/error.hpp"
#include "proxy/asio.hpp"
#include "proxy/backend_connection.hpp"
#include "proxy/byte_buffer.hpp"
#include "proxy/cancel_registry.hpp"
#include "proxy/client_channel.hpp"
#include "sql/session_statement.hpp"

namespace pgrange::proxy {

class Worker;

/// One client connection from startup to Terminate: authentication, then the message loop that
/// forwards the client's messages to a pooled backend and streams the replies back, keeping
/// session state (SET, prepared statements) intact across backends in transaction pooling.
class ClientSession : public std::enable_shared_from_this<ClientSession> {
 public:
  ClientSession(Worker& worker, tcp::socket socket);
  ~ClientSession();

  /// Runs the session to its end.
  awaitable<void> run();

  /// Ends the session after its current transaction (used when pgrange shuts down).
  void drain();

 private:
  /// What a request sent to the backend will produce, in order (protocol §55.2.3: responses
  /// come in the order of requests; after an error, everything until Sync is skipped).
  enum class Pending : uint8_t {
    kParse,         ///< the client's Parse: forward ParseComplete
    kSwallowParse,  ///< a Parse pgrange added: hide its ParseComplete
    kBind,
    kDescribe,
    kExecute,
    kClose,
    kSync,
    kQuery,           ///< simple Query: ends at ReadyForQuery
    kFunctionCall,    ///< FunctionCall: ends at ReadyForQuery
    kSwallowQuery,    ///< a Query pgrange added (session state sync): hide everything
    kSyntheticParse,  ///< answer ParseComplete without the backend (statement already there)
    kSyntheticClose,  ///< answer CloseComplete without the backend
  };
  struct PendingEntry {
    Pending kind;
    bool error = false;                       ///< an ErrorResponse came for this Query
    std::string name;                         ///< backend statement name for Parse entries
    std::vector<sql::SessionEffect> effects;  ///< session effects of a simple Query
    std::string last_tag;                     ///< the last CommandComplete tag of a Query
  };
  /// A client's named prepared statement.
  struct ClientStatement {
    std::string backend_name;
    std::string parse_tail;  ///< query text, NUL, parameter count and types
  };

  awaitable<bool> startup();
  awaitable<bool> authenticate(const std::string& user);
  awaitable<bool> read_startup_packet(std::string& body);
  awaitable<bool> login();
  awaitable<void> message_loop();
  awaitable<void> backend_loop(std::shared_ptr<BackendConnection> conn);

  /// Handles one client message; appends what goes to the backend to `out`.
  awaitable<bool> handle_message(char type, std::string_view body, std::string_view raw,
                                 std::string& out);
  awaitable<bool> ensure_backend(std::string& out);
  void push(Pending kind, std::string name = {});
  void ensure_prepared(const ClientStatement& st, std::string& out);
  void emit_ready_synthetics(std::string& out);
  void process_backend_messages(BackendConnection& conn, std::string& out, bool& release);
  void finish_query(PendingEntry& entry, char status);
  void apply_effects(const std::vector<sql::SessionEffect>& effects, bool committed);
  void pin_effects(const std::vector<sql::SessionEffect>& effects);
  bool pinned() const;
  bool can_release() const;
  std::string state_sync_sql(BackendConnection& conn);
  void release_backend(bool reusable);
  void send_error(const Error& e);
  void fail_pending(bool server_already_reported);

  Worker& worker_;
  ClientChannel channel_;
  ByteBuffer in_;
  std::string user_;
  std::string database_;
  std::vector<std::pair<std::string, std::string>> startup_params_;
  std::map<std::string, std::string> startup_settings_;
  std::map<std::string, std::string> desired_settings_;
  bool transaction_pooling_ = true;
  std::shared_ptr<BackendConnection> backend_;
  bool reader_running_ = false;
  std::deque<PendingEntry> pending_;
  bool unsynced_ = false;
  bool skip_until_sync_ = false;
  bool in_copy_ = false;
  char txn_status_ = 'I';
  bool closing_ = false;
  bool draining_ = false;
  bool fatal_seen_ = false;
  std::unordered_map<std::string, ClientStatement> statements_;
  std::vector<sql::SessionEffect> txn_effects_;  ///< SETs inside the open transaction block
  // Session state that cannot move between backends pins the client to its backend.
  int sql_prepared_ = 0;
  int hold_cursors_ = 0;
  bool listening_ = false;
  bool temp_objects_ = false;
  bool advisory_locks_ = false;
  bool set_config_used_ = false;
  bool was_pinned_ = false;
  std::shared_ptr<CancelTarget> cancel_target_;
  int32_t key_pid_ = 0;
  int32_t key_secret_ = 0;
  asio::steady_timer released_;
};

}  // namespace pgrange::proxy
