#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pgrange::sql {

/// A statement that changes state kept by a PostgreSQL session beyond its transaction, which a
/// transaction-pooling proxy must carry to the next backend or pin the client for.
enum class SessionEffectKind {
  kSet,                ///< SET / SET SESSION name …   (name = the parameter, lowercased)
  kReset,              ///< RESET name
  kResetAll,           ///< RESET ALL
  kDiscardAll,         ///< DISCARD ALL
  kDiscardTemp,        ///< DISCARD TEMP / TEMPORARY
  kPrepare,            ///< PREPARE name
  kDeallocate,         ///< DEALLOCATE [PREPARE] name
  kDeallocateAll,      ///< DEALLOCATE [PREPARE] ALL
  kListen,             ///< LISTEN channel
  kUnlisten,           ///< UNLISTEN channel
  kUnlistenAll,        ///< UNLISTEN *
  kDeclareHold,        ///< DECLARE name … WITH HOLD
  kClose,              ///< CLOSE name
  kCloseAll,           ///< CLOSE ALL
  kCreateTemp,         ///< CREATE TEMP/TEMPORARY TABLE/VIEW/SEQUENCE
  kAdvisoryLock,       ///< a session-level pg_advisory_lock / pg_try_advisory_lock call
  kAdvisoryUnlockAll,  ///< pg_advisory_unlock_all()
  kSetConfig,          ///< set_config(…): its scope is only known at run time
  kExecute,            ///< EXECUTE name (may name a protocol-level prepared statement)
  kSavepoint,          ///< SAVEPOINT name
  kRollbackTo,         ///< ROLLBACK [WORK|TRANSACTION] TO [SAVEPOINT] name
  kRelease,            ///< RELEASE [SAVEPOINT] name
};

/// One session effect found in a query string.
struct SessionEffect {
  SessionEffectKind kind;
  std::string name;       ///< parameter, statement, channel or cursor name, as PostgreSQL folds it
  std::string statement;  ///< the statement's text (for kSet: what to replay on another backend)
  size_t name_begin = 0;  ///< offset of the name in the query (kExecute, kDeallocate)
  size_t name_end = 0;
  bool sole_statement = false;  ///< the query holds this statement only
  size_t statement_index = 0;   ///< which statement of the query (0-based)
  size_t statement_begin = 0;   ///< offsets of the statement's text in the query
  size_t statement_end = 0;
};

/// Finds the session effects of each statement in a simple-protocol query string. A small lexer
/// (comments, quoted strings and identifiers, dollar quotes) so that text inside literals never
/// counts. SET LOCAL, SET TRANSACTION and SET CONSTRAINTS only last for the transaction and are
/// not reported.
std::vector<SessionEffect> session_effects(std::string_view query);

}  // namespace pgrange::sql
