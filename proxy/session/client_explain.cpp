// ClientSession's EXPLAIN: what pgrange does with a statement (key spans, ranges, shards, how
// the shards' results are merged), followed by each shard's own EXPLAIN of its part.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

#include "proxy/control/control_plane.hpp"
#include "proxy/exec/analyze.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
#include "proxy/worker.hpp"
#include "routing/merge/result_set.hpp"
#include "routing/plan/explain_document.hpp"
#include "routing/plan/index_read.hpp"
#include "routing/plan/plan_description.hpp"
#include "routing/plan/spread_plan.hpp"
#include "sql/insert_select.hpp"

namespace pgrange::proxy {
namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// "EXPLAIN [(options) | ANALYZE | VERBOSE …] statement" → (options, statement); nullopt when
/// the text does not read so (comments before EXPLAIN, for one).
std::optional<std::pair<std::string, std::string>> split_explain(std::string_view sql) {
  size_t i = 0;
  auto skip_space = [&] {
    while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i]))) ++i;
  };
  skip_space();
  if (lower(sql.substr(i, 7)) != "explain" || (i + 7 < sql.size() && is_word_char(sql[i + 7]))) {
    return std::nullopt;
  }
  i += 7;
  size_t options_start = i;
  skip_space();
  if (i < sql.size() && sql[i] == '(') {
    int depth = 0;
    bool quoted = false;
    for (; i < sql.size(); ++i) {
      char c = sql[i];
      if (c == '\'' || c == '"') quoted = !quoted;
      if (quoted) continue;
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0) {
        ++i;
        break;
      }
    }
    if (depth != 0) return std::nullopt;
  } else {
    for (;;) {
      size_t w = i;
      while (w < sql.size() && is_word_char(sql[w])) ++w;
      std::string word = lower(sql.substr(i, w - i));
      if (word != "analyze" && word != "analyse" && word != "verbose") break;
      i = w;
      skip_space();
    }
  }
  std::string options(sql.substr(options_start, i - options_start));
  skip_space();
  std::string statement(sql.substr(i));
  while (!statement.empty() &&
         (statement.back() == ';' || std::isspace(static_cast<unsigned char>(statement.back())))) {
    statement.pop_back();
  }
  if (statement.empty()) return std::nullopt;
  return std::make_pair(options, statement);
}

}  // namespace

std::optional<ClientSession::Plan> ClientSession::plan_explain(std::string_view sql,
                                                               bool in_block) {
  auto view = routing_view();
  if (view == nullptr) return std::nullopt;
  auto parts = split_explain(sql);
  if (!parts) return std::nullopt;
  auto analysis = worker_.analyze(parts->second);
  if (!*analysis || (*analysis)->size() != 1) return std::nullopt;
  const sql::StatementInfo& info = (**analysis)[0];
  // A pgrange table, or a view of them (what runs over several shards either way).
  bool ours = std::any_of(info.tables.begin(), info.tables.end(), [&](const sql::TableRef& t) {
    return view->find_table(t.schema, t.name) != nullptr ||
           view->find_view(t.schema, t.name) != nullptr;
  });
  if (!ours) return std::nullopt;
  Plan p;
  std::string opts = lower(parts->first);
  if (in_block && opts.find("analy") != std::string::npos) {
    // It runs in the block's transaction: on one shard it goes there as it is; over several, a
    // SELECT runs on the block's parts (it sees what the block wrote), and a write is refused
    // (each shard would run all of it).
    routing::Route route = routing::route_statements(*view, **analysis);
    bool select = info.kind == sql::StatementKind::kSelect && !info.select_into && !route.writes;
    // A block over several shards already (coord_) runs even a one-shard SELECT on its part.
    bool one_shard = !route.refusal && route.shards.size() <= 1;
    if (one_shard && !(select && coord_ && !route.shards.empty())) return std::nullopt;
    if (select) {
      p.kind = Plan::Kind::kExplain;
      p.analysis = analysis;
      p.explain_options = parts->first;
      p.explain_statement = parts->second;
      return p;
    }
    p.kind = Plan::Kind::kRefuse;
    p.error = not_supported(
        "EXPLAIN ANALYZE of a write over several shards inside a transaction block is not "
        "supported yet",
        "run it outside the transaction block, or EXPLAIN without ANALYZE");
    return p;
  }
  if (opts.find("analy") != std::string::npos && info.kind == sql::StatementKind::kUpdate &&
      routing::route_statements(*view, **analysis).moves_keys) {
    // Each shard would run the UPDATE as it is: rows would stay where their new key is not.
    p.kind = Plan::Kind::kRefuse;
    p.error = Error::make(sqlstate::kFeatureNotSupported,
                          "EXPLAIN ANALYZE of an UPDATE that may move rows between shards is not "
                          "supported");
    return p;
  }
  p.kind = Plan::Kind::kExplain;
  p.analysis = analysis;
  p.explain_options = parts->first;
  p.explain_statement = parts->second;
  return p;
}

