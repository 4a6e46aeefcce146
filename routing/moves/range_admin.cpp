#include "routing/moves/range_admin.hpp"

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <climits>
#include <ctime>
#include <map>
#include <pqxx/pqxx>
#include <set>

#include "routing/keys/key_space.hpp"
#include "routing/keys/pretty_key.hpp"
#include "routing/meta/colocation.hpp"
#include "routing/meta/schema_catalog.hpp"
#include "routing/moves/range_copy.hpp"
#include "routing/moves/range_data.hpp"
#include "routing/plan/key_predicate.hpp"
#include "routing/plan/router.hpp"
#include "routing/plan/shard_unique_index.hpp"

namespace pgrange::routing {
namespace {

constexpr int kApplyAttempts = 5;
constexpr std::chrono::seconds kMoveWait{10};
/// An instance without a heartbeat this long is gone (heartbeats come every second).
constexpr std::chrono::seconds kOrphanSilence{10};

/// What a move's publication, slot and prepared transactions are named after.
std::string move_name(int64_t job_id) {
  return "pgrange_move_" + std::to_string(job_id);
}

/// The job of a name move_name made (with a ":target"/":source" suffix for a gid).
std::optional<int64_t> move_job_id(std::string_view name) {
  constexpr std::string_view kPrefix = "pgrange_move_";
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  int64_t id = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
  if (ec != std::errc() || end == name.data()) return std::nullopt;
  return id;
}

tl::unexpected<Error> admin_error(std::string_view code, std::string msg) {
  return tl::unexpected(Error::make(code, std::move(msg)));
}

/// The table an admin statement names ("t" or "schema.t").
Result<const TableDescriptor*> find_table(const ClusterView& view, const std::string& name) {
  std::string schema, table = name;
  if (auto dot = name.find('.'); dot != std::string::npos) {
    schema = name.substr(0, dot);
    table = name.substr(dot + 1);
  }
  const TableDescriptor* t = view.find_table(schema, table);
  if (t == nullptr) {
    return admin_error(sqlstate::kUndefinedTable, "relation \"" + name + "\" does not exist");
  }
  return t;
}

/// What an admin statement's `t@index` names: the table (its primary index: no index,
/// "primary" or "<t>_pkey") or one of its global indexes, as a keyed relation.
Result<TableDescriptor> named_relation(const ClusterView& view, const sql::AdminStatement& stmt) {
  auto t = find_table(view, stmt.table);
  if (!t) return tl::unexpected(t.error());
  if (stmt.index.empty() || stmt.index == "primary" || stmt.index == (*t)->name + "_pkey") {
    return **t;
  }
  if (const IndexDescriptor* i = find_index(**t, stmt.index)) return index_relation(**t, *i);
  return admin_error("42704",
                     "index \"" + stmt.index + "\" does not exist on table \"" + (*t)->name + "\"");
}

std::vector<KeyColumn> key_columns(const TableDescriptor& t) {
  std::vector<KeyColumn> cols;
  for (const auto& k : t.key) cols.push_back(k.column);
  return cols;
}

/// Encodes the values of one VALUES tuple as a (prefix) key of the table's primary index.
Result<std::string> tuple_key(const TableDescriptor& t, const std::vector<sql::AdminValue>& row) {
  if (row.empty()) return admin_error(sqlstate::kSyntaxError, "a key needs at least one value");
  if (row.size() > t.key.size()) {
    return admin_error(
        sqlstate::kSyntaxError, "too many values: table \"" + t.name + "\" has " +
                                    std::to_string(t.key.size()) + " key column" +
                                    (t.key.size() == 1 ? "" : "s") + " (" +
                                    [&] {
                                      std::string names;
                                      for (const auto& k : t.key) {
                                        if (!names.empty()) names += ", ";
                                        names += k.name;
                                      }
                                      return names;
                                    }() +
                                    ")");
  }
  std::vector<std::optional<std::string_view>> values;
  for (const auto& v : row) {
    values.push_back(v.is_null ? std::nullopt : std::optional<std::string_view>(v.text));
  }
  auto cols = key_columns(t);
  auto key = encode_key_text(t.table_id, t.index_id, std::span(cols).first(row.size()), values);
  if (!key) {
    Error e = key.error();
    // Say which column the value was for, as PostgreSQL would for a bad literal.
    for (size_t i = 0; i < row.size(); ++i) {
      std::optional<std::string_view> one[1] = {values[i]};
      auto single = encode_key_text(t.table_id, t.index_id, std::span(cols).subspan(i, 1), one);
      if (!single) {
        e.detail = "value for key column \"" + t.key[i].name + "\" (" +
                   std::string(key_type_name(t.key[i].column.type)) + ")";
        break;
      }
    }
    return tl::unexpected(e);
  }
  return key;
}

/// The refusal of splitting or moving a reference table's one range.
Error reference_refusal(const TableDescriptor& t, std::string_view what) {
  return Error::make(sqlstate::kFeatureNotSupported,
                     "table \"" + t.name + "\" is a reference table: every shard holds all of " +
                         "its rows, so it cannot " + std::string(what));
}

Result<void> require_sharded(const TableDescriptor& t, std::string_view what) {
  if (t.reference) return tl::unexpected(reference_refusal(t, what));
  if (!t.key.empty()) return {};
  return tl::unexpected(
      Error::make(sqlstate::kFeatureNotSupported,
                  "table \"" + t.name + "\" is unsharded (it has no primary key and no key in " +
                      "the configuration), so it cannot " + std::string(what))
          .with_hint("add a primary key (ALTER TABLE " + t.name +
                     " ADD PRIMARY KEY (…)); the table can still be moved with ALTER RANGE … "
                     "RELOCATE"));
}

std::string dsn_without_password(const std::string& dsn) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  if (opts == nullptr) {
    if (err) PQfreemem(err);
    return "";
  }
  std::string out;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val == nullptr || o->val[0] == '\0' || std::string_view(o->keyword) == "password") {
      continue;
    }
    if (!out.empty()) out += ' ';
    out += std::string(o->keyword) + "=" + o->val;
  }
  PQconninfoFree(opts);
  return out;
}

/// What SHOW SHARDS tells of one shard: whether it answers, and the digest of its schema.
struct ShardProbe {
  bool reachable = false;
  std::optional<std::string> schema_digest;
};

ShardProbe probe(const std::string& dsn) {
  ShardProbe out;
  std::string conninfo = dsn + " connect_timeout=2";
  PGconn* c = PQconnectdb(conninfo.c_str());
  out.reachable = c != nullptr && PQstatus(c) == CONNECTION_OK;
  if (out.reachable) {
    PGresult* r = PQexec(c, schema_digest_sql().c_str());
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
      out.schema_digest = PQgetvalue(r, 0, 0);
    } else {
      spdlog::warn("SHOW SHARDS: describing the schema failed: {}", PQerrorMessage(c));
    }
    PQclear(r);
  }
  if (c) PQfinish(c);
  return out;
}

/// Evaluates WITH EXPIRATION: NULL, or a timestamp or interval literal (optionally cast).
Result<std::optional<int64_t>> expiration_micros(MetadataStore& store, const std::string& expr) {
  std::string e = expr;
  while (!e.empty() && std::isspace(static_cast<unsigned char>(e.back()))) e.pop_back();
  std::string upper = e;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "NULL") return std::optional<int64_t>();
  // '…' with doubled quotes inside, then an optional ::type.
  if (e.size() < 2 || e[0] != '\'') {
    return admin_error(sqlstate::kSyntaxError,
                       "WITH EXPIRATION takes NULL, a timestamp or an interval literal");
  }
  std::string literal;
  size_t i = 1;
  for (; i < e.size(); ++i) {
    if (e[i] == '\'') {
      if (i + 1 < e.size() && e[i + 1] == '\'') {
        literal += '\'';
        ++i;
        continue;
      }
      break;
    }
    literal += e[i];
  }
  std::string rest = i < e.size() ? e.substr(i + 1) : "";
  std::string type;
  for (char c : rest) {
    if (!std::isspace(static_cast<unsigned char>(c)) && c != ':')
      type += static_cast<char>(std::tolower(c));
  }
  auto r = store.expiration_micros(literal, type);
  if (!r) return tl::unexpected(r.error());
  return std::optional<int64_t>(*r);
}

}  // namespace

std::string format_enforced_until(int64_t micros) {
  if (micros == INT64_MAX) return "infinity";
  int64_t secs = micros / 1000000;
  int64_t frac = micros % 1000000;
  if (frac < 0) {
    frac += 1000000;
    --secs;
  }
  time_t t = static_cast<time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  std::string out = buf;
  if (frac != 0) {
    char f[16];
    std::snprintf(f, sizeof f, ".%06" PRId64, frac);
    std::string fs = f;
    while (fs.back() == '0') fs.pop_back();
    out += fs;
  }
  return out;
}

std::string bytea_hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out = "\\x";
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

