#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pgrange::sql {

/// A statement that changes state kept by a PostgreSQL session beyond its transaction, which a
/// transaction-pooling proxy must carry to the next backend or pin the client for.
enum class SessionEffectKind {
  kSet,                ///< SET / SET SESSION name …   (name = the parameter, lowercased)
  kReset,              ///< RESET name, SET name TO DEFAULT, SET ROLE NONE, …
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
  kCreateTemp,         ///< CREATE TEMP …, CREATE … pg_temp.x, SELECT … INTO TEMP
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
/// counts. SET LOCAL, SET TRANSACTION (also as SET transaction_isolation …) and SET CONSTRAINTS
/// only last for the transaction and are not reported. SET SESSION CHARACTERISTICS AS
/// TRANSACTION reports one kSet per mode, named for the setting it changes
/// (default_transaction_isolation, default_transaction_read_only, default_transaction_deferrable)
/// with a statement that sets it alone.
std::vector<SessionEffect> session_effects(std::string_view query);

/// The first keyword of a query in lower case ("" when it starts with something else), after
/// blanks, comments, '(' and ';': what kind of statement it is, without parsing it.
std::string leading_keyword(std::string_view query);
/// The same word as it is written (not folded), a view into `query`.
std::string_view leading_word(std::string_view query);

/// Whether a query (its first statement) ends a transaction block by committing it: COMMIT,
/// END, or PREPARE TRANSACTION.
bool commits_block(std::string_view query);

}  // namespace pgrange::sql
