#include <gtest/gtest.h>

#include "weld/agent/mcp.h"
#include "weld/json/parse.h"
#include "weld/json/serialize.h"

namespace weld::agent {
namespace {

json::Value parse_ok(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.ok()) << text;
  return v ? *v : json::Value();
}

TEST(JsonRpcLineReader, SplitsLinesAcrossChunksAndSkipsBlankOnes) {
  JsonRpcLineReader reader;
  EXPECT_TRUE(reader.feed("{\"a\":1}\n{\"b\""));
  EXPECT_EQ(reader.next_line(), std::optional<std::string>("{\"a\":1}"));
  EXPECT_EQ(reader.next_line(), std::nullopt);
  EXPECT_TRUE(reader.feed(":2}\r\n\n  \n{\"c\":3}\n"));
  EXPECT_EQ(reader.next_line(), std::optional<std::string>("{\"b\":2}"));
  EXPECT_EQ(reader.next_line(), std::optional<std::string>("{\"c\":3}"));
  EXPECT_EQ(reader.next_line(), std::nullopt);
}

TEST(JsonRpcLineReader, AnOverlongLineIsAnOverflow) {
  JsonRpcLineReader reader(8);
  EXPECT_TRUE(reader.feed("12345678\n1234"));
  EXPECT_EQ(reader.next_line(), std::optional<std::string>("12345678"));
  EXPECT_FALSE(reader.feed("56789"));
  EXPECT_TRUE(reader.overflowed());
}

TEST(JsonRpc, ClassifiesResponsesRequestsNotificationsAndJunk) {
  JsonRpcMessage ok = parse_jsonrpc_message(R"({"jsonrpc":"2.0","id":7,"result":{"x":1}})");
  EXPECT_EQ(ok.kind, JsonRpcMessage::Kind::Response);
  EXPECT_EQ(ok.id, json::Value(7));
  EXPECT_EQ(json::serialize(*ok.result), R"({"x":1})");

  JsonRpcMessage err = parse_jsonrpc_message(R"({"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"nope"}})");
  EXPECT_EQ(err.kind, JsonRpcMessage::Kind::Response);
  ASSERT_TRUE(err.error.has_value());
  EXPECT_EQ(err.error->first, -32601);
  EXPECT_EQ(err.error->second, "nope");

  JsonRpcMessage ping = parse_jsonrpc_message(R"({"jsonrpc":"2.0","id":3,"method":"ping"})");
  EXPECT_EQ(ping.kind, JsonRpcMessage::Kind::Request);
  EXPECT_EQ(ping.method, "ping");

  JsonRpcMessage note = parse_jsonrpc_message(R"({"jsonrpc":"2.0","method":"notifications/message","params":{}})");
  EXPECT_EQ(note.kind, JsonRpcMessage::Kind::Notification);

  EXPECT_EQ(parse_jsonrpc_message("Server listening on stdio").problem.rfind("not JSON (", 0), 0u);
  EXPECT_EQ(parse_jsonrpc_message(R"({"id":1,"result":{}})").problem, "missing \"jsonrpc\": \"2.0\"");
  EXPECT_EQ(parse_jsonrpc_message(R"({"jsonrpc":"2.0","id":1})").problem,
            "a response needs exactly one of \"result\" and \"error\"");
  EXPECT_EQ(parse_jsonrpc_message(R"({"jsonrpc":"2.0","id":1.5,"result":1})").problem,
            "a response needs a string or integer \"id\"");
  EXPECT_EQ(parse_jsonrpc_message(R"({"jsonrpc":"2.0","id":1,"method":3})").problem, "\"method\" is not a string");
  EXPECT_EQ(parse_jsonrpc_message("[1]").problem, "not a JSON-RPC object");
}

TEST(McpTools, ListKeepsNamedToolsAndTheCursor) {
  std::optional<std::string> cursor;
  auto tools = parse_tools_list(
      parse_ok(R"({"tools":[{"name":"a","description":"A","inputSchema":{"type":"object","properties":{}},
                             "annotations":{"readOnlyHint":true}},
                            {"description":"nameless"},{"name":"b"},7],"nextCursor":"p2"})"),
      cursor);
  ASSERT_TRUE(tools.ok());
  ASSERT_EQ(tools->size(), 2u);
  EXPECT_EQ((*tools)[0].name, "a");
  EXPECT_TRUE((*tools)[0].read_only);
  EXPECT_EQ((*tools)[1].name, "b");
  EXPECT_FALSE((*tools)[1].read_only);
  EXPECT_EQ(json::serialize((*tools)[1].input_schema), R"({"type":"object"})");
  EXPECT_EQ(cursor, std::optional<std::string>("p2"));
  auto bad = parse_tools_list(parse_ok(R"({"items":[]})"), cursor);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "the tools/list result has no \"tools\" array");
}

TEST(McpTools, CallResultBecomesAToolResult) {
  ToolOutput text = tool_output_from_call_result(parse_ok(
      R"({"content":[{"type":"text","text":"one"},{"type":"image","mimeType":"image/png","data":"AAAA"},
                     {"type":"resource","resource":{"uri":"file:///x","text":"body"}},
                     {"type":"resource_link","uri":"file:///y"}]})"));
  EXPECT_EQ(text.content, "one\n[image: image/png, 4 bytes of base64]\nbody\n[resource link: file:///y]");
  EXPECT_FALSE(text.is_error);
  ToolOutput failed = tool_output_from_call_result(parse_ok(R"({"content":[{"type":"text","text":"bad"}],"isError":true})"));
  EXPECT_EQ(failed.content, "bad");
  EXPECT_TRUE(failed.is_error);
  ToolOutput structured = tool_output_from_call_result(parse_ok(R"({"content":[],"structuredContent":{"n":1}})"));
  EXPECT_EQ(structured.content, R"({"n":1})");
  EXPECT_TRUE(tool_output_from_call_result(json::Value(3)).is_error);
}

