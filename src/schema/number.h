#pragma once
/// \file
/// Exact decimal arithmetic for `multipleOf` (`multipleOf: 0.01`
/// must accept 0.07, docs/schema.md "What validates"): both numbers are taken in their shortest round-trip
/// decimal form, as written, and divided exactly.

#include "weld/json/value.h"

namespace weld::schema {

/// True when `value` is an integer multiple of `divisor` (> 0), exactly, on
/// the decimal forms.
bool is_multiple_of(const json::Value& value, const json::Value& divisor);

}  // namespace weld::schema
