#pragma once
/// \file
/// The one per-thread random engine of weld, for what needs unpredictable
/// but not secret numbers (retry jitter, the batch's request ids).
///
/// \code
///   double jitter = std::uniform_real_distribution<double>(0.0, 1.0)(weld::thread_random());
/// \endcode

#include <random>

namespace weld {

/// This thread's engine, seeded from `std::random_device` on its first use
/// (one seeding per thread, never per call: a `std::random_device` per
/// request cost weld batch 14% of its CPU, docs/bench-batch.md). The
/// engine's 2.5 KB state is on the heap and the thread-local storage holds a
/// pointer: a shared object holding weld (the Python module of the wheel,
/// docs/install.md "pip") gets its thread-locals from the C library's small
/// static reserve when loaded, and fails to load past it.
std::mt19937_64& thread_random();

}  // namespace weld