namespace {

/// The relations whose keys a range covers (several before any table splits it off; a global
/// index's ranges are its own), of `only` when given.
std::vector<const TableDescriptor*> range_relations(const ClusterView& view,
                                                    const RangeDescriptor& r,
                                                    const TableDescriptor* only) {
  std::vector<const TableDescriptor*> out;
  for (const TableDescriptor& t : view.relations()) {
    if (only && t.table_id != only->table_id) continue;
    std::string ts =
        t.index_id == 1 ? table_prefix(t.table_id) : index_prefix(t.table_id, t.index_id);
    std::string te = index_prefix(t.table_id, t.index_id + 1);
    if (t.index_id == 1 && t.indexes.empty()) te = table_prefix(t.table_id + 1);
    if (r.start_key < te && r.end_key > ts) out.push_back(&t);
  }
  return out;
}

/// table_name and index_name of a range's first relation (NULL, NULL for none).
std::pair<std::optional<std::string>, std::optional<std::string>> relation_names(
    const std::vector<const TableDescriptor*>& relations) {
  if (relations.empty()) return {std::nullopt, std::nullopt};
  const TableDescriptor* t = relations.front();
  if (t->index_id != 1) {
    // An index relation is named "<table>@<index>".
    size_t at = t->name.rfind('@');
    return {t->name.substr(0, at), t->name.substr(at + 1)};
  }
  return {t->name, t->reference     ? std::string("(reference)")
                   : t->key.empty() ? std::string("(unsharded)")
                                    : t->name + "_pkey"};
}

std::string format_qps(double qps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", qps);
  return buf;
}

}  // namespace

Result<ResultSet> RangeAdmin::show_hot_ranges() {
  auto view = control_.view();
  std::map<uint64_t, RangeRate> load;
  for (const RangeRate& r : control_.store().range_load(kOrphanSilence)) load[r.range_id] = r;
  struct Hot {
    const RangeDescriptor* range;
    RangeRate rate;
  };
  std::vector<Hot> hot;
  for (const RangeDescriptor& r : view->ranges().ranges()) {
    auto it = load.find(r.range_id);
    hot.push_back({&r, it == load.end() ? RangeRate{r.range_id, 0, 0, {}} : it->second});
  }
  std::stable_sort(hot.begin(), hot.end(), [](const Hot& a, const Hot& b) {
    return a.rate.read_qps + a.rate.write_qps > b.rate.read_qps + b.rate.write_qps;
  });
  ResultSet rs;
  rs.columns = {{"range_id", type_oid::kInt8},   {"table_name", type_oid::kText},
                {"index_name", type_oid::kText}, {"shard", type_oid::kText},
                {"start_key", type_oid::kText},  {"end_key", type_oid::kText},
                {"qps", type_oid::kFloat8},      {"read_qps", type_oid::kFloat8},
                {"write_qps", type_oid::kFloat8}};
  for (const Hot& h : hot) {
    auto [table_name, index_name] = relation_names(range_relations(*view, *h.range, nullptr));
    rs.rows.push_back({std::to_string(h.range->range_id), table_name, index_name, h.range->shard,
                       pretty_key(h.range->start_key), pretty_key(h.range->end_key),
                       format_qps(h.rate.read_qps + h.rate.write_qps), format_qps(h.rate.read_qps),
                       format_qps(h.rate.write_qps)});
  }
  rs.tag = "SELECT " + std::to_string(rs.rows.size());
  return rs;
}

Result<ResultSet> RangeAdmin::execute(const sql::AdminStatement& stmt) {
  try {
    switch (stmt.kind) {
      case sql::AdminKind::kSplitAt:
        return split_at(stmt);
      case sql::AdminKind::kUnsplitAt:
      case sql::AdminKind::kUnsplitAll:
        return unsplit(stmt);
      case sql::AdminKind::kScatter:
        return scatter(stmt);
      case sql::AdminKind::kRelocate:
        return relocate_statement(stmt);
      case sql::AdminKind::kShowRanges:
        return show_ranges(stmt);
      case sql::AdminKind::kShowRangeForRow:
        return show_range_for_row(stmt);
      case sql::AdminKind::kShowShards:
        return show_shards();
      case sql::AdminKind::kShowHotRanges:
        return show_hot_ranges();
      case sql::AdminKind::kImportTable:
        return admin_error(sqlstate::kInternalError, "IMPORT TABLE needs the shards' catalogs");
      case sql::AdminKind::kColocate:
        return colocate(stmt);
      case sql::AdminKind::kShowJobs:
        return show_jobs(stmt);
      case sql::AdminKind::kCancelJob:
        return cancel_job(stmt);
      case sql::AdminKind::kDrainShard:
        return drain_shard(stmt);
      case sql::AdminKind::kShowPools:
      case sql::AdminKind::kShowClients:
      case sql::AdminKind::kShowServers:
      case sql::AdminKind::kShowStats:
      case sql::AdminKind::kShowConfig:
      case sql::AdminKind::kShowVersion:
      case sql::AdminKind::kReload:
      case sql::AdminKind::kPause:
      case sql::AdminKind::kResume:
        // The console's: the proxy answers them from its own state.
        return admin_error(sqlstate::kInternalError, "a console statement reached the ranges");
    }
  } catch (const pqxx::broken_connection& e) {
    return admin_error(sqlstate::kConnectionFailure,
                       std::string("lost the connection to the metadata store: ") + e.what());
  } catch (const std::exception& e) {
    return admin_error(sqlstate::kInternalError, std::string("metadata store: ") + e.what());
  }
  return admin_error(sqlstate::kInternalError, "unknown admin statement");
}

Result<ResultSet> RangeAdmin::show_jobs(const sql::AdminStatement& stmt) {
  std::vector<JobRecord> jobs = control_.store().jobs(stmt.job_id);
  if (stmt.job_id && jobs.empty()) {
    return admin_error("42704", "job " + std::to_string(*stmt.job_id) + " does not exist");
  }
  ResultSet rs;
  rs.columns = {{"job_id", type_oid::kInt8},
                {"job_type", type_oid::kText},
                {"description", type_oid::kText},
                {"status", type_oid::kText},
                {"fraction_completed", type_oid::kFloat8},
                {"created", type_oid::kTimestamptz},
                {"finished", type_oid::kTimestamptz},
                {"error", type_oid::kText}};
  for (const JobRecord& j : jobs) {
    char fraction[32];
    std::snprintf(fraction, sizeof fraction, "%g", j.fraction_completed);
    std::string status = j.status;
    if (status == "running" && j.cancel_requested) status = "cancel-requested";
    rs.rows.push_back({std::to_string(j.job_id), j.job_type, j.description, status,
                       std::string(fraction), j.created,
                       j.finished.empty() ? std::nullopt : std::optional<std::string>(j.finished),
                       j.error});
  }
  rs.tag = "SELECT " + std::to_string(rs.rows.size());
  return rs;
}

Result<ResultSet> RangeAdmin::cancel_job(const sql::AdminStatement& stmt) {
  const int64_t id = stmt.job_id.value_or(0);
  std::optional<JobRecord> job = control_.store().request_job_cancel(id);
  if (!job) return admin_error("42704", "job " + std::to_string(id) + " does not exist");
  if (job->status != "running") {
    return admin_error(
        "55000", "job " + std::to_string(id) + " is not running (status " + job->status + ")");
  }
  spdlog::info("job {}: cancel requested", id);
  ResultSet rs;
  rs.tag = "CANCEL JOB";
  return rs;
}

RangeAdmin::ChangeCounts& RangeAdmin::change_counts() {
  static ChangeCounts counts;
  return counts;
}

Result<void> RangeAdmin::apply_changes(const std::vector<RangeChange>& changes) {
  bool any = std::any_of(changes.begin(), changes.end(), [](auto& c) { return !c.no_op; });
  if (!any) return {};
  control_.store().apply_range_changes(changes);
  for (const RangeChange& c : changes) {
    if (c.no_op) continue;
    ChangeCounts& counts = change_counts();
    auto& n = c.kind == RangeOp::Kind::kSplit   ? counts.splits
              : c.kind == RangeOp::Kind::kMerge ? counts.merges
                                                : counts.moves;
    n.fetch_add(1, std::memory_order_relaxed);
  }
  control_.reload();
  return {};
}

Result<void> RangeAdmin::apply_ops(const std::vector<RangeOp>& ops) {
  for (int attempt = 1;; ++attempt) {
    auto view = control_.view();
    auto map = RangeMap::from_descriptors(std::vector<RangeDescriptor>(
        view->ranges().ranges().begin(), view->ranges().ranges().end()));
    if (!map) return tl::unexpected(map.error());
    auto changes = (*map)->apply(ops);
    if (!changes) return tl::unexpected(changes.error());
    try {
      return apply_changes(*changes);
    } catch (const RangeMovingError& e) {
      return admin_error("55006", e.what());
    } catch (const pqxx::serialization_failure&) {
    } catch (const pqxx::unique_violation&) {
      // Another pgrange instance changed the map (or took the same new range id) first.
    }
    if (attempt == kApplyAttempts) {
      return admin_error(sqlstate::kSerializationFailure,
                         "the range map kept changing underneath this statement; retry it");
    }
    control_.reload();
  }
}

