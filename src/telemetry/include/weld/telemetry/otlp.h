#pragma once
/// \file
/// OTLP request bodies (opentelemetry-proto v1: ExportTraceServiceRequest and
/// ExportMetricsServiceRequest) in both encodings of OTLP/HTTP: binary
/// protobuf (hand-encoded: the messages are small and fixed, and Debian
/// ships no opentelemetry-proto) and JSON (the OTLP JSON mapping: hex ids,
/// lowerCamelCase fields, 64-bit integers as strings, enums as numbers).
///
/// \code
///   std::string body = weld::telemetry::encode_traces(spans, config.resource, Protocol::HttpProtobuf);
/// \endcode

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "weld/telemetry/config.h"
#include "weld/telemetry/metrics.h"
#include "weld/telemetry/span.h"

namespace weld::telemetry {

/// The instrumentation scope name of everything weld exports.
inline constexpr std::string_view kScopeName = "weld";

/// An ExportTraceServiceRequest holding `spans` under one resource.
/// `storage`: a previous body whose allocation the binary encoding writes
/// over (the exporter's, so that a steady stream of exports allocates none).
std::string encode_traces(std::span<const SpanData> spans, const Attributes& resource, Protocol protocol,
                          std::string_view scope_version, std::string storage = {});
/// The same for spans held elsewhere (the exporter's queue holds pointers).
std::string encode_traces(std::span<const SpanData* const> spans, const Attributes& resource, Protocol protocol,
                          std::string_view scope_version, std::string storage = {});

/// Appends `span` to `out` as the binary protobuf a ScopeSpans' `spans`
/// field holds (tag, length, Span message): what the exporter keeps of a
/// span that ends when traces go out as protobuf only, so that the thread
/// that ended it encodes it and frees its record.
void append_span_field(const SpanData& span, std::string& out);
/// A binary protobuf ExportTraceServiceRequest holding spans already
/// encoded by `append_span_field`, one after another in `span_fields`: the
/// same bytes `encode_traces` writes for those spans.
std::string encode_traces_proto(std::string_view span_fields, const Attributes& resource,
                                std::string_view scope_version, std::string storage = {});

/// An ExportMetricsServiceRequest holding `snapshot` (cumulative temporality).
std::string encode_metrics(const MetricsSnapshot& snapshot, const Attributes& resource, Protocol protocol,
                           std::string_view scope_version);

/// The Content-Type header value for `protocol`.
std::string_view content_type(Protocol protocol);

}  // namespace weld::telemetry