awaitable<bool> ClientSession::run_explain(const Plan& plan) {
  std::string out;
  // EXPLAIN ANALYZE inside a block runs in the block's transaction, on its parts (a SELECT:
  // plan_explain refuses a write): what it reads includes what the block wrote.
  const bool in_block = (txn_status_ != 'I' || !deferred_begin_.empty()) &&
                        lower(plan.explain_options).find("analy") != std::string::npos;
  if (in_block && !coord_) co_await become_coordinated();
  auto view = routing_view();
  const auto& infos = **plan.analysis;
  routing::Route route = routing::explain_statements(*view, infos);
  std::vector<std::string> merge_lines;
  std::string shard_sql = plan.explain_statement;
  std::shared_ptr<const Result<sql::MergeQuery>> merged;  // the merge the statement runs as
  // What runs it over several shards (the session's plan of it): a merge, or the tree pgrange
  // runs for several tables or for what no merge computes over one (the shards' own plans are
  // those of each read and of the statement over the rows read, known only when it runs).
  std::shared_ptr<const routing::GatherPlan> gather;
  auto spread = routing::plan_spread(
      *view, infos, plan.explain_statement, nullptr, table_sizes().get(), worker_.pool_count() > 1,
      [this](std::string_view sql, const routing::TableDescriptor& t) {
        return worker_.merge_plan(sql, t);
      },
      route);
  if (!spread) {
    route.refusal = spread.error();
  } else if (spread->merge) {
    merged = spread->merge;
    merge_lines = sql::describe_merge(**merged);
    shard_sql = (*merged)->shard_sql;
    if (route.joined) {
      merge_lines.insert(merge_lines.begin(),
                         "each shard joins its own rows (reference tables are whole on "
                         "every shard, co-located tables joined on their key prefix meet "
                         "there), and the answers are merged");
    }
  } else if (spread->gather) {
    gather = spread->gather;
  }
  // An INSERT … SELECT whose rows go to other shards than its query reads: pgrange runs its
  // query and writes the rows by key (expand_insert_select), which is what EXPLAIN says.
  std::optional<sql::InsertSelect> insert_select;
  if (route.refusal && route.refusal->sqlstate == sqlstate::kFeatureNotSupported &&
      infos.size() == 1 && infos[0].kind == sql::StatementKind::kInsert &&
      !infos[0].insert_values && runs_statements_itself()) {
    insert_select = sql::read_insert_select(plan.explain_statement);
  }
  routing::ResultSet rs;
  rs.columns.push_back({"QUERY PLAN", routing::type_oid::kText});
  rs.tag = "EXPLAIN";
  std::optional<Error> error;
  if (insert_select && lower(plan.explain_options).find("analy") != std::string::npos) {
    error = not_supported(
        "EXPLAIN ANALYZE of an INSERT … SELECT whose rows go to other shards than its query "
        "reads is not supported",
        "EXPLAIN without ANALYZE shows its plan, EXPLAIN ANALYZE of its query how it is read");
  } else if (insert_select) {
    rs.rows.push_back(
        {"pgrange plan: INSERT … SELECT whose rows go to other shards than its "
         "query reads: pgrange reads the query, then writes its rows by key"});
    rs.rows.push_back({"  query: " + insert_select->query});
    rs.rows.push_back(
        {"    read as a SELECT through pgrange (EXPLAIN of the query shows how), "
         "its answer held up to query_memory"});
    rs.rows.push_back({"  write: INSERT … VALUES of at most " +
                       std::to_string(exec::InsertParts::kPartRows) +
                       " rows each, in the query's order, every row on the shard owning its "
                       "key, in one transaction (two-phase commit over the shards it reaches)"});
  }
  bool through_index = false;
  std::optional<std::string> shard_error;
  if (route.index_lookup && !route.refusal && route.shards.size() > 1) {
    // A lookup through a global index: its steps, and the index's shards explain the first.
    auto read = routing::plan_index_read(*view, plan.explain_statement, *route.index_lookup);
    if (!read) spdlog::warn("EXPLAIN of an index lookup: {}", read.error().message);
    if (read) {
      through_index = true;
      for (std::string& line : routing::describe_index_read(*view, *read, *route.index_lookup)) {
        rs.rows.push_back({std::move(line)});
      }
      shard_sql = std::move(read->first_step_sql);
      route.shards = route.index_lookup->shards;
    }
  }
  std::vector<std::string> lines = routing::describe_route(*view, route, infos.size(), merge_lines);
  if (gather) {
    std::string shards;
    for (int shard : route.shards) shards += (shards.empty() ? "" : ", ") + view->shard_name(shard);
    rs.rows.push_back({"pgrange plan: tables read from " + std::to_string(route.shards.size()) +
                       " shards (" + shards + "), the statement run with their rows"});
    for (const std::string& line : gather->describe()) rs.rows.push_back({"  " + line});
    if (lower(plan.explain_options).find("analy") != std::string::npos) {
      // EXPLAIN ANALYZE: the tree runs (its answer is not sent), each operator's rows and time.
      std::string answer;
      exec::GatherOutcome outcome = co_await execute_gather(*gather, answer, GatherSink::kDiscard);
      auto names = [&](const std::vector<int>& shards) {
        std::string out;
        for (int s : shards) {
          if (s >= 0) out += (out.empty() ? "" : ", ") + view->shard_name(s);  // -1: not run
        }
        return out.empty() ? std::string("no shard") : out;
      };
      for (size_t i = 0; i < outcome.steps.size(); ++i) {
        const auto& st = outcome.steps[i];
        std::string what =
            i < gather->inputs.size()
                ? "Materialize " + std::string(st.summarized ? "the rows of a query of " : "") +
                      gather->inputs[i].table + " (as " + gather->inputs[i].qualifier + ")"
                : std::string("Gather");
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.3f", st.ms);
        if (st.in_place) {
          rs.rows.push_back({"  actual: " + what + ": not read, its rows all on " +
                             names(st.shards) + ", where the statement ran on the table"});
          continue;
        }
        std::string batches;
        if (st.reads > 1) {
          batches = " (looked up in " + std::to_string(st.reads) + " reads of at most " +
                    std::to_string(routing::GatherPlan::kLookupBatch) + " values)";
        }
        if (st.summary_past_memory) {
          batches += "; its query's answer past query_memory, so the table's rows were read";
        }
        if (st.lookup_dropped) {
          batches +=
              "; the values to look up past query_memory, so every row its conditions "
              "allow was read";
        }
        if (st.spilled_rows > 0) {
          batches += "; past query_memory, " + std::to_string(st.spilled_rows) +
                     " of them through a temporary file into a temporary table where the "
                     "statement ran";
        }
        rs.rows.push_back({"  actual: " + what + ": " + std::to_string(st.rows) + " rows from " +
                           names(st.shards) + batches + ", " + ms + " ms"});
      }
      if (!outcome.ok() && in_block) {
        // The block's transaction failed with it: its error is the answer.
        error = outcome.error;
        shard_error = outcome.shard_error;
      } else if (!outcome.ok()) {
        std::string why = outcome.error ? outcome.error->message
                                        : parse_error_fields(*outcome.shard_error).message;
        rs.rows.push_back({"  actual: failed: " + why});
      }
    }
  }
  // The router's reading of the statement (its first line, the summary, is the steps' above).
  for (size_t i = through_index || gather || insert_select ? 1 : 0; i < lines.size(); ++i) {
    // (The refusal's hint is the planner's, not what runs.)
    if (insert_select && lines[i].starts_with("  hint:")) continue;
    rs.rows.push_back({std::move(lines[i])});
  }
  if (merged && !gather && !through_index && !route.refusal &&
      lower(plan.explain_options).find("analy") != std::string::npos) {
    // EXPLAIN ANALYZE of a merge: the tree runs (its answer is not sent), each operator's
    // rows and time; the shards' own plans with theirs follow.
    auto actual = co_await analyze_merge(merged, route.shards);
    if (!actual && in_block) {
      error = actual.error().error;  // the block's transaction failed with it
      shard_error = actual.error().shard_error;
    } else if (!actual) {
      std::string why = actual.error().error
                            ? actual.error().error->message
                            : parse_error_fields(*actual.error().shard_error).message;
      rs.rows.push_back({"  actual: failed: " + why});
    } else {
      for (std::string& line : *actual) rs.rows.push_back({"  " + std::move(line)});
    }
  }
  // In JSON, YAML or XML the shards' plans go into one document under pgrange's own (an unknown
  // format is the shards' error).
  auto format =
      routing::explain_format(plan.explain_options).value_or(routing::ExplainFormat::kText);
  std::vector<routing::ShardExplain> documents;
  if (!route.refusal && !gather) {
    std::string sql = "EXPLAIN " + plan.explain_options + " " + shard_sql;
    for (int shard : route.shards) {
      if (error || shard_error) break;
      std::shared_ptr<BackendConnection> pooled;
      BackendConnection* conn = nullptr;
      if (in_block) {
        auto part = co_await coordinated_part(shard);
        if (!part) {
          error = part.error();
          break;
        }
        conn = *part;
      } else {
        auto acquired = co_await acquire_for_client(static_cast<size_t>(shard));
        if (!acquired) {
          error = acquired.error();
          break;
        }
        pooled = *acquired;
        conn = pooled.get();
      }
      if (format == routing::ExplainFormat::kText) {
        rs.rows.push_back({"shard " + view->shard_name(shard) + ":"});
      } else {
        documents.push_back({view->shard_name(shard), ""});
      }
      std::optional<Error> e = co_await start_query(*conn, sql);
      bool broken = e.has_value();
      if (e) error = *e;
      while (!e) {
        char type = 0;
        std::string body;
        if (auto r = co_await conn->read_message(type, body); !r) {
          error = r.error();
          broken = true;
          break;
        }
        if (type == 'Z') break;
        if (type == 'E' && !shard_error) shard_error = body;
        if (type != 'D') continue;
        BodyReader br(body);
        int16_t n = 0;
        int32_t len = 0;
        std::string_view v;
        if (br.i16(n) && n == 1 && br.i32(len) && len >= 0 &&
            br.bytes(static_cast<size_t>(len), v)) {
          if (format == routing::ExplainFormat::kText) {
            rs.rows.push_back({"  " + std::string(v)});
          } else {
            documents.back().document += v;
          }
        }
      }
      if (pooled) {
        pool(static_cast<size_t>(shard)).release(pooled, !broken && !pooled->broken());
      } else if (broken) {
        conn->mark_broken();
      }
    }
  }
  if (format != routing::ExplainFormat::kText) {
    std::vector<std::string> plan_lines;
    for (auto& row : rs.rows) plan_lines.push_back(row[0].value_or(""));
    rs.rows = {{routing::explain_document(format, plan_lines, documents)}};
    if (format == routing::ExplainFormat::kJson) rs.columns[0].type_oid = routing::type_oid::kJson;
    if (format == routing::ExplainFormat::kXml) rs.columns[0].type_oid = routing::type_oid::kXml;
  }
  if (shard_error) {
    write_shard_error(out, *shard_error);
  } else if (error) {
    write_error(out, *error);
  } else {
    send_result(rs, out);
  }
  if ((shard_error || error) && coord_) {
    // The block's transaction failed on a part, as PostgreSQL's would.
    coord_->failed = true;
    txn_status_ = 'E';
  }
  write_ready_for_query(out, txn_status_);
  channel_.send(std::move(out));
  co_return true;
}

