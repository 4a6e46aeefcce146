#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"

/// The messages of a logical replication stream as PostgreSQL's pgoutput plugin writes them
/// (protocol version 1, text values), and the replication protocol's own framing around them
/// (PostgreSQL documentation, 55.4 "Streaming Replication Protocol" and 55.9 "Logical
/// Replication Message Formats"). Decoding only: no connection here.
namespace pgrange::routing::pgoutput {

/// One column value of a tuple.
struct Value {
  enum class Kind { kNull, kUnchanged, kText };
  Kind kind = Kind::kNull;
  std::string text;  ///< for kText
};

/// A relation as the stream describes it before its first change ('R').
struct Relation {
  uint32_t oid = 0;
  std::string schema;
  std::string name;
  /// REPLICA IDENTITY: 'd' default (the primary key), 'i' an index, 'f' full, 'n' nothing.
  char identity = 'd';
  struct Column {
    std::string name;
    uint32_t type_oid = 0;
    bool key = false;  ///< part of the replica identity
  };
  std::vector<Column> columns;
};

/// One message of pgoutput.
struct Message {
  enum class Kind {
    kBegin,
    kCommit,
    kRelation,
    kInsert,
    kUpdate,
    kDelete,
    kTruncate,
    kMessage,  ///< pg_logical_emit_message
    kOther,    ///< origin, type: nothing to apply
  };
  Kind kind = Kind::kOther;
  uint32_t relation_oid = 0;  ///< insert, update, delete
  Relation relation;          ///< kRelation
  /// update, delete: the replica identity's old values ('K', other columns NULL) or the whole
  /// old row ('O'); empty when an update did not change the identity.
  std::vector<Value> old_values;
  std::vector<Value> new_values;  ///< insert, update
  uint64_t end_lsn = 0;           ///< commit: the end of the commit record
  std::string prefix;             ///< kMessage
  std::string content;            ///< kMessage
};

/// Decodes one pgoutput message (the payload of an XLogData message); 08P01 for bytes that do
/// not make one.
Result<Message> decode(std::string_view bytes);

/// One CopyData message of a replication stream from the server.
struct StreamFrame {
  enum class Kind { kData, kKeepalive };
  Kind kind = Kind::kData;
  uint64_t wal_start = 0;  ///< XLogData: where its WAL is
  uint64_t wal_end = 0;    ///< keepalive: the server's position
  bool reply_requested = false;
  std::string_view payload;  ///< XLogData: the pgoutput message (points into the frame)
};

/// Decodes a CopyData frame of a replication stream ('w' XLogData or 'k' keepalive).
Result<StreamFrame> decode_frame(std::string_view bytes);

/// The standby status update a client sends ('r'): written, flushed and applied up to `lsn`.
std::string status_update(uint64_t lsn, bool reply_requested);

}  // namespace pgrange::routing::pgoutput