Result<ResultSet> RangeAdmin::split_at(const sql::AdminStatement& stmt) {
  auto view = control_.view();
  auto relation = named_relation(*view, stmt);
  if (!relation) return tl::unexpected(relation.error());
  const TableDescriptor* t = &*relation;
  if (auto ok = require_sharded(*t, "be split"); !ok) return tl::unexpected(ok.error());
  if (t->index_id != 1) {
    // A UNIQUE index keeps each value's entries in one range, where its shard checks them.
    auto table = find_table(*view, stmt.table);
    const IndexDescriptor* index = find_index(**table, stmt.index);
    for (const auto& row : stmt.rows) {
      if (index->unique && row.size() > index->columns.size()) {
        return admin_error(sqlstate::kFeatureNotSupported,
                           "a UNIQUE index splits only at values of its indexed columns (" +
                               std::to_string(index->columns.size()) +
                               "), so that equal values stay in one range");
      }
    }
  }
  std::optional<int64_t> until = INT64_MAX;
  if (stmt.expiration) {
    auto e = expiration_micros(control_.store(), *stmt.expiration);
    if (!e) return tl::unexpected(e.error());
    until = *e;
  }
  std::vector<RangeOp> ops;
  ResultSet rs;
  rs.columns = {{"key", type_oid::kBytea},
                {"pretty", type_oid::kText},
                {"split_enforced_until", type_oid::kTimestamp}};
  // A co-location group splits together, at prefixes of its root's key only.
  std::vector<const TableDescriptor*> group;
  if (t->index_id == 1) {
    if (const TableDescriptor* table = view->find_table_id(t->table_id)) {
      group = group_of(*view, *table);
    }
  }
  if (group.size() > 1) {
    for (const auto& row : stmt.rows) {
      if (row.size() > group.front()->key.size()) {
        return admin_error(sqlstate::kFeatureNotSupported,
                           "table \"" + t->name + "\" is co-located with table \"" +
                               group.front()->name + "\": it splits at values of its first " +
                               std::to_string(group.front()->key.size()) +
                               " key column(s) only, with the whole group");
      }
    }
  }
  std::vector<RangeOp> group_ops;
  for (const auto& row : stmt.rows) {
    auto key = tuple_key(*t, row);
    if (!key) return tl::unexpected(key.error());
    ops.push_back(RangeOp::split(*key, until));
    for (const TableDescriptor* member : group) {
      if (member->table_id == t->table_id) continue;
      group_ops.push_back(RangeOp::split(follow_key(*key, t->table_id, member->table_id), until));
    }
    rs.rows.push_back(
        {bytea_hex(*key), pretty_key(*key),
         until ? std::optional<std::string>(format_enforced_until(*until)) : std::nullopt});
  }
  std::vector<RangeOp> all = ops;
  all.insert(all.end(), group_ops.begin(), group_ops.end());
  if (auto ok = apply_ops(all); !ok) return tl::unexpected(ok.error());
  ops = std::move(all);
  // A split at an existing boundary keeps the range and takes the new expiration, as
  // CockroachDB does; the answer shows what the map holds now.
  for (int attempt = 1;; ++attempt) {
    auto current = control_.view();
    std::vector<RangeChange> changes;
    for (const RangeOp& op : ops) {
      size_t i = current->ranges().find_index(op.split_key);
      if (i >= current->ranges().size()) continue;
      const RangeDescriptor& r = current->ranges().at(i);
      if (r.start_key != op.split_key || r.split_enforced_until == until) continue;
      bool seen = false;
      for (const auto& c : changes) seen = seen || c.before.front().range_id == r.range_id;
      if (seen) continue;
      RangeChange c;
      c.kind = RangeOp::Kind::kSplit;
      c.before.push_back(r);
      RangeDescriptor after = r;
      after.split_enforced_until = until;
      after.generation++;
      c.after.push_back(after);
      changes.push_back(std::move(c));
    }
    try {
      if (auto ok = apply_changes(changes); !ok) return tl::unexpected(ok.error());
      break;
    } catch (const pqxx::serialization_failure&) {
      if (attempt == kApplyAttempts) {
        return admin_error(sqlstate::kSerializationFailure,
                           "the range map kept changing underneath this statement; retry it");
      }
      control_.reload();
    }
  }
  auto now = control_.view();
  for (size_t k = 0; k < rs.rows.size(); ++k) {
    const RangeDescriptor* r = now->ranges().lookup(ops[k].split_key);
    if (r == nullptr || r->start_key != ops[k].split_key) continue;
    rs.rows[k][2] =
        r->split_enforced_until
            ? std::optional<std::string>(format_enforced_until(*r->split_enforced_until))
            : std::nullopt;
  }
  rs.tag = "SELECT " + std::to_string(rs.rows.size());
  return rs;
}

Result<ResultSet> RangeAdmin::unsplit(const sql::AdminStatement& stmt) {
  auto view = control_.view();
  auto t = find_table(*view, stmt.table);
  if (!t) return tl::unexpected(t.error());
  if (auto ok = require_sharded(**t, "be unsplit"); !ok) return tl::unexpected(ok.error());
  const RangeMapSnapshot& ranges = view->ranges();
  std::string table_start = table_prefix((*t)->table_id);
  std::string table_end = table_prefix((*t)->table_id + 1);
  std::vector<std::string> keys;
  if (stmt.kind == sql::AdminKind::kUnsplitAll) {
    for (size_t i : view->table_ranges((*t)->table_id)) {
      const RangeDescriptor& r = ranges.at(i);
      if (r.start_key > table_start && r.start_key < table_end) keys.push_back(r.start_key);
    }
  } else {
    for (const auto& row : stmt.rows) {
      auto key = tuple_key(**t, row);
      if (!key) return tl::unexpected(key.error());
      const RangeDescriptor* r = ranges.lookup(*key);
      if (r == nullptr || r->start_key != *key) {
        return admin_error(sqlstate::kInvalidParameterValue,
                           "could not UNSPLIT AT " + pretty_key_in_table(*key, (*t)->table_id) +
                               ": key is not the start of a range");
      }
      keys.push_back(*key);
    }
  }
  // A co-location group unsplits together.
  {
    auto group = group_of(*view, **t);
    std::vector<std::string> more;
    for (const TableDescriptor* member : group) {
      if (member->table_id == (*t)->table_id) continue;
      for (const std::string& k : keys) {
        more.push_back(follow_key(k, (*t)->table_id, member->table_id));
      }
    }
    keys.insert(keys.end(), more.begin(), more.end());
  }
  // Clear each split's enforcement; a range whose left neighbour is on the same shard merges
  // into it at once (ranges on different shards stay apart until one of them moves).
  for (int attempt = 1;; ++attempt) {
    auto current = control_.view();
    std::vector<RangeDescriptor> rs(current->ranges().ranges().begin(),
                                    current->ranges().ranges().end());
    std::vector<RangeChange> changes;
    std::vector<RangeOp> merges;
    for (const std::string& k : keys) {
      size_t i = current->ranges().find_index(k);
      if (i >= rs.size() || rs[i].start_key != k) continue;  // merged away meanwhile
      if (i > 0 && rs[i - 1].shard == rs[i].shard) {
        merges.push_back(RangeOp::merge(rs[i - 1].range_id));
      } else if (rs[i].split_enforced_until) {
        RangeChange c;
        c.kind = RangeOp::Kind::kSplit;
        c.before.push_back(rs[i]);
        RangeDescriptor after = rs[i];
        after.split_enforced_until.reset();
        after.generation++;
        c.after.push_back(after);
        changes.push_back(std::move(c));
      }
    }
    try {
      if (!changes.empty()) control_.store().apply_range_changes(changes);
      if (!merges.empty()) {
        if (!changes.empty()) control_.reload();
        auto map = RangeMap::from_descriptors(std::vector<RangeDescriptor>(
            control_.view()->ranges().ranges().begin(), control_.view()->ranges().ranges().end()));
        if (!map) return tl::unexpected(map.error());
        // Merge right to left so each op still finds its left range.
        std::reverse(merges.begin(), merges.end());
        auto merged = (*map)->apply(merges);
        if (!merged) return tl::unexpected(merged.error());
        control_.store().apply_range_changes(*merged);
      }
      control_.reload();
      break;
    } catch (const pqxx::serialization_failure&) {
    } catch (const pqxx::unique_violation&) {
    }
    if (attempt == kApplyAttempts) {
      return admin_error(sqlstate::kSerializationFailure,
                         "the range map kept changing underneath this statement; retry it");
    }
    control_.reload();
  }
  ResultSet out;
  out.columns = {{"key", type_oid::kBytea}, {"pretty", type_oid::kText}};
  for (const std::string& k : keys) out.rows.push_back({bytea_hex(k), pretty_key(k)});
  out.tag = "SELECT " + std::to_string(out.rows.size());
  return out;
}

