// ClientSession after its shard connection died inside a transaction block: the transaction
// is gone, so the client stays in the failed-transaction state (ReadyForQuery 'E') until it
// ends the block, as if the statement that met the loss had failed. pgrange answers these
// messages itself: no backend holds the transaction any more.

#include <spdlog/spdlog.h>

#include "proxy/control/control_plane.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/frame_reader.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"

namespace pgrange::proxy {
namespace {

/// COMMIT, END, ROLLBACK, ABORT or PREPARE TRANSACTION: what ends a failed transaction block
/// (PostgreSQL answers each with the tag ROLLBACK there). AND CHAIN (a new transaction right
/// after) is not among them: pgrange cannot open the chained one with the old one's modes.
bool ends_failed_block(const sql::StatementInfo& info, std::string_view text) {
  if (info.kind != sql::StatementKind::kTransaction) return false;
  const std::string& k = info.transaction_kind;
  if (k != "commit" && k != "rollback" && k != "prepare") return false;
  std::string words;
  for (char c : text.substr(info.begin, info.end - info.begin)) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::isspace(static_cast<unsigned char>(l))) {
      if (!words.empty() && words.back() != ' ') words += ' ';
    } else {
      words += l;
    }
  }
  return words.find("and chain") == std::string::npos;
}

}  // namespace

void ClientSession::lose_transaction(bool in_block) {
  began_unconfirmed_ = false;
  deferred_begin_.clear();
  txn_effects_.clear();
  savepoints_.clear();
  sync_log_.clear();
  sync_error_ = false;
  leave_ranges();
  if (in_block) {
    txn_lost_ = true;
    txn_status_ = 'E';
  } else {
    txn_status_ = 'I';
  }
}

awaitable<bool> ClientSession::run_in_lost_transaction(char type, std::string_view body,
                                                       std::string_view raw, std::string& out) {
  std::string reply;
  emit_ready_synthetics(reply);
  // PostgreSQL's answer to anything but the end of the block (§55.2.3: the extended protocol
  // then skips to Sync).
  auto refuse = [&](const Error& e) {
    write_error(reply, e);
    if (type == 'Q' || type == 'F') {
      write_ready_for_query(reply, txn_status_);
    } else {
      skip_until_sync_ = true;
    }
    channel_.send(std::move(reply));
  };
  auto end_block = [&] {
    txn_lost_ = false;
    txn_status_ = 'I';
    lost_statements_.clear();
    lost_portals_.clear();
    MessageWriter(reply).begin('C').cstr("ROLLBACK").end();
  };
  BodyReader br(body);
  switch (type) {
    case 'Q': {
      std::string_view text;
      if (!br.cstr(text)) co_return true;
      auto analysis = worker_.analyze(text);
      if (!*analysis) {
        refuse(analysis->error());  // a syntax error is found before the state matters
        co_return true;
      }
      const auto& infos = **analysis;
      if (infos.empty()) {
        MessageWriter(reply).begin('I').end();  // EmptyQueryResponse
        write_ready_for_query(reply, txn_status_);
        channel_.send(std::move(reply));
        co_return true;
      }
      if (!ends_failed_block(infos.front(), text)) {
        refuse(aborted_transaction_error());
        co_return true;
      }
      end_block();
      if (infos.size() == 1) {
        write_ready_for_query(reply, txn_status_);
        channel_.send(std::move(reply));
        co_return true;
      }
      channel_.send(std::move(reply));
      // The statements after it run as they would after the ROLLBACK: as a query of their own.
      std::string rest;
      write_query(rest, std::string(text.substr(infos[1].begin)));
      std::string_view rest_body(rest.data() + 5, rest.size() - 5);
      if (worker_.shared().control != nullptr) {
        bool ok = true;
        if (!co_await route_message('Q', rest_body, rest, out, ok)) co_return ok;
        if (!rewritten_message_.empty()) {
          rest = rewritten_message_;  // the INSERT with the keys pgrange made
          rest_body = std::string_view(rest.data() + 5, rest.size() - 5);
        }
      }
      co_return co_await handle_message('Q', rest_body, rest, out);
    }
    case 'P': {
      std::string_view name, text;
      if (!br.cstr(name) || !br.cstr(text)) co_return true;
      auto analysis = worker_.analyze(text);
      if (!*analysis) {
        refuse(analysis->error());
        co_return true;
      }
      if ((*analysis)->size() != 1 || !ends_failed_block((*analysis)->front(), text)) {
        refuse(aborted_transaction_error());
        co_return true;
      }
      lost_statements_.insert(std::string(name));
      if (transaction_pooling_) {
        // The statement exists afterwards, as in PostgreSQL: prepared where it is next bound.
        BodyReader after_name(body);
        std::string_view ignored;
        after_name.cstr(ignored);
        std::string tail(after_name.rest());
        if (name.empty()) {
          unnamed_analysis_ = analysis;
          unnamed_tail_ = tail;
          unnamed_effects_.clear();
          deferred_parse_.assign(raw);
        } else {
          statements_[std::string(name)] =
              ClientStatement{worker_.statement_name(tail), analysis, tail, {}};
        }
      }
      MessageWriter(reply).begin('1').end();
      break;
    }
    case 'B': {
      std::string_view portal, statement;
      if (!br.cstr(portal) || !br.cstr(statement) || lost_statements_.count(statement) == 0) {
        refuse(aborted_transaction_error());
        co_return true;
      }
      lost_portals_.insert(std::string(portal));
      MessageWriter(reply).begin('2').end();
      break;
    }
    case 'D': {
      char what = 0;
      std::string_view name;
      bool known = br.byte(what) && br.cstr(name) &&
                   (what == 'S' ? lost_statements_.count(name) : lost_portals_.count(name)) != 0;
      if (!known) {
        refuse(aborted_transaction_error());
        co_return true;
      }
      // A transaction statement has no parameters and returns no rows.
      if (what == 'S') MessageWriter(reply).begin('t').i16(0).end();
      MessageWriter(reply).begin('n').end();
      break;
    }
    case 'E': {
      std::string_view portal;
      if (!br.cstr(portal) || lost_portals_.count(portal) == 0) {
        refuse(aborted_transaction_error());
        co_return true;
      }
      end_block();
      break;
    }
    case 'C': {
      char what = 0;
      std::string_view name;
      if (br.byte(what) && br.cstr(name)) {
        if (what == 'S') {
          lost_statements_.erase(std::string(name));
          if (transaction_pooling_ && !name.empty()) statements_.erase(std::string(name));
        } else {
          lost_portals_.erase(std::string(name));
        }
      }
      MessageWriter(reply).begin('3').end();
      break;
    }
    case 'S':
      unsynced_ = false;
      write_ready_for_query(reply, txn_status_);
      break;
    case 'F':
      refuse(aborted_transaction_error());
      co_return true;
    default:  // Flush, and COPY data after the COPY is gone: nothing to answer
      break;
  }
  if (!reply.empty()) channel_.send(std::move(reply));
  co_return true;
}

}  // namespace pgrange::proxy
