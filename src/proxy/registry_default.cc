// Generated from config/agents.json (kept identical; registry_test checks it).
#include "weld/proxy/registry.h"

namespace weld::proxy {

std::string_view default_registry_text() {
  static constexpr std::string_view kText = R"json(
{
  "router": {
    "description": "Routing decision: pick exactly one action from a fixed set of candidates.",
    "input_schema": {
      "type": "object",
      "properties": {
        "action": { "type": "string", "enum": ["search", "calculator", "translate", "refund"] }
      },
      "required": ["action"]
    }
  },
  "advisor": {
    "description": "Open options: several candidate answers, each with a confidence (0-1) and a reason, plus a summary.",
    "input_schema": {
      "type": "object",
      "properties": {
        "options": {
          "type": "array",
          "items": {
            "type": "object",
            "properties": {
              "label": { "type": "string" },
              "confidence": { "type": "number", "minimum": 0, "maximum": 1 },
              "reason": { "type": "string" }
            },
            "required": ["label", "confidence", "reason"]
          }
        },
        "summary": { "type": "string" }
      },
      "required": ["options", "summary"]
    }
  },
  "ticket": {
    "description": "Fill a fixed ticket: every field required, category, priority and component limited to fixed values.",
    "input_schema": {
      "type": "object",
      "properties": {
        "title": { "type": "string", "maxLength": 120 },
        "category": { "type": "string", "enum": ["bug", "feature", "question", "chore"] },
        "priority": { "type": "string", "enum": ["low", "medium", "high", "urgent"] },
        "component": { "type": "string", "enum": ["frontend", "backend", "infra", "docs", "other"] },
        "summary": { "type": "string" }
      },
      "required": ["title", "category", "priority", "component", "summary"],
      "additionalProperties": false
    }
  },
  "brief": {
    "description": "Minimal open options: at most 3 options, each with a confidence (0-1) and a one-sentence reason; a one-sentence summary.",
    "input_schema": {
      "type": "object",
      "properties": {
        "options": {
          "type": "array",
          "minItems": 1,
          "maxItems": 3,
          "items": {
            "type": "object",
            "properties": {
              "label": { "type": "string" },
              "confidence": { "type": "number", "minimum": 0, "maximum": 1 },
              "reason": { "type": "string", "maxLength": 80 }
            },
            "required": ["label", "confidence", "reason"]
          }
        },
        "summary": { "type": "string", "maxLength": 120 }
      },
      "required": ["options", "summary"]
    }
  }
}
)json";
  return kText;
}

}  // namespace weld::proxy