Result<void> RangeAdmin::check_spread(
    const ClusterView& view, const std::vector<std::pair<uint64_t, std::string>>& placement,
    const std::string& what) {
  // The tables some of whose ranges move, and whose rows would then be on several shards.
  std::map<uint64_t, std::set<std::string>> shards_of;
  for (const TableDescriptor& t : view.tables()) {
    bool moves = false;
    std::set<std::string> shards;
    for (size_t i : view.table_ranges(t.table_id)) {
      const RangeDescriptor& r = view.ranges().at(i);
      std::string shard = r.shard;
      for (const auto& [id, target] : placement) {
        if (id == r.range_id && target != r.shard) {
          shard = target;
          moves = true;
        }
      }
      shards.insert(shard);
    }
    if (moves && t.reference) return tl::unexpected(reference_refusal(t, "be moved"));
    if (moves) shards_of[t.table_id] = std::move(shards);
  }
  for (const auto& [table_id, shards] : shards_of) {
    if (shards.size() < 2) continue;
    const TableDescriptor* t = view.find_table_id(table_id);
    const ShardRecord* holder = nullptr;
    for (size_t i : view.table_ranges(table_id)) {
      if (holder == nullptr) holder = view.find_shard(view.ranges().at(i).shard);
    }
    if (t == nullptr || holder == nullptr) continue;
    try {
      pqxx::connection conn(holder->dsn);
      if (auto blocked = spread_blocker(*t, shard_unique_indexes(conn, t->schema, t->name), what)) {
        return tl::unexpected(std::move(*blocked));
      }
    } catch (const std::exception& e) {
      return admin_error(sqlstate::kConnectionFailure, "reading the unique indexes of table \"" +
                                                           t->name + "\" on shard \"" +
                                                           holder->name + "\": " + e.what());
    }
  }
  return {};
}

Result<void> RangeAdmin::relocate(uint64_t range_id, const std::string& shard,
                                  const std::string& reason) {
  auto view = control_.view();
  const RangeDescriptor* range = nullptr;
  for (const RangeDescriptor& r : view->ranges().ranges()) {
    if (r.range_id == range_id) range = &r;
  }
  if (range == nullptr) {
    return admin_error(sqlstate::kInvalidParameterValue,
                       "range " + std::to_string(range_id) + " does not exist");
  }
  const ShardRecord* target = view->find_shard(shard);
  if (target == nullptr) {
    return admin_error(sqlstate::kInvalidParameterValue, "shard \"" + shard + "\" does not exist");
  }
  if (range->shard == shard) return {};
  // A table's unique indexes that its shards enforce each on its own rows hold only while its
  // rows are on one shard.
  if (auto ok =
          check_spread(*view, {{range_id, shard}},
                       "moving range " + std::to_string(range_id) + " to shard \"" + shard + "\"");
      !ok) {
    return ok;
  }
  const ShardRecord* source = view->find_shard(range->shard);
  if (source == nullptr) {
    return admin_error(sqlstate::kInternalError, "shard \"" + range->shard + "\" is unknown");
  }
  const RangeDescriptor moving = *range;
  MetadataStore& store = control_.store();
  // The rows of every relation the range overlaps.
  std::vector<RangePart> parts;
  for (const TableDescriptor& t : view->relations()) {
    std::string ts = table_prefix(t.table_id), te = table_prefix(t.table_id + 1);
    std::string s = std::max(moving.start_key, ts);
    std::string e = std::min(moving.end_key, te);
    if (s < e) parts.push_back(RangePart{t, s, e});
  }
  std::string tables;
  for (const RangePart& p : parts) tables += (tables.empty() ? "" : ", ") + p.table.name;
  JobRecord job;
  job.job_type = "MOVE RANGE";
  job.description = "range " + std::to_string(range_id) + " [" + pretty_key(moving.start_key) +
                    ", " + pretty_key(moving.end_key) + ")" +
                    (tables.empty() ? "" : " of " + tables) + " from shard " + source->name +
                    " to shard " + shard + (reason.empty() ? "" : ": " + reason);
  job.instance_id = control_.instance_id();
  job.range_id = range_id;
  job.source = source->name;
  job.target = shard;
  int64_t job_id = 0;
  try {
    job_id = store.create_job(job);
  } catch (const std::exception& e) {
    return admin_error(sqlstate::kConnectionFailure,
                       std::string("recording the move in the metadata store: ") + e.what());
  }
  const std::string name = move_name(job_id);
  const std::string what = "moving range " + std::to_string(range_id) + " from shard \"" +
                           source->name + "\" to \"" + shard + "\"";
  spdlog::info("job {}: {}", job_id, job.description);

  // Ends the job however the move ends; releases the hold it took.
  struct Ending {
    ClusterControl& control;
    int64_t job_id;
    uint64_t range_id;
    bool held = false;
    std::string status = "failed";
    std::string error = "the move stopped";
    ~Ending() {
      if (held) {
        try {
          control.store().release_range_hold(range_id);
        } catch (const std::exception& e) {
          spdlog::error("range {}: releasing its hold failed: {}", range_id, e.what());
        }
        control.reload();
      }
      try {
        control.store().finish_job(job_id, status, error);
      } catch (const std::exception& e) {
        spdlog::error("job {}: recording its end failed: {}", job_id, e.what());
      }
      spdlog::log(status == "succeeded" ? spdlog::level::info : spdlog::level::warn, "job {}: {}{}",
                  job_id, status, error.empty() ? "" : ": " + error);
    }
  } ending{control_, job_id, range_id};
  auto failed = [&](Error err) -> Result<void> {
    if (err.message.rfind(what, 0) != 0) err.message = what + " failed: " + err.message;
    ending.error = err.message;
    return tl::unexpected(err);
  };
  auto canceled = [&]() -> bool {
    if (control_.stopping()) return true;
    try {
      return store.update_job(job_id, 0);
    } catch (const std::exception&) {
      return false;
    }
  };
  auto cancel_error = [&]() {
    ending.status = "canceled";
    const bool shutdown = control_.stopping();
    Error err =
        shutdown
            ? Error::make(sqlstate::kAdminShutdown, what + " was stopped: pgrange is shutting down")
            : Error::make(sqlstate::kQueryCanceled,
                          what + " was canceled (CANCEL JOB " + std::to_string(job_id) + ")");
    ending.error = shutdown ? "stopped: pgrange shut down" : "canceled by CANCEL JOB";
    return tl::unexpected(err);
  };
  // Writes to the range wait from here to the end; whole-table reads only in the cut-over.
  std::chrono::steady_clock::time_point held_at;
  auto hold_writes = [&]() -> Result<void> {
    int64_t v = 0;
    try {
      v = store.hold_range(range_id, shard, control_.instance_id(), false);
    } catch (const std::exception& e) {
      return failed(Error::make("55006", e.what()));
    }
    ending.held = true;
    held_at = std::chrono::steady_clock::now();
    control_.reload();
    if (!store.wait_for_instances(v, kMoveWait)) {
      return failed(Error::make("55006", "range " + std::to_string(range_id) +
                                             " is busy: a pgrange instance still has a "
                                             "transaction writing to it after " +
                                             std::to_string(kMoveWait.count()) + " s; try again"));
    }
    return {};
  };

  // 1. Copy while the application writes (its writes follow through the source's stream), or,
  //    for a table the source cannot publish by key, with writes held from the start.
  auto follow = RangeCopy::can_follow_writes(source->dsn, parts);
  if (!follow) return failed(follow.error());
  if (!*follow) {
    spdlog::info(
        "job {}: a table of range {} has no replica identity covering its key; writes "
        "to the range wait while it is copied",
        job_id, range_id);
    if (auto ok = hold_writes(); !ok) return ok;
  }
  auto copy = RangeCopy::start(source->dsn, target->dsn, parts, name, *follow);
  if (!copy) return failed(copy.error());
  try {
    store.update_job(job_id, 0.5);
  } catch (const std::exception&) {
  }
  control_.fault_point("move_copied");
  // 2. Catch up until a round applies little or takes little time, so the hold below is short:
  // the hold's last round applies what came in since this one, about one round's worth. A range
  // written faster than the target applies never gets to few changes: after a few rounds one
  // short enough will do.
  if (*follow) {
    constexpr int kRounds = 50;
    constexpr int64_t kFewChanges = 200;
    constexpr auto kShortRound = std::chrono::milliseconds(250);
    constexpr auto kFairRound = std::chrono::milliseconds(600);
    for (int round = 0; round < kRounds; ++round) {
      if (canceled()) return cancel_error();
      const auto t0 = std::chrono::steady_clock::now();
      auto applied = copy->catch_up(std::chrono::seconds(60));
      if (!applied) return failed(applied.error());
      const auto took = std::chrono::steady_clock::now() - t0;
      spdlog::info("job {}: catch-up round {}: {} changes in {} ms", job_id, round, *applied,
                   std::chrono::duration_cast<std::chrono::milliseconds>(took).count());
      if (*applied <= kFewChanges || (round > 0 && took <= kShortRound) ||
          (round >= 10 && took <= kFairRound)) {
        break;
      }
    }
    if (auto ok = hold_writes(); !ok) return ok;
  }
  if (canceled()) return cancel_error();
  // 3. The last changes, the counts on both sides, the copy prepared.
  const auto prepare_at = std::chrono::steady_clock::now();
  if (auto ok = copy->prepare(std::chrono::seconds(30)); !ok) return failed(ok.error());
  const auto prepared_at = std::chrono::steady_clock::now();
  try {
    store.update_job(job_id, 0.9);
  } catch (const std::exception&) {
  }
  control_.fault_point("move_prepared");
  // 4. The cut-over: whole-table reads wait too (the rows will be on both shards for a moment),
  //    then the map switches; that switch decides the prepared copy.
  const MetadataStore::HoldRef hold{range_id, control_.instance_id()};
  try {
    int64_t v = store.hold_range_scans(hold);
    control_.reload();
    if (!store.wait_for_instances(v, kMoveWait)) {
      return failed(Error::make("55006", "range " + std::to_string(range_id) +
                                             " is busy: a pgrange instance still reads the "
                                             "whole table after " +
                                             std::to_string(kMoveWait.count()) + " s; try again"));
    }
  } catch (const std::exception& e) {
    return failed(Error::make("55006", e.what()));
  }
  if (canceled()) return cancel_error();
  // 5. The copy commits first: the rows are then on both shards (whole-table reads wait), and
  //    a point read finds them whichever map it was routed with.
  if (auto ok = copy->commit_target(); !ok) return failed(ok.error());
  control_.fault_point("move_target_committed");
  RangeChange change;
  change.kind = RangeOp::Kind::kReassign;
  change.before.push_back(moving);
  RangeDescriptor after = moving;
  after.shard = shard;
  after.generation++;
  change.after.push_back(after);
  int64_t moved_version = 0;
  try {
    // The decision: from here the move commits.
    moved_version = store.apply_range_changes({change}, hold);
  } catch (const std::exception& e) {
    Error err = Error::make(sqlstate::kSerializationFailure,
                            "range " + std::to_string(range_id) +
                                " changed while it was moving; nothing was moved: " + e.what());
    if (auto undone = copy->abort(); !undone) {
      // The target keeps a committed copy of rows it does not own: the hold stays, so no
      // whole-table read sees them, until the clean-up of ended moves' holds removes them.
      ending.held = false;
      err.message +=
          "; removing the copy failed (retried in the background): " + undone.error().message;
    }
    return failed(err);
  }
  copy->switched();
  change_counts().moves.fetch_add(1, std::memory_order_relaxed);
  control_.fault_point("move_switched");
  ending.status = "succeeded";
  ending.error.clear();
  control_.reload();
  // 6. Every instance routes with the new map and has no reads left at the old shard: writes
  //    go on at the target. Whole-table reads wait until the source's rows are gone.
  if (!store.wait_for_instances(moved_version, kMoveWait)) {
    spdlog::warn(
        "range {}: a pgrange instance did not confirm the new map within {} s; "
        "deleting the old rows at shard {} anyway",
        range_id, kMoveWait.count(), source->name);
  }
  const auto writes_at = std::chrono::steady_clock::now();
  try {
    store.release_range_writes(hold);
    control_.reload();
  } catch (const std::exception& e) {
    spdlog::warn("range {}: letting writes go on before the old rows are deleted failed: {}",
                 range_id, e.what());
  }
  control_.fault_point("move_writes_released");
  auto deleted = copy->delete_source();
  if (!deleted) {
    // The hold stays (whole-table reads wait) until the clean-up of ended moves' holds has
    // deleted the rows.
    ending.held = false;
    ending.error = "deleting the rows on shard " + source->name +
                   " failed (retried in the background): " + deleted.error().message;
  } else if (*deleted != copy->source_rows()) {
    spdlog::error(
        "range {}: shard {} had {} rows of the range when it was copied but {} when they were "
        "deleted: something wrote to the shard past pgrange",
        range_id, source->name, copy->source_rows(), *deleted);
  }
  auto ms = [](auto from, auto to) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
  };
  const auto now = std::chrono::steady_clock::now();
  spdlog::info(
      "range {} moved from shard {} to shard {}: {} rows copied, {} changes followed, writes "
      "held {} ms (waiting for writers {} ms, last changes {} ms, cut-over {} ms), whole-table "
      "reads held {} ms (the source's delete {} ms)",
      range_id, source->name, shard, copy->rows_copied(), copy->changes_applied(),
      ms(held_at, writes_at), ms(held_at, prepare_at), ms(prepare_at, prepared_at),
      ms(prepared_at, writes_at), ms(prepared_at, now), ms(writes_at, now));
  return {};
}

