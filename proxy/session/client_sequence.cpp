// ClientSession's sequence functions on the cluster-wide sequences pgrange hands out:
// SELECT nextval('…'), currval('…'), lastval() and setval(…) are answered by pgrange (the
// shards' own sequences of those names no longer count); currval and lastval are the
// session's, as PostgreSQL's.

#include <charconv>

#include "proxy/control/control_plane.hpp"
#include "proxy/session/client_session.hpp"
#include "proxy/wire/message_writer.hpp"
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

}  // namespace

Result<std::optional<ClientSession::SequenceAnswer>> ClientSession::sequence_answer(
    std::string_view sql) {
  auto view = routing_view();
  if (view == nullptr || !sql::mentions_sequence_function(sql)) return std::nullopt;
  bool any =
      !last_sequence_.empty() || std::any_of(view->tables().begin(), view->tables().end(),
                                             [](const auto& t) { return !t.generated.empty(); });
  if (!any) return std::nullopt;
  auto calls = sql::sequence_calls(sql);
  bool ours = false;
  for (const auto& c : calls) {
    if (c.function == "lastval") {
      ours = ours || !last_sequence_.empty();
    } else if (!c.args.empty() && (!c.args[0] || cluster_sequence(*view, c.args[0]))) {
      // A cluster-wide sequence, or nextval(some_expression): which one is known only as it
      // runs, so the shard's sequence of that name must not answer it.
      ours = true;
    }
  }
  if (!ours) return std::nullopt;
  auto refusal = [&](const sql::SequenceCall& c) {
    return tl::unexpected(not_supported(
        "sequence function " + c.function +
            "() of a sequence pgrange hands out over every shard is supported in a SELECT of "
            "its own only, with the sequence's name as a constant",
        "SELECT " + c.function + "('sequence_name') alone, then use the value it returns"));
  };
  auto sole = sql::sole_sequence_call(sql);
  if (!sole || calls.size() != 1) return refusal(calls.front());
  SequenceAnswer answer{*sole, {}};
  if (sole->function == "lastval") {
    if (!sole->args.empty()) return std::nullopt;  // the shard reports the wrong call
    return answer;
  }
  auto seq = cluster_sequence(*view, sole->args.empty() ? std::nullopt : sole->args[0]);
  if (!seq) return refusal(*sole);
  answer.sequence = seq->first + "." + seq->second;
  bool arity =
      (sole->function == "nextval" || sole->function == "currval")
          ? sole->args.size() == 1
          : sole->function == "setval" && (sole->args.size() == 2 || sole->args.size() == 3);
  if (!arity) return std::nullopt;  // the shard reports the wrong call
  if (sole->function == "setval") {
    int64_t value = 0;
    const auto& text = sole->args[1];
    bool number = false;
    if (text) {
      auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
      number = ec == std::errc() && end == text->data() + text->size();
    }
    bool flag = sole->args.size() == 2 ||
                (sole->args[2] && (*sole->args[2] == "true" || *sole->args[2] == "false"));
    if (!number || !flag) return refusal(*sole);
  }
  return answer;
}

awaitable<Result<int64_t>> ClientSession::sequence_value(const SequenceAnswer& answer) {
  const sql::SequenceCall& call = answer.call;
  ControlPlane* cp = worker_.shared().control;
  if (call.function == "lastval") {
    auto it = sequence_values_.find(last_sequence_);
    if (it == sequence_values_.end()) {
      co_return fail("55000", "lastval is not yet defined in this session");
    }
    co_return it->second;
  }
  auto dot = answer.sequence.find('.');
  std::string schema = answer.sequence.substr(0, dot);
  std::string name = answer.sequence.substr(dot + 1);
  if (auto refused = co_await check_sequence_right(schema, name, call.function)) {
    co_return tl::unexpected(*refused);
  }
  if (call.function == "nextval") {
    std::function<Result<std::vector<int64_t>>()> task = [cp, schema, name]() {
      return cp->next_values(schema, name, 1);
    };
    auto values = co_await cp->call<Result<std::vector<int64_t>>>(std::move(task));
    if (!values) co_return tl::unexpected(values.error());
    sequence_values_[answer.sequence] = values->front();
    last_sequence_ = answer.sequence;
    co_return values->front();
  }
  if (call.function == "currval") {
    auto it = sequence_values_.find(answer.sequence);
    if (it == sequence_values_.end()) {
      co_return fail("55000",
                     "currval of sequence \"" + name + "\" is not yet defined in this session");
    }
    co_return it->second;
  }
  // setval(seq, value [, is_called]), its arguments checked by sequence_answer.
  int64_t value = 0;
  std::from_chars(call.args[1]->data(), call.args[1]->data() + call.args[1]->size(), value);
  bool is_called = call.args.size() == 2 || *call.args[2] == "true";
  std::function<Result<int64_t>()> task = [cp, schema, name, value, is_called]() {
    return cp->set_sequence(schema, name, value, is_called);
  };
  auto set = co_await cp->call<Result<int64_t>>(std::move(task));
  if (!set) co_return tl::unexpected(set.error());
  if (is_called) sequence_values_[answer.sequence] = value;
  co_return value;
}

awaitable<bool> ClientSession::answer_sequence_call(std::string_view sql, std::string& out,
                                                    bool& ok) {
  auto answer = sequence_answer(sql);
  if (!answer) {
    ok = refuse('Q', answer.error(), out);
    co_return true;
  }
  if (!*answer) co_return false;
  auto value = co_await sequence_value(**answer);
  if (!value) {
    ok = refuse('Q', value.error(), out);
    co_return true;
  }
  routing::ResultSet rs;
  rs.columns = {{(*answer)->call.column, routing::type_oid::kInt8}};
  rs.rows.push_back({std::to_string(*value)});
  rs.tag = "SELECT 1";
  PendingEntry e;
  e.kind = Pending::kSyntheticQuery;
  send_result(rs, e.payload);
  pending_.push_back(std::move(e));
  co_return true;
}

}  // namespace pgrange::proxy
