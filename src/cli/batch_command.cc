// `weld batch --json-schema SCHEMA [--prompt TEXT] INPUT [-o OUTPUT]` — the
// run's contract for every row of a JSON Lines input (docs/batch.md). Reads flags,
// picks the shard, loads the schema once, builds one model per worker behind
// one request gate, resumes from -o FILE, runs weld::batch::run_batch, and
// turns how it ended into a summary and an exit code.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "batch_support.h"
#include "suggest.h"
#include "usage.h"
#include "commands.h"
#include "offline_model.h"  // src/sample (target weld_offline)
#include "run_setup.h"
#include "run_support.h"
#include "telemetry_support.h"
#include "weld/agent/session_log.h"
#include "weld/agent/settings.h"
#include "weld/batch/fiber_loop.h"
#include "weld/batch/gate.h"
#include "weld/batch/ids.h"
#include "weld/batch/input.h"
#include "weld/batch/result_file.h"
#include "weld/batch/runner.h"
#include "weld/batch/shard.h"
#include "weld/batch/workers.h"
#include "weld/schema/load.h"

namespace weld::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kUsage =
    "Usage: weld batch --json-schema SCHEMA [--prompt TEXT] INPUT [-o OUTPUT] [OPTIONS]";

struct BatchFlags {
  std::string input;
  std::string output = "-";
  std::optional<std::string> json_schema;
  std::optional<std::string> prompt;
  std::optional<std::string> id_field;
  std::string output_format = "weld";
  int concurrency = 16;
  std::optional<int> threads;
  double max_rps = 0;
  std::optional<std::string> shard;
  std::optional<std::uint32_t> shards;
  std::optional<std::string> summary;
  bool no_progress = false;
  std::optional<std::string> progress_interval;  ///< seconds, as typed
  bool retry_errored = false;
  std::optional<std::string> telemetry_file;
  ModelFlags model;
  ModelFlagText model_text;
  RunLimitFlags limits;
  ToolFlags tools;  ///< no --bare and no MCP servers (kRunOnlyFlags)
};