Result<void> RangeAdmin::recover_moves() {
  MetadataStore& store = control_.store();
  auto view = control_.reload();
  // Jobs whose instance died: settled below, then ended.
  std::vector<JobRecord> orphaned = store.orphaned_jobs(kOrphanSilence);
  auto job_of = [&](int64_t id) -> std::optional<JobRecord> {
    auto found = store.jobs(id);
    if (found.empty()) return std::nullopt;
    return found.front();
  };
  auto live = [&](const JobRecord& j) {
    if (j.status != "running") return false;
    return std::none_of(orphaned.begin(), orphaned.end(),
                        [&](const JobRecord& o) { return o.job_id == j.job_id; });
  };
  // Whether a move's map switch happened: then its prepared transactions commit.
  auto switched = [&](const JobRecord& j) {
    const RangeDescriptor* r = view->find_range(j.range_id);
    return r != nullptr && r->shard == j.target && j.source != j.target;
  };
  Result<void> out;
  for (const ShardRecord& shard : view->shards()) {
    try {
      pqxx::connection conn(shard.dsn);
      std::vector<std::string> gids, pubs;
      {
        pqxx::read_transaction tx(conn);
        for (const auto& row :
             tx.exec("SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND "
                     "gid LIKE 'pgrange_move_%'")) {
          gids.push_back(row[0].as<std::string>());
        }
        for (const auto& row :
             tx.exec("SELECT pubname FROM pg_publication WHERE pubname LIKE 'pgrange_move_%'")) {
          pubs.push_back(row[0].as<std::string>());
        }
      }
      for (const std::string& gid : gids) {
        auto id = move_job_id(gid);
        std::optional<JobRecord> j = id ? job_of(*id) : std::nullopt;
        if (j && live(*j)) continue;
        const bool commit = j && switched(*j);
        pqxx::nontransaction tx(conn);
        tx.exec0(std::string(commit ? "COMMIT" : "ROLLBACK") + " PREPARED " + tx.quote(gid));
        spdlog::warn("recovery: {} {} on shard {} (a range move that did not finish)",
                     commit ? "committed" : "rolled back", gid, shard.name);
      }
      for (const std::string& pub : pubs) {
        auto id = move_job_id(pub);
        std::optional<JobRecord> j = id ? job_of(*id) : std::nullopt;
        if (j && live(*j)) continue;
        auto dropped = RangeCopy::drop_publication(shard.dsn, pub);
        if (!dropped) throw std::runtime_error(dropped.error().message);
        spdlog::warn("recovery: dropped publication {} on shard {}", pub, shard.name);
      }
    } catch (const std::exception& e) {
      // Tried again at the next round; the job stays running until every shard answered.
      if (out) {
        out = admin_error(sqlstate::kConnectionFailure,
                          "recovering range moves on shard \"" + shard.name + "\": " + e.what());
      }
    }
  }
  if (!out) return out;
  for (const JobRecord& j : orphaned) {
    const bool done = switched(j);
    store.finish_job(j.job_id, done ? "succeeded" : "failed",
                     done ? "the pgrange instance running it stopped after the switch; recovery "
                            "finished it"
                          : "the pgrange instance running it stopped; recovery rolled it back");
    spdlog::warn("job {}: its pgrange instance is gone; {}", j.job_id,
                 done ? "finished" : "rolled back");
  }
  return {};
}

Result<void> RangeAdmin::relocate_group(uint64_t range_id, const std::string& shard,
                                        const std::string& reason) {
  auto view = control_.view();
  const RangeMapSnapshot& ranges = view->ranges();
  // The table whose primary index the range holds, and its group.
  const TableDescriptor* table = nullptr;
  const RangeDescriptor* range = nullptr;
  for (const TableDescriptor& t : view->tables()) {
    if (t.member_id != 0) continue;
    for (size_t i : view->table_ranges(t.table_id)) {
      if (ranges.at(i).range_id == range_id) {
        table = &t;
        range = &ranges.at(i);
      }
    }
  }
  if (table == nullptr) return relocate(range_id, shard, reason);
  auto group = group_of(*view, *table);
  if (group.size() < 2) return relocate(range_id, shard, reason);
  // The same key prefixes in every table of the group, the root's range first.
  std::string at = std::max(range->start_key, index_prefix(table->table_id, 1));
  std::vector<uint64_t> moving;
  for (const TableDescriptor* member : group) {
    const RangeDescriptor* r = ranges.lookup(follow_key(at, table->table_id, member->table_id));
    if (r != nullptr) moving.push_back(r->range_id);
  }
  for (uint64_t id : moving) {
    if (auto ok = relocate(id, shard, reason); !ok) return ok;
  }
  return {};
}

