#pragma once
/// \file
/// Integer-valued reals at integer-typed positions written as integers
/// (Schema::write_integers).

#include "program.h"

namespace weld::schema {

/// Rewrites, in `instance` (valid against `program`), every integral double
/// that an applying subschema types as `integer` into an integer of the
/// same value.
void write_integers(const Program& program, json::Value& instance);

}  // namespace weld::schema
