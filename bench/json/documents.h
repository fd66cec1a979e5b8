#pragma once
// The documents the bench parses and serializes (see documents.cc).
#include <string>
#include <vector>

#include "impl.h"

namespace weld::bench {

struct Document {
  std::string name;   ///< short label used in benchmark names
  std::string about;  ///< where it comes from
  Texts texts;        ///< one or more JSON texts (a dataset's instances)
  std::size_t bytes = 0;
};

/// Loads every document; exits with a message when a file is missing.
std::vector<Document> load_documents();

}  // namespace weld::bench