void write_stderr(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

int fail(int code, const std::string& message) {
  write_stderr(with_prefix("weld batch: ", message) + "\n");
  return code;
}

// Flags of the run (and of Claude Code) a batch has no use for, and why
// (docs/batch.md, "Each row is a run").
const FlagsElsewhere kRunOnlyFlags = {
    {"--mcp-config", "rows run no MCP servers; give each row the data it needs"},
    {"--strict-mcp-config", "rows run no MCP servers"},
    {"--verbose", "the batch writes progress on stderr, and each row's line holds its attempts, repairs and error"},
    {"--debug", "each row's line holds its attempts, repairs and error; --debug belongs to a single run"},
    {"--debug-file", "--debug belongs to a single run"},
    {"--continue", "every row is a new run; --retry-errored runs the errored rows again"},
    {"--resume", "every row is a new run; --retry-errored runs the errored rows again"},
    {"--bare", "rows read the settings only for the tools they are given"},
};

int usage_error(const std::string& message) {
  return fail(1, "weld batch: " + message + "\n" + kUsage + "\nRun 'weld batch --help' for all options.");
}

void add_flags(CLI::App& app, BatchFlags& f) {
  app.add_option("input", f.input, "JSON Lines input: a file, or - for standard input")->required();
  app.add_option("-o,--output", f.output,
                 "Result lines: a file (resumed if it exists; {shard} is replaced by the shard index) or - "
                 "(standard output, the default)");
  app.add_option("--json-schema", f.json_schema,
                 "Required. JSON Schema every row's answer must validate against: inline JSON, @path, or a path");
  app.add_option("-p,--prompt", f.prompt, "Instruction sent after each data row (the row's JSON, a blank line, then this)");
  app.add_option("--id-field", f.id_field, "Data row field holding the row's id (after custom_id; before id and the line number)");
  app.add_option("--output-format", f.output_format, "weld (default) | openai (OpenAI Batch output lines)")
      ->check(CLI::IsMember({"weld", "openai"}));
  app.add_option("--concurrency", f.concurrency, "Rows run at once, over reused connections (default 16)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--threads", f.threads,
                 "Threads the rows' fibers run on, each with its own connection pool (default: the number of CPUs, "
                 "at most --concurrency)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--max-rps", f.max_rps, "At most R model requests started per second (default: no cap)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--shard", f.shard, "Run shard I of N (0-based), e.g. 2/8; default from JOB_COMPLETION_INDEX or "
                                     "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT");
  app.add_option("--shards", f.shards, "Number of shards, with JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs)");
  app.add_option("--summary", f.summary, "Write the summary as JSON to FILE ({shard} is replaced)");
  app.add_flag("--no-progress", f.no_progress, "No progress on stderr (the summary line is still written)");
  app.add_option("--progress-interval", f.progress_interval,
                 "Seconds between progress lines when stderr is not a terminal (a log file, a pipe; default 10)")
      ->type_name("SECONDS");
  app.add_flag("--retry-errored", f.retry_errored,
               "Run again the rows whose lines in -o FILE are errored (their lines are removed first)");
  add_telemetry_file_flag(app, f.telemetry_file);
  add_model_flags(app, f.model, f.model_text);
  add_run_limit_flags(app, f.limits, /*per_row=*/true);
  add_tool_flags(app, f.tools, /*per_row=*/true);
}

// The exit code of how the batch ended (docs/batch.md, "Exit codes"): a
// finished batch is 0 only when every row of the shard has a succeeded line
// in the file, earlier runs' lines included.
ExitCode exit_code_for(const batch::BatchOutcome& outcome, const batch::BatchProgress& progress) {
  switch (outcome.stop) {
    case batch::BatchStop::Finished:
      return progress.errored.load() + progress.earlier_errored.load() > 0 ? ExitCode::Failure : ExitCode::Success;
    case batch::BatchStop::Auth: return ExitCode::Auth;
    case batch::BatchStop::Temporary: return ExitCode::Temporary;
    case batch::BatchStop::Cancelled: return ExitCode::Cancelled;
    case batch::BatchStop::OutputError:
      return outcome.code == ErrorCode::Unavailable ? ExitCode::Temporary : ExitCode::Failure;
    case batch::BatchStop::InputError: return ExitCode::Failure;
  }
  return ExitCode::Failure;
}

// Whether two paths name one file: the same inode when both exist, else the
// same absolute path once "." and ".." and links are resolved.
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ec1, ec2;
  const auto ca = std::filesystem::weakly_canonical(a, ec1);
  const auto cb = std::filesystem::weakly_canonical(b, ec2);
  return !ec1 && !ec2 && ca == cb;
}

// A file weld writes (-o, --summary, --telemetry-file) must not be the
// input or another of them: nothing weld reads or writes is overwritten by
// accident. The message names both flags.
std::optional<std::string> clashing_files(const std::vector<std::pair<std::string, std::string>>& files) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    for (std::size_t j = i + 1; j < files.size(); ++j) {
      if (files[i].second == "-" || files[j].second == "-") continue;
      if (same_file(files[i].second, files[j].second))
        return files[j].first + " \"" + files[j].second + "\" names the same file as " + files[i].first +
               "; weld batch would overwrite it. Give it another file.";
    }
  }
  return std::nullopt;
}

