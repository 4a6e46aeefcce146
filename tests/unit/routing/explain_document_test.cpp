#include "routing/plan/explain_document.hpp"

#include <gtest/gtest.h>

namespace pgrange::routing {
namespace {

TEST(ExplainDocument, FormatOption) {
  EXPECT_EQ(explain_format(""), ExplainFormat::kText);
  EXPECT_EQ(explain_format(" ANALYZE VERBOSE"), ExplainFormat::kText);
  EXPECT_EQ(explain_format(" (FORMAT JSON)"), ExplainFormat::kJson);
  EXPECT_EQ(explain_format("(analyze, format yaml, costs off)"), ExplainFormat::kYaml);
  EXPECT_EQ(explain_format("(Format\tXml)"), ExplainFormat::kXml);
  EXPECT_EQ(explain_format("(FORMAT TEXT)"), ExplainFormat::kText);
  EXPECT_EQ(explain_format("(FORMAT csv)"), std::nullopt);
  EXPECT_EQ(explain_format("(formats json)"), ExplainFormat::kText);  // not the FORMAT option
}

TEST(ExplainDocument, JsonSplicesTheShardsPlans) {
  std::string doc = explain_document(ExplainFormat::kJson, {"fan-out to 2 shards", "say \"x\"\\"},
                                     {{"s1", "[\n  {\n    \"Plan\": {}\n  }\n]"}, {"s2", "[]"}});
  EXPECT_EQ(doc,
            "[\n"
            "  {\n"
            "    \"Plan\": {\n"
            "      \"Node Type\": \"Custom Scan\",\n"
            "      \"Custom Plan Provider\": \"pgrange\",\n"
            "      \"Parallel Aware\": false,\n"
            "      \"Async Capable\": false,\n"
            "      \"pgrange Plan\": [\n"
            "        \"fan-out to 2 shards\",\n"
            "        \"say \\\"x\\\"\\\\\"\n"
            "      ],\n"
            "      \"Shards\": [\n"
            "        {\n"
            "          \"Shard\": \"s1\",\n"
            "          \"Remote Plan\": [\n"
            "            {\n"
            "              \"Plan\": {}\n"
            "            }\n"
            "          ]\n"
            "        },\n"
            "        {\n"
            "          \"Shard\": \"s2\",\n"
            "          \"Remote Plan\": []\n"
            "        }\n"
            "      ]\n"
            "    }\n"
            "  }\n"
            "]");
  EXPECT_NE(explain_document(ExplainFormat::kJson, {}, {}).find("\"Shards\": []"),
            std::string::npos);
}

TEST(ExplainDocument, YamlAndXmlNestTheShardsPlans) {
  std::string yaml = explain_document(ExplainFormat::kYaml, {"a: b"},
                                      {{"s1", "- Plan: \n    Node Type: \"Result\""}});
  EXPECT_EQ(yaml,
            "- Plan: \n"
            "    Node Type: \"Custom Scan\"\n"
            "    Custom Plan Provider: \"pgrange\"\n"
            "    Parallel Aware: false\n"
            "    Async Capable: false\n"
            "    pgrange Plan: \n"
            "      - \"a: b\"\n"
            "    Shards: \n"
            "      - Shard: \"s1\"\n"
            "        Remote Plan: \n"
            "          - Plan: \n"
            "              Node Type: \"Result\"");
  std::string xml = explain_document(ExplainFormat::kXml, {"x < y & z"}, {{"s1", "<explain/>"}});
  EXPECT_NE(xml.find("<Item>x &lt; y &amp; z</Item>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("          <Remote-Plan>\n            <explain/>\n          </Remote-Plan>"),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.rfind("</explain>"), xml.size() - 10);
}

}  // namespace
}  // namespace pgrange::routing
