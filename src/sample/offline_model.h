#pragma once
/// \file
/// The offline model (`--provider offline`, docs/run.md): a stand-in for a
/// language model that needs no network. It answers a request that offers
/// `structured_output` by calling it with an instance sampled from that
/// tool's parameters schema, deterministic for a seed; after an error tool
/// result it samples again with the next index. Without that tool it answers
/// with a short text saying what it is. The caller labels it on stderr.
///
/// \code
///   weld::sample::OfflineModel model(/*seed=*/7);
///   weld::provider::CancelToken cancel;
///   auto response = model.complete(request, {}, cancel);
///   // response->message.tool_calls[0].name == "structured_output"
/// \endcode

#include <cstdint>
#include <string>

#include "weld/base/setting_names.h"
#include "weld/provider/config.h"
#include "weld/provider/model.h"

namespace weld::sample {

/// The text the offline model answers with when no `structured_output` tool
/// is offered, with the settings named as `names` says: "This is weld's
/// offline model (--provider offline). It is not a language model: it only
/// answers --json-schema runs, with an instance sampled from the schema."
/// (the CLI).
std::string offline_text(const SettingNames& names);

/// A `weld::provider::Model` backed by the sampler. Stateless between calls:
/// the attempt number is read from the conversation, so one instance may
/// serve many runs.
class OfflineModel : public provider::Model {
 public:
  /// `seed` is `--seed` (0 when not given); `names` name the settings in
  /// its plain-text answer.
  explicit OfflineModel(std::uint64_t seed = 0, const SettingNames& names = {}) : seed_(seed), names_(names) {}

  /// Error codes: "cancelled" when `cancel` is set; "offline" when the
  /// schema cannot be sampled (message `offline model: could not sample a
  /// valid instance: …`).
  Result<provider::Response> complete(const provider::Request& request, const provider::StreamObserver& observer,
                                      provider::CancelToken& cancel) override;

  /// "offline".
  std::string provider_name() const override { return "offline"; }

 private:
  std::uint64_t seed_;
  SettingNames names_;
};

/// Makes the offline model for `make_model`'s hook (provider "offline"),
/// with `seed` and the configuration's setting names.
provider::ModelFactory offline_model_factory(std::uint64_t seed);

}  // namespace weld::sample
