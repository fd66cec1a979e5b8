// Row keys, the id set and shard choice (docs/batch.md, "Ids and line numbers"). See ids.h.

#include "weld/batch/ids.h"

#include <sys/mman.h>
#include <xxhash.h>

#include <new>
#include <string>

namespace weld::batch {

RowKey key_of_id(std::string_view id) {
  XXH128_hash_t hash = XXH3_128bits(id.data(), id.size());
  return RowKey{hash.low64, hash.high64};
}

RowKey key_of_line(std::uint64_t line) {
  std::string text = std::string("\0line:", 6) + std::to_string(line);
  return key_of_id(text);
}

RowKey key_of_duplicate(std::uint64_t line) {
  // A prefix no id can collide with by accident: ids are text, this starts
  // with a NUL byte.
  std::string text = std::string("\0duplicate-line:", 16) + std::to_string(line);
  return key_of_id(text);
}

std::uint32_t shard_of(const RowKey& key, std::uint32_t count) {
  return static_cast<std::uint32_t>((static_cast<unsigned __int128>(key.high) * count) >> 64);
}

namespace {

// `count` zeroed slots, mapped (the kernel's zero pages: nothing to clear).
RowKey* map_slots(std::size_t count) {
  void* memory = ::mmap(nullptr, count * sizeof(RowKey), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  return static_cast<RowKey*>(memory);
}

void unmap_slots(RowKey* slots, std::size_t count) {
  if (slots != nullptr) ::munmap(slots, count * sizeof(RowKey));
}

}  // namespace

IdSet::IdSet() : slots_(map_slots(1024)), capacity_(1024) {}

IdSet::~IdSet() { unmap_slots(slots_, capacity_); }

std::size_t IdSet::find(const RowKey& key) const {
  const std::size_t size = capacity_;
  const std::uint64_t low = key.low & ~kMarks;
  // The home slot: the key's low 64 bits scaled to [0, size) (the table's
  // size is not a power of two).
  std::size_t index = static_cast<std::size_t>((static_cast<unsigned __int128>(low) * size) >> 64);
  for (;;) {
    const RowKey& slot = slots_[index];
    if ((slot.low & kMarks) == 0) return index;  // empty
    if ((slot.low & ~kMarks) == low && slot.high == key.high) return index;
    if (++index == size) index = 0;
  }
}

bool IdSet::mark(const RowKey& key, std::uint64_t mark) {
  std::size_t index = find(key);
  RowKey& slot = slots_[index];
  if ((slot.low & kMarks) == 0) {
    if ((size_ + 1) * 8 > capacity_ * 7) {
      grow();
      return this->mark(key, mark);
    }
    slot = RowKey{(key.low & ~kMarks) | mark, key.high};
    ++size_;
    return true;
  }
  if ((slot.low & mark) != 0) return false;
  slot.low |= mark;
  return true;
}

void IdSet::grow() {
  // 1.5×, not 2×: the old and the new table are both held while the keys
  // move, so this is the run's peak (the bound on the ids seen, docs/batch.md "Resume").
  RowKey* old = slots_;
  const std::size_t old_capacity = capacity_;
  slots_ = map_slots(old_capacity + old_capacity / 2);
  capacity_ = old_capacity + old_capacity / 2;
  for (std::size_t i = 0; i < old_capacity; ++i) {
    if ((old[i].low & kMarks) == 0) continue;
    slots_[find(old[i])] = old[i];
  }
  unmap_slots(old, old_capacity);
}

bool IdSet::mark_done(const RowKey& key, bool errored) {
  const bool first = mark(key, kDone);
  RowKey& slot = slots_[find(key)];
  slot.low = errored ? slot.low | kErrored : slot.low & ~kErrored;
  return first;
}

bool IdSet::mark_seen(const RowKey& key) { return mark(key, kSeen); }

Done IdSet::done(const RowKey& key) const {
  const RowKey& slot = slots_[find(key)];
  if ((slot.low & kDone) == 0) return Done::No;
  return (slot.low & kErrored) != 0 ? Done::Errored : Done::Succeeded;
}

}  // namespace weld::batch