awaitable<exec::ExecResult<std::vector<std::string>>> ClientSession::analyze_merge(
    std::shared_ptr<const Result<sql::MergeQuery>> merge, const std::vector<int>& shards) {
  Plan read;
  read.kind = Plan::Kind::kRead;
  read.merge = std::move(merge);
  read.route.shards = shards;
  HeldConnections held;
  std::optional<exec::GatherContext> unused_ctx;
  std::string unused;  // the shards' notices while it runs: not the client's
  auto tree = co_await read_tree(read, {}, nullptr, unused, held, unused_ctx);
  std::optional<exec::ExecFailure> failure;
  std::vector<std::string> lines;
  if (!tree) {
    failure = tree.error();
  } else {
    if (auto o = co_await (*tree)->open(); !o) failure = o.error();
    for (bool more = !failure; more;) {
      exec::Batch batch;
      auto next = co_await (*tree)->next(batch);
      if (!next) failure = next.error();
      more = next && *next;
    }
    co_await (*tree)->close(failure.has_value());
    if (!failure) lines = exec::actual_lines(**tree);
    tree->reset();  // before its connections go back
  }
  for (auto& conn : held) {
    pool(static_cast<size_t>(conn->shard_index())).release(conn, !conn->broken());
  }
  if (failure) co_return tl::unexpected(std::move(*failure));
  co_return lines;
}

}  // namespace pgrange::proxy
