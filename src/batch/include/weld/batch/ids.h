#pragma once
/// \file
/// Row ids as 128-bit keys (at most 48 bytes per row for the ids seen:
/// docs/batch.md, "Resume"): the set that catches repeated ids and remembers the rows an
/// earlier run already answered, and the stable hash that picks a row's
/// shard. The hash is XXH3-128, whose output is fixed by its specification,
/// so the same id lands in the same shard on every machine and version.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace weld::batch {

/// A row's key: the XXH3-128 hash of its id.
struct RowKey {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  friend bool operator==(const RowKey&, const RowKey&) = default;
};

/// The key of a row id.
RowKey key_of_id(std::string_view id);

/// The key of a row that has no id of its own, named by its (1-based) line:
/// no id can have it (see key_of_duplicate).
RowKey key_of_line(std::uint64_t line);

/// The key of "line N repeats an earlier id" (its errored result line is
/// recorded under this key, since its id belongs to the earlier line).
RowKey key_of_duplicate(std::uint64_t line);

/// Which of `count` shards a key belongs to (0-based): the key's high 64
/// bits scaled to [0, count) — uniform, and independent of the other rows.
std::uint32_t shard_of(const RowKey& key, std::uint32_t count);

/// What the output file already holds for a row.
enum class Done : unsigned char {
  No,         ///< no result line: the row is to run
  Succeeded,  ///< a succeeded line
  Errored,    ///< an errored line
};

/// A set of row keys with marks: `seen` (the id occurred earlier in this
/// input) and `done` (an earlier run wrote its result line, succeeded or
/// errored). Open addressing over 16-byte slots, grown by half at 7/8 load:
/// 16–28 bytes per key, and 2.5× the old table's bytes while growing (three
/// bits of the 128 are the marks, leaving 125 bits against collisions). The table is mapped
/// from the system, not taken from the allocator, so an outgrown table goes
/// back to the system at once instead of staying in the process's heap.
class IdSet {
 public:
  IdSet();
  ~IdSet();
  IdSet(const IdSet&) = delete;
  IdSet& operator=(const IdSet&) = delete;

  /// Marks `key` done (resume) by a succeeded or an errored line; a later
  /// mark replaces an earlier one. Returns false when it already was done.
  bool mark_done(const RowKey& key, bool errored = false);
  /// Whether `key` is marked done.
  bool is_done(const RowKey& key) const { return done(key) != Done::No; }
  /// How `key` is marked done.
  Done done(const RowKey& key) const;
  /// Marks `key` seen. Returns false when it already was (a repeated id).
  bool mark_seen(const RowKey& key);

  /// Keys held.
  std::size_t size() const { return size_; }
  /// Bytes of the table (for the memory figures in docs/bench-batch.md).
  std::size_t bytes() const { return capacity_ * sizeof(RowKey); }

 private:
  static constexpr std::uint64_t kSeen = 1;
  static constexpr std::uint64_t kDone = 2;
  static constexpr std::uint64_t kErrored = 4;
  static constexpr std::uint64_t kMarks = 7;

  // The slot holding `key` (marks ignored), or the empty slot where it goes.
  std::size_t find(const RowKey& key) const;
  // Adds `mark` to `key`; returns false when the mark was already there.
  bool mark(const RowKey& key, std::uint64_t mark);
  void grow();

  RowKey* slots_ = nullptr;  // capacity_ slots; empty slot: low == 0 (no marks) and high == 0
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
};

}  // namespace weld::batch