TEST(McpTools, OfferedNamesFollowSpec27) {
  std::vector<std::string> taken{"read_file", "echo"};
  EXPECT_EQ(mcp_offered_name("kit", "search", taken), std::optional<std::string>("search"));
  EXPECT_EQ(mcp_offered_name("kit", "structured_output", taken),
            std::optional<std::string>("mcp__kit__structured_output"));
  EXPECT_EQ(mcp_offered_name("kit", "read_file", taken), std::optional<std::string>("mcp__kit__read_file"));
  EXPECT_EQ(mcp_offered_name("my kit", "do.it", taken), std::optional<std::string>("do_it"));
  taken.push_back("mcp__kit__echo");
  EXPECT_EQ(mcp_offered_name("kit", "echo", taken), std::nullopt);
  EXPECT_EQ(mcp_offered_name("k", std::string(100, 'x'), taken)->size(), 64u);
}

TEST(McpSettings, ParsesEntriesAndNamesTheBadField) {
  std::vector<McpServerConfig> servers;
  ASSERT_TRUE(parse_mcp_servers(parse_ok(R"({"kit":{"command":"node","args":["s.js"],"env":{"A":"1"},
                                                 "timeout":5000,"startupTimeout":700}})"),
                                "f.json", servers)
                  .ok());
  ASSERT_EQ(servers.size(), 1u);
  EXPECT_EQ(servers[0].name, "kit");
  EXPECT_EQ(servers[0].args, std::vector<std::string>{"s.js"});
  EXPECT_EQ(servers[0].env[0], (std::pair<std::string, std::string>("A", "1")));
  EXPECT_EQ(servers[0].call_timeout.count(), 5000);
  EXPECT_EQ(servers[0].startup_timeout.count(), 700);
  // A later file's server of the same name replaces it.
  ASSERT_TRUE(parse_mcp_servers(parse_ok(R"({"kit":{"command":"python3"}})"), "g.json", servers).ok());
  ASSERT_EQ(servers.size(), 1u);
  EXPECT_EQ(servers[0].command, "python3");

  // Streamable HTTP entries, in Claude Code's and Qwen Code's spellings.
  std::vector<McpServerConfig> remote;
  ASSERT_TRUE(parse_mcp_servers(parse_ok(R"({"r":{"type":"http","url":"https://mcp.example/mcp",)"
                                         R"("headers":{"Authorization":"Bearer t0ken"}},"q":{"httpUrl":"http://127.0.0.1:9/mcp"}})"),
                                "f.json", remote)
                  .ok());
  ASSERT_EQ(remote.size(), 2u);
  EXPECT_EQ(remote[0].url, "https://mcp.example/mcp");
  EXPECT_TRUE(remote[0].command.empty());
  EXPECT_EQ(remote[0].headers[0], (std::pair<std::string, std::string>("Authorization", "Bearer t0ken")));
  EXPECT_EQ(remote[1].url, "http://127.0.0.1:9/mcp");

  auto error = [](std::string_view text) {
    std::vector<McpServerConfig> out;
    Status s = parse_mcp_servers(parse_ok(text), "f.json", out);
    return s.ok() ? std::string("ok") : s.error().message;
  };
  EXPECT_EQ(error(R"([])"), "Settings file \"f.json\": mcpServers must be an object of servers by name.");
  EXPECT_EQ(error(R"({"a":{}})"), "Settings file \"f.json\": mcpServers.a.command is missing.");
  EXPECT_EQ(error(R"({"a":{"url":"http://x","type":"sse"}})"),
            "Settings file \"f.json\": mcpServers.a.type is \"sse\", the HTTP+SSE transport of 2024-11-05, which "
            "weld does not speak; weld speaks Streamable HTTP (\"type\": \"http\"), which current servers offer.");
  EXPECT_EQ(error(R"({"a":{"url":"ftp://x"}})"), "Settings file \"f.json\": mcpServers.a.url must be an http:// or https:// URL.");
  EXPECT_EQ(error(R"({"a":{"httpUrl":"http://x","headers":{"K":1}}})"),
            "Settings file \"f.json\": mcpServers.a.headers.K must be a string.");
  EXPECT_EQ(error(R"({"a":{"command":"x","args":[1]}})"),
            "Settings file \"f.json\": mcpServers.a.args must be an array of strings.");
  EXPECT_EQ(error(R"({"a":{"command":"x","env":{"K":1}}})"), "Settings file \"f.json\": mcpServers.a.env.K must be a string.");
  EXPECT_EQ(error(R"({"a":{"command":"x","timeout":0}})"),
            "Settings file \"f.json\": mcpServers.a.timeout must be a number of milliseconds between 1 and 86400000.");
}

TEST(McpServers, AProgramThatIsNotAServerIsLeftOutWithAWarningAndReaped) {
  McpServerConfig config;
  config.name = "cat";
  config.command = "sh";
  config.args = {"-c", "echo 'not mcp' >&2; exit 4"};
  McpServers servers;
  servers.start({config}, "/", {}, nullptr);
  ASSERT_EQ(servers.warnings().size(), 1u);
  EXPECT_EQ(servers.warnings()[0],
            "weld: warning: MCP server \"cat\" is not available (the server exited or closed its stdio; its "
            "stderr ends: \"not mcp\"); continuing without its tools.");
  EXPECT_TRUE(servers.tools().empty());
  EXPECT_EQ(servers.status()[0].second, "failed");
}

}  // namespace
}  // namespace weld::agent