Result<void> RangeAdmin::record_job(const std::string& type, const std::string& description,
                                    uint64_t range_id, const std::function<Result<void>()>& run) {
  JobRecord job;
  job.job_type = type;
  job.description = description;
  job.instance_id = control_.instance_id();
  job.range_id = range_id;
  int64_t job_id = 0;
  try {
    job_id = control_.store().create_job(job);
  } catch (const std::exception& e) {
    return admin_error(sqlstate::kConnectionFailure,
                       std::string("recording a job in the metadata store: ") + e.what());
  }
  spdlog::info("job {}: {}", job_id, description);
  Result<void> done = run();
  try {
    control_.store().finish_job(job_id, done ? "succeeded" : "failed",
                                done ? "" : done.error().message);
  } catch (const std::exception& e) {
    spdlog::warn("job {}: recording its end: {}", job_id, e.what());
  }
  if (!done) spdlog::warn("job {}: failed: {}", job_id, done.error().message);
  return done;
}

Result<ResultSet> RangeAdmin::drain_shard(const sql::AdminStatement& stmt) {
  auto view = control_.view();
  const ShardRecord* shard = view->find_shard(stmt.shard);
  if (shard == nullptr) {
    return admin_error(sqlstate::kInvalidParameterValue,
                       "shard \"" + stmt.shard + "\" does not exist");
  }
  const std::string name = shard->name;
  ResultSet rs;
  rs.columns = {
      {"range_id", type_oid::kInt8}, {"pretty", type_oid::kText}, {"shard", type_oid::kText}};
  if (stmt.undrain) {
    control_.store().set_shard_draining(name, false);
    control_.reload();
    rs.tag = "ALTER SHARD";
    rs.columns.clear();
    return rs;
  }
  if (std::none_of(view->shards().begin(), view->shards().end(),
                   [&](const ShardRecord& s) { return s.name != name && !s.draining; })) {
    return admin_error("55000",
                       "shard \"" + name + "\" cannot be drained: no other shard takes ranges");
  }
  control_.store().set_shard_draining(name, true);
  control_.reload();
  auto moved = record_job(
      "DRAIN SHARD", "every range of shard " + name + " to the other shards", 0,
      [&]() -> Result<void> {
        // Each range in turn to the open shard holding the fewest ranges; a co-location group's
        // ranges move together (so a range may be gone from the shard when its turn comes).
        for (int round = 0; round < 1000; ++round) {
          if (control_.stopping()) {
            return admin_error("57P01",
                               "pgrange is shutting down: shard " + name + " is drained in part");
          }
          auto v = control_.view();
          std::map<std::string, int> count;
          for (const ShardRecord& s : v->shards()) {
            if (!s.draining && s.name != name) count[s.name] = 0;
          }
          const RangeDescriptor* next = nullptr;
          for (const RangeDescriptor& r : v->ranges().ranges()) {
            if (count.count(r.shard)) ++count[r.shard];
            if (r.shard != name || next != nullptr) continue;
            next = &r;
          }
          if (next == nullptr) return {};
          auto target =
              std::min_element(count.begin(), count.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
          const RangeDescriptor r = *next;
          std::string pretty = pretty_key(r.start_key);
          std::vector<const TableDescriptor*> tables = range_relations(*v, r, nullptr);
          if (std::all_of(tables.begin(), tables.end(), [](auto* t) { return t->reference; })) {
            // No rows of any table, or a reference table's (every shard holds them): the map alone
            // changes.
            if (auto ok = apply_ops({RangeOp::reassign(r.range_id, target->first)}); !ok) return ok;
          } else if (auto ok = relocate_group(r.range_id, target->first, "draining shard " + name);
                     !ok) {
            return ok;
          }
          rs.rows.push_back({std::to_string(r.range_id), pretty, target->first});
        }
        return admin_error(sqlstate::kInternalError, "shard " + name + " kept getting ranges");
      });
  if (!moved) return tl::unexpected(moved.error());
  rs.tag = "SELECT " + std::to_string(rs.rows.size());
  return rs;
}

Result<void> RangeAdmin::split_range(uint64_t table_id, const std::string& key,
                                     const std::string& reason) {
  auto view = control_.view();
  const TableDescriptor* t = view->find_table_id(table_id);
  const RangeDescriptor* r = view->ranges().lookup(key);
  if (t == nullptr || r == nullptr) {
    return admin_error(sqlstate::kInvalidParameterValue, "the range to split is gone");
  }
  std::vector<RangeOp> ops{RangeOp::split(key)};
  // A co-location group's tables split together at the same key; a global index's entries
  // (keys past the table's rows) have no counterpart in the group.
  const bool rows = key < index_prefix(table_id, 2);
  for (const TableDescriptor* member :
       rows ? group_of(*view, *t) : std::vector<const TableDescriptor*>{}) {
    if (member->table_id != table_id) {
      ops.push_back(RangeOp::split(follow_key(key, table_id, member->table_id)));
    }
  }
  return record_job("SPLIT RANGE",
                    "range " + std::to_string(r->range_id) + " of " + t->name + " at " +
                        pretty_key(key) + ": " + reason,
                    r->range_id, [&] { return apply_ops(ops); });
}

Result<void> RangeAdmin::merge_range(uint64_t table_id, uint64_t left_id,
                                     const std::string& reason) {
  auto view = control_.view();
  const TableDescriptor* t = view->find_table_id(table_id);
  const RangeMapSnapshot& ranges = view->ranges();
  size_t left = ranges.size();
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (ranges.at(i).range_id == left_id) left = i;
  }
  if (t == nullptr || left + 1 >= ranges.size()) {
    return admin_error(sqlstate::kInvalidParameterValue, "the ranges to merge are gone");
  }
  const RangeDescriptor& l = ranges.at(left);
  const RangeDescriptor& r = ranges.at(left + 1);
  if (l.shard != r.shard) {
    return admin_error(sqlstate::kInvalidParameterValue, "ranges " + std::to_string(l.range_id) +
                                                             " and " + std::to_string(r.range_id) +
                                                             " are on different shards");
  }
  // The group's tables merge at the same key prefix, where their ranges are on one shard too.
  std::vector<RangeOp> ops{RangeOp::merge(l.range_id)};
  const bool rows = r.start_key < index_prefix(table_id, 2);  // not a global index's entries
  for (const TableDescriptor* member :
       rows ? group_of(*view, *t) : std::vector<const TableDescriptor*>{}) {
    if (member->table_id == table_id) continue;
    size_t i = ranges.find_index(follow_key(r.start_key, table_id, member->table_id));
    if (i == 0 || i >= ranges.size()) continue;
    if (ranges.at(i).start_key != follow_key(r.start_key, table_id, member->table_id)) continue;
    if (ranges.at(i - 1).shard != ranges.at(i).shard) {
      return admin_error(sqlstate::kInvalidParameterValue,
                         "table " + member->name + " of the group has its ranges at " +
                             pretty_key(ranges.at(i).start_key) + " on different shards");
    }
    ops.push_back(RangeOp::merge(ranges.at(i - 1).range_id));
  }
  return record_job("MERGE RANGES",
                    "ranges " + std::to_string(l.range_id) + " and " + std::to_string(r.range_id) +
                        " of " + t->name + " at " + pretty_key(r.start_key) + ": " + reason,
                    l.range_id, [&] { return apply_ops(ops); });
}

