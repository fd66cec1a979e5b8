#pragma once
// One entry point per subcommand; each lives in its own *_command.cc file.
// Each takes the arguments after the subcommand name (argv[0] is the
// subcommand itself) and returns the process exit code (docs/design.md, "Exit codes").

namespace weld::cli {

int run_main(int argc, char** argv);      // weld [-p PROMPT] [--json-schema S] …  (run_command.cc)
int schema_main(int argc, char** argv);   // weld schema check|validate …         (schema_command.cc)
int sample_main(int argc, char** argv);   // weld sample SCHEMA [-n N] [--seed S]  (sample_command.cc)
int proxy_main(int argc, char** argv);    // weld proxy …                          (proxy_command.cc)
int agents_main(int argc, char** argv);   // weld agents check|export …            (agents_command.cc)
int batch_main(int argc, char** argv);    // weld batch --json-schema S INPUT …     (batch_command.cc)

}  // namespace weld::cli
