#include "routing/moves/pgoutput.hpp"

#include <chrono>

namespace pgrange::routing::pgoutput {
namespace {

/// Reads big-endian integers and NUL-terminated strings, refusing to read past the end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  bool ok() const { return ok_; }
  bool done() const { return pos_ == bytes_.size(); }
  void fail() { ok_ = false; }

  uint64_t uint(size_t width) {
    if (!ok_ || bytes_.size() - pos_ < width) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < width; ++i) v = v << 8 | static_cast<uint8_t>(bytes_[pos_ + i]);
    pos_ += width;
    return v;
  }
  char byte() { return static_cast<char>(uint(1)); }
  std::string string() {
    if (!ok_) return {};
    size_t end = bytes_.find('\0', pos_);
    if (end == std::string_view::npos) {
      ok_ = false;
      return {};
    }
    std::string s(bytes_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  std::string_view bytes(size_t n) {
    if (!ok_ || bytes_.size() - pos_ < n) {
      ok_ = false;
      return {};
    }
    std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::string_view rest() {
    std::string_view s = ok_ ? bytes_.substr(pos_) : std::string_view{};
    pos_ = bytes_.size();
    return s;
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

Error malformed(std::string_view what) {
  return Error::make(sqlstate::kProtocolViolation,
                     "malformed logical replication message: " + std::string(what));
}

/// TupleData: Int16 columns, then per column 'n', 'u', or 't'/'b' Int32 length and bytes.
std::vector<Value> tuple(Reader& in) {
  std::vector<Value> values(static_cast<size_t>(in.uint(2)));
  for (Value& v : values) {
    switch (in.byte()) {
      case 'n':
        v.kind = Value::Kind::kNull;
        break;
      case 'u':
        v.kind = Value::Kind::kUnchanged;
        break;
      case 't':
        v.kind = Value::Kind::kText;
        v.text = std::string(in.bytes(static_cast<size_t>(in.uint(4))));
        break;
      default:  // 'b' comes with the binary option only, which pgrange does not ask for
        in.fail();
        return {};
    }
  }
  return values;
}

}  // namespace

Result<Message> decode(std::string_view bytes) {
  Reader in(bytes);
  Message m;
  switch (in.byte()) {
    case 'B':  // Int64 final LSN, Int64 commit time, Int32 xid
      m.kind = Message::Kind::kBegin;
      in.bytes(20);
      break;
    case 'C':  // Int8 flags, Int64 commit LSN, Int64 end LSN, Int64 commit time
      m.kind = Message::Kind::kCommit;
      in.uint(1);
      in.uint(8);
      m.end_lsn = in.uint(8);
      in.uint(8);
      break;
    case 'R': {
      m.kind = Message::Kind::kRelation;
      m.relation.oid = static_cast<uint32_t>(in.uint(4));
      m.relation.schema = in.string();
      m.relation.name = in.string();
      m.relation.identity = static_cast<char>(in.uint(1));
      const size_t n = static_cast<size_t>(in.uint(2));
      for (size_t i = 0; i < n && in.ok(); ++i) {
        Relation::Column c;
        c.key = (in.uint(1) & 1) != 0;
        c.name = in.string();
        c.type_oid = static_cast<uint32_t>(in.uint(4));
        in.uint(4);  // typmod
        m.relation.columns.push_back(std::move(c));
      }
      m.relation_oid = m.relation.oid;
      break;
    }
    case 'I':
      m.kind = Message::Kind::kInsert;
      m.relation_oid = static_cast<uint32_t>(in.uint(4));
      if (in.byte() != 'N') return tl::unexpected(malformed("an insert without its new row"));
      m.new_values = tuple(in);
      break;
    case 'U': {
      m.kind = Message::Kind::kUpdate;
      m.relation_oid = static_cast<uint32_t>(in.uint(4));
      char part = in.byte();
      if (part == 'K' || part == 'O') {
        m.old_values = tuple(in);
        part = in.byte();
      }
      if (part != 'N') return tl::unexpected(malformed("an update without its new row"));
      m.new_values = tuple(in);
      break;
    }
    case 'D': {
      m.kind = Message::Kind::kDelete;
      m.relation_oid = static_cast<uint32_t>(in.uint(4));
      char part = in.byte();
      if (part != 'K' && part != 'O') {
        return tl::unexpected(malformed("a delete without its old key"));
      }
      m.old_values = tuple(in);
      break;
    }
    case 'T':
      m.kind = Message::Kind::kTruncate;
      in.rest();
      break;
    case 'M':  // Int8 flags, [Int64 LSN], String prefix, Int32 length, bytes
      m.kind = Message::Kind::kMessage;
      in.uint(1);
      in.uint(8);
      m.prefix = in.string();
      m.content = std::string(in.bytes(static_cast<size_t>(in.uint(4))));
      break;
    case 'O':
    case 'Y':
      m.kind = Message::Kind::kOther;
      in.rest();
      break;
    default:
      return tl::unexpected(malformed("unknown message type"));
  }
  if (!in.ok()) return tl::unexpected(malformed("truncated"));
  if (!in.done()) return tl::unexpected(malformed("trailing bytes"));
  return m;
}

Result<StreamFrame> decode_frame(std::string_view bytes) {
  Reader in(bytes);
  StreamFrame f;
  switch (in.byte()) {
    case 'w':  // Int64 start, Int64 end, Int64 send time, payload
      f.kind = StreamFrame::Kind::kData;
      f.wal_start = in.uint(8);
      in.uint(8);
      in.uint(8);
      f.payload = in.rest();
      break;
    case 'k':  // Int64 end, Int64 send time, Byte1 reply requested
      f.kind = StreamFrame::Kind::kKeepalive;
      f.wal_end = in.uint(8);
      in.uint(8);
      f.reply_requested = in.byte() != 0;
      break;
    default:
      return tl::unexpected(malformed("unknown replication frame"));
  }
  if (!in.ok()) return tl::unexpected(malformed("truncated replication frame"));
  return f;
}

std::string status_update(uint64_t lsn, bool reply_requested) {
  // Microseconds since 2000-01-01, PostgreSQL's epoch.
  constexpr int64_t kPostgresEpochMicros = 946684800LL * 1000000;
  const int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count() -
                      kPostgresEpochMicros;
  std::string out = "r";
  auto put = [&](uint64_t v) {
    for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>(v >> shift & 0xff);
  };
  put(lsn);  // written
  put(lsn);  // flushed
  put(lsn);  // applied
  put(static_cast<uint64_t>(now));
  out += reply_requested ? '\1' : '\0';
  return out;
}

}  // namespace pgrange::routing::pgoutput
