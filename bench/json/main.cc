// weld_json_bench: parse and serialize of the documents in documents.cc with
// weld::json, nlohmann-json and simdjson (DOM) side by side in one run, then a
// summary table of ns and allocations per document and the ratios.
//
//   weld_json_bench [--benchmark_filter=...] [--benchmark_repetitions=N]
//   weld_json_bench --profile IMPL OP DOC N   (for callgrind.sh: runs OP on
//       DOC N times inside profile_loop() and prints allocations per document)
//
// Before timing, every implementation's digest of every document is checked
// against simdjson's (the reference; nlohmann's when built without simdjson);
// a mismatch stops the run.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "documents.h"
#include "impl.h"

namespace weld::bench {

std::string to_string(const Digest& d) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer,
                "null=%llu bool=%llu/%llu num=%llu str=%llu/%llub arr=%llu/%llu obj=%llu/%llu keys=%llub",
                (unsigned long long)d.nulls, (unsigned long long)d.booleans, (unsigned long long)d.trues,
                (unsigned long long)d.numbers, (unsigned long long)d.strings, (unsigned long long)d.string_bytes,
                (unsigned long long)d.arrays, (unsigned long long)d.elements, (unsigned long long)d.objects,
                (unsigned long long)d.members, (unsigned long long)d.key_bytes);
  return buffer;
}

namespace {

#ifdef WELD_BENCH_HAVE_SIMDJSON
const Impl* const kImpls[] = {&weld_impl(), &nlohmann_impl(), &simdjson_impl()};
// The digest every implementation must match.
const Impl& reference_impl() { return simdjson_impl(); }
#else
const Impl* const kImpls[] = {&weld_impl(), &nlohmann_impl()};
const Impl& reference_impl() { return nlohmann_impl(); }
#endif
constexpr const char* kOps[] = {"parse", "serialize"};

const Impl* find_impl(std::string_view name) {
  for (const Impl* impl : kImpls) {
    if (impl->name == name) return impl;
  }
  return nullptr;
}

bool check_digests(const std::vector<Document>& docs) {
  bool ok = true;
  for (const Document& doc : docs) {
    for (const std::string& text : doc.texts) {
      Digest reference = reference_impl().digest(text);
      for (const Impl* impl : kImpls) {
        Digest got = impl->digest(text);
        if (!(got == reference)) {
          std::fprintf(stderr, "digest mismatch on %s for %.*s:\n  %.*s %s\n  %.*s %s\n", doc.name.c_str(),
                       (int)impl->name.size(), impl->name.data(), (int)reference_impl().name.size(),
                       reference_impl().name.data(), to_string(reference).c_str(),
                       (int)impl->name.size(), impl->name.data(), to_string(got).c_str());
          ok = false;
        }
      }
    }
  }
  return ok;
}

// What one benchmark measured, per document.
struct Figure {
  double ns = 0;
  double allocations = 0;
};
using FigureKey = std::string;  // "op/doc/impl"

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  explicit SummaryReporter(std::map<FigureKey, Figure>& figures) : figures_(figures) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
      if (run.run_type == Run::RT_Aggregate && !median) continue;
      std::string name = run.run_name.function_name;
      auto docs = run.counters.find("docs");
      auto allocations = run.counters.find("allocs/doc");
      double per = docs != run.counters.end() ? docs->second.value : 1;
      Figure figure;
      figure.ns = run.GetAdjustedCPUTime() / per;  // time unit is ns
      figure.allocations = allocations != run.counters.end() ? allocations->second.value : 0;
      if (median || figures_.count(name) == 0 || !has_median_[name]) figures_[name] = figure;
      if (median) has_median_[name] = true;
    }
    ConsoleReporter::ReportRuns(runs);
  }

 private:
  std::map<FigureKey, Figure>& figures_;
  std::map<FigureKey, bool> has_median_;
};

