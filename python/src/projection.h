#pragma once
// What of an instance a schema can read (docs/python.md, "Reading Python
// objects"). A Python instance is written into a json::Tape before it is
// validated; the members of an object that no keyword of the schema can look
// at need not be written, only checked to be JSON (the whole instance is
// still read: a NaN there is still an error). A schema that checks a key or
// two of a large dict then costs a check of the rest, not its conversion.

#include <string>
#include <vector>

#include "weld/json/value.h"
#include "weld/schema/schema.h"

namespace weld::python {

/// The part of the instance at one place that the schema can read. `all`:
/// everything below (the safe answer, and the only one for arrays and
/// scalars). Otherwise, when the value there is an object, only the members
/// in `members` (each with what is read of its value); the others are never
/// looked at, nor is the object's member count.
struct Projection {
  struct Member;
  bool all = true;
  std::vector<Member> members;

  /// What is read of member `key` (nullptr: nothing, not even that it is
  /// there). Only when `all` is false.
  const Projection* member(std::string_view key) const;
};

struct Projection::Member {
  std::string key;
  Projection value;
};

/// The projection of `schema`, computed from its document conservatively:
/// an object's members are left out only under keywords known to read
/// nothing but the members they name (properties, required, dependent*,
/// the in-place applicators and "#…" $refs, annotations, keywords of
/// scalars and arrays). Anything else — additionalProperties,
/// patternProperties, enum, const, a keyword weld does not know, a $ref
/// elsewhere, a dialect other than the five drafts — reads it all.
Projection projection_of(const schema::Schema& schema);

}  // namespace weld::python
