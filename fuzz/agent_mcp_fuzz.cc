// Fuzzes the MCP client's reading of what a server writes (src/agent/mcp):
// newline-delimited JSON-RPC split at arbitrary points, message
// classification, tools/list and tools/call results, settings mcpServers,
// and the offered-name rules.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/agent/mcp.h"
#include "weld/json/parse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);

  // The stream, cut into chunks whose sizes come from the input itself.
  weld::agent::JsonRpcLineReader reader(4096);
  std::size_t offset = 0;
  std::size_t step = size > 0 ? (static_cast<unsigned char>(input[0]) % 17) + 1 : 1;
  while (offset < input.size()) {
    std::size_t n = std::min(step, input.size() - offset);
    if (!reader.feed(input.substr(offset, n))) break;
    offset += n;
    while (std::optional<std::string> line = reader.next_line()) {
      weld::agent::JsonRpcMessage message = weld::agent::parse_jsonrpc_message(*line);
      if (message.result) {
        std::optional<std::string> cursor;
        (void)weld::agent::parse_tools_list(*message.result, cursor);
        (void)weld::agent::tool_output_from_call_result(*message.result);
      }
    }
  }

  // The whole input as one document: a result, or settings mcpServers.
  weld::Result<weld::json::Value> doc = weld::json::parse(input);
  if (doc) {
    std::optional<std::string> cursor;
    (void)weld::agent::parse_tools_list(*doc, cursor);
    (void)weld::agent::tool_output_from_call_result(*doc);
    std::vector<weld::agent::McpServerConfig> servers;
    (void)weld::agent::parse_mcp_servers(*doc, "settings.json", servers);
  }

  // server '\n' tool '\n' taken names…
  std::size_t a = input.find('\n');
  if (a != std::string_view::npos) {
    std::size_t b = input.find('\n', a + 1);
    std::string_view server = input.substr(0, a);
    std::string_view tool = input.substr(a + 1, b == std::string_view::npos ? std::string_view::npos : b - a - 1);
    std::vector<std::string> taken;
    if (b != std::string_view::npos) taken.emplace_back(input.substr(b + 1));
    (void)weld::agent::mcp_offered_name(server, tool, taken);
  }
  return 0;
}