Result<ResultSet> RangeAdmin::colocate(const sql::AdminStatement& stmt) {
  auto view = control_.view();
  auto found = find_table(*view, stmt.table);
  if (!found) return tl::unexpected(found.error());
  auto root_found = find_table(*view, stmt.colocate_with);
  if (!root_found) return tl::unexpected(root_found.error());
  const TableDescriptor* root = *root_found;
  // The group's root: a table that follows another one is co-located with that one's root.
  if (root->colocated_with != 0) {
    if (const TableDescriptor* r = view->find_table_id(root->colocated_with)) root = r;
  }
  const TableDescriptor& t = **found;
  std::string what =
      "table \"" + t.name + "\" cannot be co-located with table \"" + root->name + "\": ";
  if (t.table_id == root->table_id) {
    return admin_error(
        sqlstate::kFeatureNotSupported,
        what + (stmt.colocate_with == t.name || stmt.colocate_with.ends_with("." + t.name)
                    ? "it is that table"
                    : "that table follows its ranges"));
  }
  if (t.member_id != 0) {
    return admin_error(sqlstate::kFeatureNotSupported,
                       what + "it is a partition or inheritance child (co-locate its root)");
  }
  if (t.reference)
    return admin_error(sqlstate::kFeatureNotSupported, what + "it is a reference table");
  if (group_of(*view, t).size() > 1 && t.colocated_with == 0) {
    return admin_error(sqlstate::kFeatureNotSupported,
                       what + "other tables follow its ranges (co-locate them with that table)");
  }
  if (auto why = colocation_blocker(*root, t.key, t.hash_buckets)) {
    return admin_error(sqlstate::kFeatureNotSupported, what + *why);
  }
  const uint64_t id = t.table_id;
  const uint64_t root_id = root->table_id;
  // 1. Split where the root's ranges split.
  {
    GroupLayout want = layout_for(*view, root_id, id);
    std::vector<RangeOp> splits;
    for (const std::string& k : want.split_keys) {
      const RangeDescriptor* r = view->ranges().lookup(k);
      if (r == nullptr || r->start_key != k) splits.push_back(RangeOp::split(k));
    }
    if (auto ok = apply_ops(splits); !ok) return tl::unexpected(ok.error());
  }
  // 2. Each range to the shard of the root's range holding its first key.
  {
    auto now = control_.view();
    std::vector<std::pair<uint64_t, std::string>> moves;
    for (size_t i : now->table_ranges(id)) {
      const RangeDescriptor& r = now->ranges().at(i);
      std::string at = std::max(r.start_key, index_prefix(id, 1));
      const RangeDescriptor* there = now->ranges().lookup(follow_key(at, id, root_id));
      if (there != nullptr && there->shard != r.shard) moves.emplace_back(r.range_id, there->shard);
    }
    for (const auto& [range_id, shard] : moves) {
      if (auto ok = relocate(range_id, shard); !ok) return tl::unexpected(ok.error());
    }
  }
  // 3. Its own splits the root does not have merge away (their sides are on one shard now).
  for (int attempt = 1;; ++attempt) {
    auto now = control_.view();
    GroupLayout want = layout_for(*now, root_id, id);
    std::vector<RangeOp> merges;
    auto idx = now->table_ranges(id);
    for (size_t n = 1; n < idx.size(); ++n) {
      const RangeDescriptor& r = now->ranges().at(idx[n]);
      if (std::find(want.split_keys.begin(), want.split_keys.end(), r.start_key) ==
          want.split_keys.end()) {
        merges.push_back(RangeOp::merge(now->ranges().at(idx[n - 1]).range_id));
      }
    }
    if (merges.empty()) break;
    try {
      auto map = RangeMap::from_descriptors(std::vector<RangeDescriptor>(
          now->ranges().ranges().begin(), now->ranges().ranges().end()));
      if (!map) return tl::unexpected(map.error());
      std::reverse(merges.begin(), merges.end());  // right to left: each finds its left range
      auto merged = (*map)->apply(merges);
      if (!merged) return tl::unexpected(merged.error());
      control_.store().apply_range_changes(*merged);
      control_.reload();
      break;
    } catch (const pqxx::serialization_failure&) {
    } catch (const pqxx::unique_violation&) {
    }
    if (attempt == kApplyAttempts) {
      return admin_error(sqlstate::kSerializationFailure,
                         "the range map kept changing underneath this statement; retry it");
    }
    control_.reload();
  }
  // 4. Aligned: it follows the root from now on.
  auto now = control_.view();
  GroupLayout want = layout_for(*now, root_id, id);
  GroupLayout have = layout_for(*now, id, id);
  if (want.split_keys != have.split_keys || want.shards != have.shards) {
    return admin_error(sqlstate::kSerializationFailure,
                       "the ranges of table \"" + root->name + "\" changed while table \"" +
                           t.name + "\" was being aligned with them; run the statement again");
  }
  control_.store().set_colocation(id, root_id);
  control_.reload();
  ResultSet rs;
  rs.columns = {
      {"range_id", type_oid::kInt8}, {"pretty", type_oid::kText}, {"shard", type_oid::kText}};
  now = control_.view();
  for (size_t i : now->table_ranges(id)) {
    const RangeDescriptor& r = now->ranges().at(i);
    rs.rows.push_back({std::to_string(r.range_id), pretty_key(r.start_key), r.shard});
  }
  rs.tag = "SELECT " + std::to_string(rs.rows.size());
  return rs;
}

Result<void> RangeAdmin::clean_up_orphaned_hold(uint64_t range_id) {
  auto view = control_.view();
  const RangeDescriptor* range = view->find_range(range_id);
  if (range != nullptr) {
    for (const ShardRecord& shard : view->shards()) {
      if (shard.name == range->shard || view->shard_index(shard.name) < 0) continue;
      for (const TableDescriptor& t : view->relations()) {
        std::string s = std::max(range->start_key, table_prefix(t.table_id));
        std::string e = std::min(range->end_key, table_prefix(t.table_id + 1));
        if (s >= e) continue;
        auto pred = key_range_predicate(t, s, e);
        if (!pred) return tl::unexpected(pred.error());
        try {
          pqxx::connection conn(shard.dsn);
          pqxx::work tx(conn);
          pqxx::result r =
              tx.exec("DELETE FROM ONLY " + qualified_table_name(t) + " WHERE " + *pred);
          tx.commit();
          if (r.affected_rows() > 0) {
            spdlog::warn(
                "range {}: removed {} rows of table {} left on shard {} by a move that "
                "did not finish",
                range_id, r.affected_rows(), t.name, shard.name);
          }
        } catch (const std::exception& e) {
          return admin_error(sqlstate::kConnectionFailure,
                             "cleaning up range " + std::to_string(range_id) + " on shard \"" +
                                 shard.name + "\": " + e.what());
        }
      }
    }
  }
  control_.store().release_range_hold(range_id);
  control_.reload();
  return {};
}

Result<ResultSet> RangeAdmin::relocate_statement(const sql::AdminStatement& stmt) {
  auto view = control_.view();
  ResultSet rs;
  rs.columns = {
      {"range_id", type_oid::kInt8}, {"pretty", type_oid::kText}, {"result", type_oid::kText}};
  std::string pretty;
  for (const RangeDescriptor& r : view->ranges().ranges()) {
    if (r.range_id == static_cast<uint64_t>(stmt.range_id)) pretty = pretty_key(r.start_key);
  }
  auto ok = relocate_group(static_cast<uint64_t>(stmt.range_id), stmt.shard);
  if (!ok) return tl::unexpected(ok.error());
  rs.rows.push_back({std::to_string(stmt.range_id), pretty, std::string("ok")});
  rs.tag = "SELECT 1";
  return rs;
}

Result<ResultSet> RangeAdmin::scatter(const sql::AdminStatement& stmt) {
  auto view = control_.view();
  auto t = find_table(*view, stmt.table);
  if (!t) return tl::unexpected(t.error());
  // A co-location group scatters as its root's ranges (the others follow each move).
  if ((*t)->colocated_with != 0) {
    if (const TableDescriptor* root = view->find_table_id((*t)->colocated_with)) *t = root;
  }
  std::vector<std::string> shard_names;
  for (const ShardRecord& s : view->shards()) {
    // A shard being drained gets no ranges.
    if (view->shard_index(s.name) >= 0 && !s.draining) shard_names.push_back(s.name);
  }
  if (shard_names.empty()) {
    return admin_error("55000", "every shard is being drained: nowhere to scatter to");
  }
  std::sort(shard_names.begin(), shard_names.end(),
            [&](auto& a, auto& b) { return view->shard_index(a) < view->shard_index(b); });
  std::vector<std::pair<uint64_t, std::string>> plan;
  std::vector<std::string> starts;
  auto idx = view->table_ranges((*t)->table_id);
  for (size_t n = 0; n < idx.size(); ++n) {
    const RangeDescriptor& r = view->ranges().at(idx[n]);
    plan.emplace_back(r.range_id, shard_names[n % shard_names.size()]);
    starts.push_back(r.start_key);
  }
  // Refused before anything moves.
  if (auto ok = check_spread(*view, plan, "ALTER TABLE " + (*t)->name + " SCATTER"); !ok) {
    return tl::unexpected(ok.error());
  }
  ResultSet rs;
  rs.columns = {{"key", type_oid::kBytea}, {"pretty", type_oid::kText}};
  for (size_t n = 0; n < plan.size(); ++n) {
    auto ok = relocate_group(plan[n].first, plan[n].second);
    if (!ok) return tl::unexpected(ok.error());
    rs.rows.push_back({bytea_hex(starts[n]), pretty_key(starts[n])});
  }
  rs.tag = "SELECT " + std::to_string(rs.rows.size());
  return rs;
}