void register_benchmarks(const std::vector<Document>& docs) {
  for (const Document& doc : docs) {
    for (const char* op : kOps) {
      for (const Impl* impl : kImpls) {
        std::string name = std::string(op) + "/" + doc.name + "/" + std::string(impl->name);
        const bool serialize = std::strcmp(op, "serialize") == 0;
        benchmark::RegisterBenchmark(name.c_str(), [&doc, impl, serialize](benchmark::State& state) {
          std::unique_ptr<ParsedSet> parsed;
          if (serialize) parsed = impl->parse_keep(doc.texts);
          std::uint64_t before = allocation_count();
          for (auto _ : state) {
            std::size_t n = serialize ? parsed->serialize_all() : impl->parse_all(doc.texts);
            benchmark::DoNotOptimize(n);
          }
          std::uint64_t allocations = allocation_count() - before;
          const double docs_done = static_cast<double>(state.iterations()) * doc.texts.size();
          state.counters["docs"] = static_cast<double>(doc.texts.size());
          state.counters["allocs/doc"] = static_cast<double>(allocations) / docs_done;
          state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * doc.bytes));
        })->Unit(benchmark::kNanosecond);
      }
    }
  }
}

void print_summary(const std::vector<Document>& docs, const std::map<FigureKey, Figure>& figures) {
  std::printf("\nPer document (CPU ns; allocations = operator new calls):\n");
  std::printf("%-10s %-16s %8s %10s %10s %10s %8s %8s %8s %8s %8s\n", "op", "document", "bytes", "weld_ns",
              "nlohm_ns", "simd_ns", "w/nlohm", "w/simd", "w_alloc", "n_alloc", "s_alloc");
  for (const char* op : kOps) {
    for (const Document& doc : docs) {
      auto get = [&](const char* impl) {
        auto it = figures.find(std::string(op) + "/" + doc.name + "/" + impl);
        return it == figures.end() ? Figure{-1, -1} : it->second;
      };
      Figure w = get("weld"), n = get("nlohmann"), s = get("simdjson");
      if (w.ns < 0) continue;
      std::printf("%-10s %-16s %8zu %10.0f %10.0f %10.0f %8.2f %8.2f %8.1f %8.1f %8.1f\n", op, doc.name.c_str(),
                  doc.bytes / doc.texts.size(), w.ns, n.ns, s.ns, n.ns > 0 ? w.ns / n.ns : 0,
                  s.ns > 0 ? w.ns / s.ns : 0, w.allocations, n.allocations, s.allocations);
    }
  }
}

// The region callgrind.sh counts (--toggle-collect=*profile_loop*).
[[gnu::noinline]] std::size_t profile_loop(const Impl& impl, const Document& doc, ParsedSet* parsed, long n) {
  std::size_t total = 0;
  for (long i = 0; i < n; ++i) total += parsed != nullptr ? parsed->serialize_all() : impl.parse_all(doc.texts);
  return total;
}

int profile(int argc, char** argv, const std::vector<Document>& docs) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: weld_json_bench --profile IMPL parse|serialize DOC N\n");
    return 2;
  }
  const Impl* impl = find_impl(argv[2]);
  const std::string op = argv[3];
  const Document* doc = nullptr;
  for (const Document& d : docs) {
    if (d.name == argv[4]) doc = &d;
  }
  long n = std::atol(argv[5]);
  if (impl == nullptr || doc == nullptr || (op != "parse" && op != "serialize") || n <= 0) {
    std::fprintf(stderr, "weld_json_bench: unknown implementation, operation or document\n");
    return 2;
  }
  std::unique_ptr<ParsedSet> parsed;
  if (op == "serialize") parsed = impl->parse_keep(doc->texts);
  std::uint64_t before = allocation_count();
  std::size_t total = profile_loop(*impl, *doc, parsed.get(), n);
  std::uint64_t allocations = allocation_count() - before;
  const double per = static_cast<double>(n) * doc->texts.size();
  std::printf("documents %.0f result %zu allocations/doc %.2f\n", per, total, allocations / per);
  return 0;
}

}  // namespace
}  // namespace weld::bench

int main(int argc, char** argv) {
  using namespace weld::bench;  // NOLINT: main only
  std::vector<Document> docs = load_documents();
  if (argc > 1 && std::strcmp(argv[1], "--profile") == 0) return profile(argc, argv, docs);
  if (!check_digests(docs)) return 1;
  for (const Document& doc : docs) {
    std::printf("%-16s %3zu doc(s), %8zu bytes: %s\n", doc.name.c_str(), doc.texts.size(), doc.bytes,
                doc.about.c_str());
  }
  register_benchmarks(docs);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::map<FigureKey, Figure> figures;
  SummaryReporter reporter(figures);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  print_summary(docs, figures);
  return 0;
}
