#include "routing/plan/explain_document.hpp"

#include <cctype>

namespace pgrange::routing {
namespace {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string xml_text(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// `doc` with every line after the first indented by `indent` spaces (a document spliced in
/// where its first line continues the current one), trailing newlines dropped.
std::string indented(std::string_view doc, size_t indent) {
  while (!doc.empty() && (doc.back() == '\n' || doc.back() == '\r')) doc.remove_suffix(1);
  std::string out;
  for (char c : doc) {
    out += c;
    if (c == '\n') out.append(indent, ' ');
  }
  return out;
}

std::string json_document(const std::vector<std::string>& lines,
                          const std::vector<ShardExplain>& shards) {
  std::string s =
      "[\n"
      "  {\n"
      "    \"Plan\": {\n"
      "      \"Node Type\": \"Custom Scan\",\n"
      "      \"Custom Plan Provider\": \"pgrange\",\n"
      "      \"Parallel Aware\": false,\n"
      "      \"Async Capable\": false,\n"
      "      \"pgrange Plan\": [";
  for (size_t i = 0; i < lines.size(); ++i) {
    s += (i > 0 ? ",\n" : "\n") + std::string(8, ' ') + json_string(lines[i]);
  }
  s += lines.empty() ? "],\n" : "\n      ],\n";
  s += "      \"Shards\": [";
  for (size_t i = 0; i < shards.size(); ++i) {
    s += i > 0 ? ",\n" : "\n";
    s += "        {\n";
    s += "          \"Shard\": " + json_string(shards[i].shard) + ",\n";
    s += "          \"Remote Plan\": " + indented(shards[i].document, 10) + "\n";
    s += "        }";
  }
  s += shards.empty() ? "]\n" : "\n      ]\n";
  s += "    }\n"
       "  }\n"
       "]";
  return s;
}

std::string yaml_document(const std::vector<std::string>& lines,
                          const std::vector<ShardExplain>& shards) {
  std::string s =
      "- Plan: \n"
      "    Node Type: \"Custom Scan\"\n"
      "    Custom Plan Provider: \"pgrange\"\n"
      "    Parallel Aware: false\n"
      "    Async Capable: false\n";
  s += lines.empty() ? "    pgrange Plan: []\n" : "    pgrange Plan: \n";
  // YAML's double-quoted scalars take JSON's escapes.
  for (const std::string& l : lines) s += "      - " + json_string(l) + "\n";
  s += shards.empty() ? "    Shards: []" : "    Shards: ";
  for (const ShardExplain& sh : shards) {
    s += "\n      - Shard: " + json_string(sh.shard) + "\n";
    s += "        Remote Plan: \n";
    s += std::string(10, ' ') + indented(sh.document, 10);
  }
  return s;
}

std::string xml_document(const std::vector<std::string>& lines,
                         const std::vector<ShardExplain>& shards) {
  std::string s =
      "<explain xmlns=\"http://www.postgresql.org/2009/explain\">\n"
      "  <Query>\n"
      "    <Plan>\n"
      "      <Node-Type>Custom Scan</Node-Type>\n"
      "      <Custom-Plan-Provider>pgrange</Custom-Plan-Provider>\n"
      "      <Parallel-Aware>false</Parallel-Aware>\n"
      "      <Async-Capable>false</Async-Capable>\n"
      "      <pgrange-Plan>\n";
  for (const std::string& l : lines) s += "        <Item>" + xml_text(l) + "</Item>\n";
  s += "      </pgrange-Plan>\n";
  s += "      <Shards>\n";
  for (const ShardExplain& sh : shards) {
    s += "        <Shard>\n";
    s += "          <Name>" + xml_text(sh.shard) + "</Name>\n";
    s += "          <Remote-Plan>\n";
    s += std::string(12, ' ') + indented(sh.document, 12) + "\n";
    s += "          </Remote-Plan>\n";
    s += "        </Shard>\n";
  }
  s += "      </Shards>\n"
       "    </Plan>\n"
       "  </Query>\n"
       "</explain>";
  return s;
}

}  // namespace

std::optional<ExplainFormat> explain_format(std::string_view options) {
  std::string lower;
  for (char c : options) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t p = lower.find("format"); p != std::string::npos; p = lower.find("format", p + 1)) {
    if ((p > 0 && is_word(lower[p - 1])) || (p + 6 < lower.size() && is_word(lower[p + 6]))) {
      continue;
    }
    size_t v = p + 6;
    while (v < lower.size() && std::isspace(static_cast<unsigned char>(lower[v]))) ++v;
    size_t e = v;
    while (e < lower.size() && is_word(lower[e])) ++e;
    std::string value = lower.substr(v, e - v);
    if (value == "text") return ExplainFormat::kText;
    if (value == "json") return ExplainFormat::kJson;
    if (value == "yaml") return ExplainFormat::kYaml;
    if (value == "xml") return ExplainFormat::kXml;
    return std::nullopt;
  }
  return ExplainFormat::kText;
}

std::string explain_document(ExplainFormat format, const std::vector<std::string>& plan_lines,
                             const std::vector<ShardExplain>& shards) {
  switch (format) {
    case ExplainFormat::kJson:
      return json_document(plan_lines, shards);
    case ExplainFormat::kYaml:
      return yaml_document(plan_lines, shards);
    case ExplainFormat::kXml:
      return xml_document(plan_lines, shards);
    case ExplainFormat::kText:
      break;
  }
  std::string s;
  for (const std::string& l : plan_lines) s += l + "\n";
  return s;
}

}  // namespace pgrange::routing