Result<ResultSet> RangeAdmin::show_ranges(const sql::AdminStatement& stmt) {
  auto view = control_.view();
  const TableDescriptor* table = nullptr;
  std::string lo(kMinKey), hi(kMaxKey);
  if (stmt.scope == sql::RangeScope::kTable || stmt.scope == sql::RangeScope::kIndex) {
    auto t = find_table(*view, stmt.table);
    if (!t) return tl::unexpected(t.error());
    table = *t;
    lo = table_prefix(table->table_id);
    hi = table_prefix(table->table_id + 1);
    if (stmt.scope == sql::RangeScope::kIndex) {
      auto relation = named_relation(*view, stmt);
      if (!relation) return tl::unexpected(relation.error());
      lo = index_prefix(table->table_id, relation->index_id);
      hi = prefix_end(lo);
    }
  } else if (!stmt.database.empty() && stmt.database != control_.database()) {
    return admin_error(sqlstate::kInvalidCatalogName,
                       "database \"" + stmt.database + "\" does not exist");
  }
  auto show = [&](const std::string& k) {
    return table ? pretty_key_in_table(k, table->table_id) : pretty_key(k);
  };
  ResultSet rs;
  rs.columns = {{"start_key", type_oid::kText}, {"end_key", type_oid::kText}};
  if (stmt.with_keys) {
    rs.columns.push_back({"raw_start_key", type_oid::kBytea});
    rs.columns.push_back({"raw_end_key", type_oid::kBytea});
  }
  rs.columns.push_back({"range_id", type_oid::kInt8});
  rs.columns.push_back({"shard", type_oid::kText});
  rs.columns.push_back({"split_enforced_until", type_oid::kTimestamp});
  if (stmt.with_indexes) {
    rs.columns.push_back({"table_name", type_oid::kText});
    rs.columns.push_back({"index_name", type_oid::kText});
  }
  // Once co-location groups exist: the group of each range's table (its root's name).
  bool groups = std::any_of(view->tables().begin(), view->tables().end(),
                            [](const TableDescriptor& t) { return t.colocated_with != 0; });
  if (groups) rs.columns.push_back({"colocation_group", type_oid::kText});
  if (stmt.with_details) {
    rs.columns.push_back({"range_size_mb", type_oid::kNumeric});
    rs.columns.push_back({"row_count", type_oid::kInt8});
    rs.columns.push_back({"generation", type_oid::kInt8});
    rs.columns.push_back({"qps", type_oid::kNumeric});
  }
  // Requests per second by range, as SHOW HOT RANGES counts them.
  std::map<uint64_t, double> qps;
  if (stmt.with_details) {
    try {
      for (const RangeRate& l : control_.store().range_load(kOrphanSilence)) {
        qps[l.range_id] = l.read_qps + l.write_qps;
      }
    } catch (const std::exception& e) {
      return admin_error(sqlstate::kConnectionFailure,
                         std::string("reading the ranges' load: ") + e.what());
    }
  }
  const RangeMapSnapshot& ranges = view->ranges();
  for (size_t i = ranges.find_index(lo); i < ranges.size(); ++i) {
    const RangeDescriptor& r = ranges.at(i);
    if (r.start_key >= hi) break;
    std::vector<const TableDescriptor*> tables = range_relations(*view, r, table);
    std::vector<std::optional<std::string>> row;
    row.push_back(show(r.start_key));
    row.push_back(show(r.end_key));
    if (stmt.with_keys) {
      row.push_back(bytea_hex(r.start_key));
      row.push_back(bytea_hex(r.end_key));
    }
    row.push_back(std::to_string(r.range_id));
    bool reference = !tables.empty() && tables.front()->reference;
    if (reference) {
      // Every shard holds a reference table's rows: all of them, the first one (where writes
      // start) first.
      std::string all;
      for (const std::string& s : view->shard_order()) all += (all.empty() ? "" : ",") + s;
      row.push_back(all);
    } else {
      row.push_back(r.shard);
    }
    row.push_back(r.split_enforced_until
                      ? std::optional<std::string>(format_enforced_until(*r.split_enforced_until))
                      : std::nullopt);
    if (stmt.with_indexes) {
      auto [table_name, index_name] = relation_names(tables);
      row.push_back(table_name);
      row.push_back(index_name);
    }
    if (groups) {
      std::optional<std::string> group;
      if (!tables.empty() && tables.front()->index_id == 1) {
        if (const TableDescriptor* t = view->find_table_id(tables.front()->table_id)) {
          auto members = group_of(*view, *t);
          if (members.size() > 1) group = members.front()->name;
        }
      }
      row.push_back(group);
    }
    if (stmt.with_details) {
      int64_t rows = 0, bytes = 0;
      const ShardRecord* shard = view->find_shard(r.shard);
      for (const TableDescriptor* t : tables) {
        std::string s = std::max(r.start_key, table_prefix(t->table_id));
        std::string e = std::min(r.end_key, table_prefix(t->table_id + 1));
        if (shard == nullptr) continue;
        auto st = range_stats(shard->dsn, *t, s, e);
        if (!st) {
          Error err = st.error();
          err.message = "measuring range " + std::to_string(r.range_id) + " on shard \"" + r.shard +
                        "\": " + err.message;
          return tl::unexpected(err);
        }
        rows += st->row_count;
        bytes += st->bytes;
      }
      char mb[64];
      std::snprintf(mb, sizeof mb, "%.6f", static_cast<double>(bytes) / (1024.0 * 1024.0));
      row.push_back(std::string(mb));
      row.push_back(std::to_string(rows));
      row.push_back(std::to_string(r.generation));
      auto q = qps.find(r.range_id);
      row.push_back(format_qps(q == qps.end() ? 0 : q->second));
    }
    rs.rows.push_back(std::move(row));
  }
  rs.tag = "SELECT " + std::to_string(rs.rows.size());
  return rs;
}

Result<ResultSet> RangeAdmin::show_range_for_row(const sql::AdminStatement& stmt) {
  auto view = control_.view();
  auto t = find_table(*view, stmt.table);
  if (!t) return tl::unexpected(t.error());
  if (!stmt.index.empty() && stmt.index != "primary" && stmt.index != (*t)->name + "_pkey") {
    return admin_error(
        "42704", "index \"" + stmt.index + "\" does not exist on table \"" + (*t)->name + "\"");
  }
  if (stmt.rows.size() != 1) {
    return admin_error(sqlstate::kSyntaxError, "FOR ROW takes one tuple of values");
  }
  std::string key;
  if ((*t)->key.empty()) {
    key = table_prefix((*t)->table_id);  // an unsharded table is one range
  } else if ((*t)->hash_buckets > 0) {
    // A row gives its key columns; the bucket is computed from them, as for the row itself.
    auto columns = row_key_columns(**t);
    if (stmt.rows[0].size() != columns.size()) {
      return admin_error(sqlstate::kSyntaxError,
                         "FOR ROW needs a value for each of the " + std::to_string(columns.size()) +
                             " key column" + (columns.size() == 1 ? "" : "s") +
                             " of hash-sharded table \"" + (*t)->name +
                             "\" (not its bucket), got " + std::to_string(stmt.rows[0].size()));
    }
    std::vector<std::optional<std::string>> values;
    for (const auto& v : stmt.rows[0]) {
      values.push_back(v.is_null ? std::nullopt : std::optional<std::string>(v.text));
    }
    auto k = point_key(**t, values);
    if (!k) return tl::unexpected(k.error());
    key = *k;
  } else {
    if (stmt.rows[0].size() != (*t)->key.size()) {
      return admin_error(
          sqlstate::kSyntaxError,
          "FOR ROW needs " +
              ((*t)->key.size() == 1 ? std::string("one value, for the key column")
                                     : "a value for each of the " +
                                           std::to_string((*t)->key.size()) + " key columns") +
              " of table \"" + (*t)->name + "\", got " + std::to_string(stmt.rows[0].size()));
    }
    auto k = tuple_key(**t, stmt.rows[0]);
    if (!k) return tl::unexpected(k.error());
    key = *k;
  }
  const RangeDescriptor* r = view->ranges().lookup(key);
  if (r == nullptr) return admin_error(sqlstate::kInternalError, "no range holds the key");
  ResultSet rs;
  rs.columns = {{"start_key", type_oid::kText},
                {"end_key", type_oid::kText},
                {"range_id", type_oid::kInt8},
                {"shard", type_oid::kText}};
  rs.rows.push_back({pretty_key_in_table(r->start_key, (*t)->table_id),
                     pretty_key_in_table(r->end_key, (*t)->table_id), std::to_string(r->range_id),
                     r->shard});
  rs.tag = "SELECT 1";
  return rs;
}

Result<ResultSet> RangeAdmin::show_shards() {
  auto view = control_.view();
  ResultSet rs;
  rs.columns = {{"name", type_oid::kText},      {"dsn", type_oid::kText},
                {"reachable", type_oid::kBool}, {"ranges", type_oid::kInt8},
                {"tables", type_oid::kInt8},    {"schema_digest", type_oid::kText},
                {"draining", type_oid::kBool}};
  std::vector<const ShardRecord*> shards;
  for (const ShardRecord& s : view->shards()) shards.push_back(&s);
  std::sort(shards.begin(), shards.end(), [&](auto* a, auto* b) {
    int ia = view->shard_index(a->name), ib = view->shard_index(b->name);
    if (ia < 0) ia = INT_MAX;
    if (ib < 0) ib = INT_MAX;
    return std::tie(ia, a->name) < std::tie(ib, b->name);
  });
  for (const ShardRecord* s : shards) {
    int64_t nranges = 0;
    std::set<uint64_t> tables;
    for (const RangeDescriptor& r : view->ranges().ranges()) {
      if (r.shard != s->name) continue;
      ++nranges;
      for (const TableDescriptor& t : view->tables()) {
        if (r.start_key < table_prefix(t.table_id + 1) && r.end_key > table_prefix(t.table_id)) {
          tables.insert(t.table_id);
        }
      }
    }
    ShardProbe shard = probe(s->dsn);
    rs.rows.push_back({s->name, dsn_without_password(s->dsn),
                       std::string(shard.reachable ? "t" : "f"), std::to_string(nranges),
                       std::to_string(tables.size()), shard.schema_digest,
                       std::string(s->draining ? "t" : "f")});
  }
  rs.tag = "SELECT " + std::to_string(rs.rows.size());
  return rs;
}

}  // namespace pgrange::routing