// Opens the input (standard input for "-"); when it is a regular file,
// `countable` says where its lines start for the progress display. A usage
// error when standard input is redirected from the output file.
Result<int> open_input(const std::string& input, const std::string& output_path,
                       std::optional<CountableInput>& countable) {
  int input_fd = STDIN_FILENO;
  if (input != "-") {
    input_fd = ::open(input.c_str(), O_RDONLY | O_CLOEXEC);
    if (input_fd < 0)
      return Error{ErrorCode::Io, "weld batch: could not open the input \"" + input + "\": " + std::strerror(errno), ""};
  }
  // A regular file (standard input too, when redirected from one) has a
  // total the progress display can count, from where reading starts.
  if (struct stat in {}; ::fstat(input_fd, &in) == 0 && S_ISREG(in.st_mode)) {
    const off_t at = ::lseek(input_fd, 0, SEEK_CUR);
    countable = CountableInput{input_fd, at > 0 ? static_cast<std::uint64_t>(at) : 0};
  }
  if (input == "-" && output_path != "-") {
    // Standard input redirected from the output file.
    struct stat in {}, out {};
    if (::fstat(STDIN_FILENO, &in) == 0 && ::stat(output_path.c_str(), &out) == 0 && S_ISREG(in.st_mode) &&
        in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return Error{ErrorCode::Usage, "-o \"" + output_path + "\" names the same file as the input; weld batch would "
                   "overwrite it. Give it another file.", ""};
  }
  return input_fd;
}

// --progress-interval: seconds from 0.1 to 86400 (default 10).
Result<double> progress_interval(const std::optional<std::string>& flag) {
  if (!flag) return 10.0;
  const std::string& text = *flag;
  char* end = nullptr;
  const double seconds = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(seconds >= 0.1 && seconds <= 86400))
    return Error{ErrorCode::Usage, "--progress-interval must be a number of seconds from 0.1 to 86400 (got \"" + text + "\").", ""};
  return seconds;
}

// The shard and the files it writes.
struct BatchFiles {
  batch::Shard shard;
  std::string output;                  ///< -o with {shard} replaced
  std::optional<std::string> summary;  ///< --summary with {shard} replaced
};

// The shard (docs/batch.md, "Sharding: one input, many machines": the flag,
// then the scheduler's variables) and the paths it names, checked: usage
// errors when they cannot work.
Result<BatchFiles> batch_files(const BatchFlags& flags, const provider::Environment& env) {
  auto usage = [](std::string message) { return Error{ErrorCode::Usage, std::move(message), ""}; };
  Result<batch::Shard> shard = batch::choose_shard(flags.shard, flags.shards, env);
  if (!shard) return shard.error();
  BatchFiles out{*shard, batch::expand_shard(flags.output, *shard), std::nullopt};
  if (shard->count > 1 && out.output != "-" && flags.output.find("{shard}") == std::string::npos)
    return usage("with " + std::to_string(shard->count) + " shards, -o needs {shard} in its name (e.g. -o "
                 "out-{shard}.jsonl) so that the shards do not write the same file.");
  if (flags.retry_errored && out.output == "-")
    return usage("--retry-errored needs -o FILE: it runs again the rows whose lines in FILE are errored (with "
                 "-o - there is no file to read them from).");
  if (flags.summary) out.summary = batch::expand_shard(*flags.summary, *shard);
  std::vector<std::pair<std::string, std::string>> files{{"the input", flags.input}, {"-o", out.output}};
  if (out.summary) files.emplace_back("--summary", *out.summary);
  if (flags.telemetry_file) files.emplace_back("--telemetry-file", *flags.telemetry_file);
  if (auto clash = clashing_files(files)) return usage(*clash);
  return out;
}

// The flags' combinations and values, checked before the input is opened
// (usage errors: exit 1, docs/batch.md "Exit codes").
struct CheckedFlags {
  std::optional<agent::Mechanism> mechanism;
  agent::ApprovalMode approval = agent::ApprovalMode::Default;
  BatchFiles files;
  double progress_interval = 10;
};

Result<CheckedFlags> check_flags(BatchFlags& flags, const provider::Environment& env, agent::RunOptions& run) {
  auto usage = [](std::string message) { return Error{ErrorCode::Usage, std::move(message), ""}; };
  if (!flags.json_schema) return usage("--json-schema is required: every row's answer must validate against it.");
  CheckedFlags out;
  if (auto error = check_model_flags(flags.model_text, flags.model, out.mechanism)) return usage(*error);
  if (auto error = apply_run_limit_flags(flags.limits, run)) return usage(*error);
  Result<agent::ApprovalMode> approval = approval_from_flags(flags.tools);
  if (!approval) return approval.error();
  out.approval = *approval;
  Result<BatchFiles> files = batch_files(flags, env);
  if (!files) return files.error();
  out.files = std::move(*files);
  Result<double> interval = progress_interval(flags.progress_interval);
  if (!interval) return interval.error();
  out.progress_interval = *interval;
  return out;
}

