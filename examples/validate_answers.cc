// Example for docs/library.md: compile a schema once, then check model
// answers with repair, as weld's run and proxy do. Built with the tests
// (tests/consumer, as an outside project) so the page cannot drift from
// the API.
//
//   ./validate_answers '{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}' '{"ok":"true"}'

#include <iostream>

#include "weld/json/serialize.h"
#include "weld/repair/repair.h"
#include "weld/schema/load.h"
#include "weld/schema/schema.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: validate_answers SCHEMA ANSWER...\n";
    return 2;
  }
  // Every rule of docs/schema.md, "Reading --json-schema VALUE": inline JSON or @path, root must accept objects, strict compile.
  weld::Result<weld::schema::LoadedSchema> loaded = weld::schema::load_json_schema(argv[1]);
  if (!loaded) {
    std::cerr << loaded.error().message << "\n";
    return 52;
  }
  weld::repair::Options options;  // parse repairs and coercions on, clamping off
  int invalid = 0;
  for (int i = 2; i < argc; ++i) {
    weld::repair::Checked checked = weld::repair::check_arguments(argv[i], loaded->schema, options);
    if (checked.valid) {
      std::cout << weld::json::serialize(checked.value);
      for (const weld::repair::Repair& repair : checked.repairs) std::cout << "  [" << repair.kind << "]";
      std::cout << "\n";
    } else {
      ++invalid;
      std::cout << weld::schema::describe(checked.validation.violations, "params") << "\n";
    }
  }
  return invalid == 0 ? 0 : 1;
}
