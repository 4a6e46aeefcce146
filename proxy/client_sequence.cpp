// ClientSession's sequence functions on the cluster-wide sequences pgrange hands out:
// SELECT nextval('…'), currval('…'), lastval() and setval(…) are answered by pgrange (the
// shards' own sequences of those names no longer count); currval and lastval are the
// session's, as PostgreSQL's.

#include <charconv>

#include "proxy/client_session.hpp"
#include "proxy/control_plane.hpp"
#include "proxy/message_writer.hpp"
#include "proxy/worker.hpp"
#include "sql/sequence_call.hpp"

namespace pgrange::proxy {
namespace {

/// The cluster-wide sequence a text argument names ("schema.name"; unqualified: public), or
/// nullopt when it names none of them.
std::optional<std::pair<std::string, std::string>> cluster_sequence(
    const routing::ClusterView& view, const std::optional<std::string>& arg) {
  if (!arg) return std::nullopt;
  auto name = sql::sequence_name_of(*arg);
  if (!name) return std::nullopt;
  if (name->first.empty()) name->first = "public";
  for (const routing::TableDescriptor& t : view.tables()) {
    for (const routing::GeneratedKey& g : t.generated) {
      if (g.sequence_schema == name->first && g.sequence_name == name->second) return name;
    }
  }
  return std::nullopt;
}

/// A cheap test before parsing: the text may call nextval, currval, setval or lastval.
bool mentions_sequence_function(std::string_view sql) {
  for (size_t p = 0; (p = sql.find_first_of("vV", p)) != std::string_view::npos; ++p) {
    if (p < 3 || p + 2 >= sql.size()) continue;
    auto lower = [&](size_t i) { return static_cast<char>(sql[i] | 0x20); };
    if (lower(p + 1) != 'a' || lower(p + 2) != 'l') continue;
    std::string before{lower(p - 3), lower(p - 2), lower(p - 1)};
    if (before == "ext" || before == "urr" || before == "ast" || (before.substr(1) == "et")) {
      return true;
    }
  }
  return false;
}

}  // namespace

awaitable<bool> ClientSession::answer_sequence_call(std::string_view sql, std::string& out,
                                                    bool& ok) {
  const auto& view = worker_.view();
  if (view == nullptr || !mentions_sequence_function(sql)) co_return false;
  bool any =
      !last_sequence_.empty() || std::any_of(view->tables().begin(), view->tables().end(),
                                             [](const auto& t) { return !t.generated.empty(); });
  if (!any) co_return false;
  auto calls = sql::sequence_calls(sql);
  bool ours = false;
  for (const auto& c : calls) {
    if (c.function == "lastval") {
      ours = ours || !last_sequence_.empty();
    } else if (!c.args.empty() && cluster_sequence(*view, c.args[0])) {
      ours = true;
    } else if (!c.args.empty() && !c.args[0] && c.function != "lastval") {
      // nextval(some_expression): which sequence is known only as it runs.
      ours = true;
    }
  }
  if (!ours) co_return false;
  auto sole = sql::sole_sequence_call(sql);
  if (!sole || calls.size() != 1) {
    ok = refuse('Q',
                not_supported("sequence function " + calls.front().function +
                                  "() of a sequence pgrange hands out over every shard is "
                                  "supported in a SELECT of its own only",
                              "SELECT " + calls.front().function +
                                  "(…) alone, then use the value it returns"),
                out);
    co_return true;
  }
  ControlPlane* cp = worker_.shared().control;
  auto answer = [&](const std::string& value) {
    routing::ResultSet rs;
    rs.columns = {{sole->column, routing::type_oid::kInt8}};
    rs.rows.push_back({value});
    rs.tag = "SELECT 1";
    PendingEntry e;
    e.kind = Pending::kSyntheticQuery;
    send_result(rs, e.payload);
    pending_.push_back(std::move(e));
  };
  if (sole->function == "lastval") {
    if (sole->args.size() != 0) co_return false;  // the shard reports the wrong call
    answer(std::to_string(sequence_values_.at(last_sequence_)));
    co_return true;
  }
  auto seq = cluster_sequence(*view, sole->args.empty() ? std::nullopt : sole->args[0]);
  if (!seq) co_return false;
  std::string key = seq->first + "." + seq->second;
  if (sole->function == "nextval" && sole->args.size() == 1) {
    std::function<Result<std::vector<int64_t>>()> task = [cp, s = *seq]() {
      return cp->next_values(s.first, s.second, 1);
    };
    auto values = co_await cp->call<Result<std::vector<int64_t>>>(std::move(task));
    if (!values) {
      ok = refuse('Q', values.error(), out);
      co_return true;
    }
    sequence_values_[key] = values->front();
    last_sequence_ = key;
    answer(std::to_string(values->front()));
    co_return true;
  }
  if (sole->function == "currval" && sole->args.size() == 1) {
    auto it = sequence_values_.find(key);
    if (it == sequence_values_.end()) {
      ok = refuse('Q',
                  Error::make("55000", "currval of sequence \"" + seq->second +
                                           "\" is not yet defined in this session"),
                  out);
      co_return true;
    }
    answer(std::to_string(it->second));
    co_return true;
  }
  if (sole->function == "setval" && (sole->args.size() == 2 || sole->args.size() == 3)) {
    const std::string& text = *sole->args[1];
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    bool is_called = sole->args.size() == 2 || *sole->args[2] == "true";
    if (ec != std::errc() || end != text.data() + text.size() ||
        (sole->args.size() == 3 && *sole->args[2] != "true" && *sole->args[2] != "false")) {
      co_return false;  // not a plain bigint and boolean: the shard reports it
    }
    std::function<Result<int64_t>()> task = [cp, s = *seq, value, is_called]() {
      return cp->set_sequence(s.first, s.second, value, is_called);
    };
    auto set = co_await cp->call<Result<int64_t>>(std::move(task));
    if (!set) {
      ok = refuse('Q', set.error(), out);
      co_return true;
    }
    if (is_called) sequence_values_[key] = value;
    answer(std::to_string(value));
    co_return true;
  }
  co_return false;
}

}  // namespace pgrange::proxy