int batch_command(int argc, char** argv) {
  CLI::App app{"weld batch: the run's contract for every row of a JSON Lines input", "weld batch"};
  BatchFlags flags;
  add_flags(app, flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return usage_error(parse_error_text(app, e, kRunOnlyFlags));
  }
  const provider::Environment env = provider::process_environment();
  batch::BatchOptions options;
  Result<CheckedFlags> checked = check_flags(flags, env, options.run);
  if (!checked) return usage_error(checked.error().message);
  const batch::Shard* shard = &checked->files.shard;
  const std::string& output_path = checked->files.output;
  const std::optional<std::string>& summary_path = checked->files.summary;

  // The input: refused before anything is sent when it is almost surely a
  // mistake (compressed data).
  std::optional<CountableInput> countable;
  Result<int> opened = open_input(flags.input, output_path, countable);
  if (!opened) return opened.error().code == ErrorCode::Usage ? usage_error(opened.error().message)
                                                              : fail(1, opened.error().message);
  const int input_fd = *opened;
  batch::LineReader lines(batch::fd_source(input_fd));
  {
    Result<std::string_view> start = lines.peek_start();
    if (!start) return fail(1, "weld batch: " + start.error().message);
    if (Status plain = batch::check_input_start(*start, flags.input); !plain) return usage_error(plain.error().message);
  }

  // The schema, compiled once for the whole batch (docs/schema.md: exit 52),
  // settings, tools (none unless asked: rows are data, docs/batch.md "Each
  // row is a run") and the mechanism, as the run sets them up.
  RunSetup setup(write_stderr);
  if (SetupStep failed = setup.load_schema(flags.json_schema, flags.limits.no_strict))
    return fail(failed->code, failed->message);
  const bool tools_asked = flags.tools.tools_asked();
  if (SetupStep failed = setup.load_tools(flags.tools, checked->approval, tools_asked)) return fail(failed->code, failed->message);
  if (SetupStep failed = setup.choose_mechanism(checked->mechanism)) return fail(failed->code, failed->message);

  // The workers: one model each, behind one request gate, on fiber loops
  // unless built-in tools were asked for (a tool may block).
  batch::WorkerOptions worker_options;
  worker_options.concurrency = flags.concurrency;
  worker_options.threads = flags.threads;
  worker_options.max_rps = flags.max_rps;
  worker_options.fibers = !tools_asked;
  Result<batch::Workers> workers = batch::make_workers(flags.model, env, worker_options, sample::offline_model_factory(flags.model.seed));
  if (!workers) return fail(agent::model_choice_exit_code(workers.error()), workers.error().message);
  const ModelChoice& first = workers->first;
  batch::RequestGate& gate = *workers->gate;
  std::vector<std::unique_ptr<provider::Model>>& models = workers->models;
  std::vector<batch::FiberLoop*>& loop_list = workers->loop_list;
  setup.report_model(first);

  options.input.id_field = flags.id_field.value_or("");
  options.input.prompt = flags.prompt.value_or("");
  options.input.names = kFlagNames;
  options.format = *batch::parse_output_format(flags.output_format);
  options.shard = *shard;
  setup.fill_options(first, options.run);
  options.run.system_prompt = flags.tools.joined_system_prompt();
  options.input.schema = &setup.schema()->source;
  options.warn = [](const std::string& text) { write_stderr("weld batch: warning: " + text + "\n"); };
  options.run.session_id = agent::new_session_id();
  for (const auto& tool : setup.selection().tools) options.tools.push_back(tool.get());

  // Resume (docs/batch.md, "Resume"): -o FILE is locked, checked to be
  // this batch's result file, and the rows it answers are skipped.
  batch::IdSet ids;
  batch::ResumeScan scan;
  Result<std::unique_ptr<batch::ResultWriter>> writer = batch::ResultWriter::open(
      output_path, {.format = options.format, .retry_errored = flags.retry_errored, .names = kFlagNames}, ids, scan);
  if (!writer) {
    const ErrorCode code = writer.error().code;
    return fail(code == ErrorCode::Unavailable ? 75 : code == ErrorCode::Config ? 52 : 1,
                "weld batch: " + writer.error().message);
  }
  if (scan.lines > 0 || scan.torn_bytes > 0 || scan.removed_errored > 0) write_stderr(resume_note(output_path, scan));

  batch::BatchProgress progress;
  BatchSummaryInfo info;
  info.shard = *shard;
  const Clock::time_point started = Clock::now();
  auto finish = [&](int exit_code) {
    info.wall = Clock::now() - started;
    info.pauses = gate.pauses();
    info.exit_code = exit_code;
    write_stderr(batch_summary_line(progress, info));
    if (summary_path) {
      std::ofstream out(*summary_path, std::ios::trunc);
      out << batch_summary_json(progress, info);
      out.flush();
      if (!out) write_stderr("weld batch: warning: could not write the summary to \"" + *summary_path + "\"\n");
    }
    return exit_code;
  };

  // SIGINT/SIGTERM: rows in flight are cancelled (no line: the rerun does
  // them); every line already finished is flushed before exit 130.
  provider::CancelToken cancel;
  SignalGuard signals(cancel, [&] {
    (void)(*writer)->flush();
    write_stderr("Operation cancelled.\n");
    std::_Exit(finish(130));
  });

  // Telemetry (docs/telemetry.md): one `weld batch` span (under TRACEPARENT), each
  // row's run a child of it. After the SignalGuard, which must see no other
  // thread. A cancelled batch exits at once and exports nothing more.
  telemetry::Telemetry* telemetry = setup.start_telemetry(flags.telemetry_file, telemetry::Config::Sender::AtStart);
  const telemetry::SpanContext trace_parent = traceparent_from_environment();
  telemetry::Span batch_span =
      telemetry::start_span(telemetry, "weld batch", telemetry::SpanKind::Internal, &trace_parent);
  batch_span.set("weld.batch.shard", std::to_string(shard->index) + "/" + std::to_string(shard->count));
  batch_span.set("weld.batch.concurrency", std::int64_t{flags.concurrency});
  options.run.telemetry = telemetry;
  options.run.trace_parent = batch_span.context();

  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  batch::BatchOutcome outcome;
  {
    std::optional<ProgressDisplay> display;
    if (!flags.no_progress)
      display.emplace(progress, terminal,
                      std::chrono::milliseconds(static_cast<std::int64_t>(checked->progress_interval * 1000)), countable);
    outcome = batch::run_batch(lines, **writer, ids, options, models, progress, cancel, loop_list);
  }
  signals.run_ended();
  if (input_fd != STDIN_FILENO) ::close(input_fd);
  const int exit_code = exit_code_for(outcome, progress);
  batch_span.set("weld.batch.rows_succeeded", static_cast<std::int64_t>(progress.succeeded.load()));
  batch_span.set("weld.batch.rows_errored", static_cast<std::int64_t>(progress.errored.load()));
  batch_span.set("weld.exit_code", std::int64_t{exit_code});
  if (exit_code != 0) batch_span.set_error("exit_" + std::to_string(exit_code));
  batch_span.end();
  // Every span has ended: the background sender stops now; finish_telemetry
  // sends the rest.
  setup.end_telemetry_spans();
  write_stderr(ending_text(outcome, progress, output_path, flags.input));
  setup.finish_telemetry();
  return finish(exit_code);
}

}  // namespace

int batch_main(int argc, char** argv) {
  // A closed output pipe must end in a write error, not a silent SIGPIPE death.
  ::signal(SIGPIPE, SIG_IGN);
  try {
    return batch_command(argc, argv);
  } catch (const std::exception& e) {
    return fail(1, std::string("weld batch: internal error: ") + e.what());
  }
}

}  // namespace weld::cli
