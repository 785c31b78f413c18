// One mutex per name for the whole process, shared by the executable and every dlopen()ed module.
//
// pcglab_core is a shared library, so a mutex kept here is a single object even for code that is
// compiled into several libtorch modules (each module has its own copy of its static variables).
// The libtorch modules use it to serialise their use of libtorch's process-global random number
// generator (nn/torch/global_rng.h); any other state shared across modules can do the same.
#pragma once

#include <mutex>
#include <string_view>

namespace pcglab {

// The process-wide mutex named `name` (created on first use, never destroyed).
std::mutex& named_mutex(std::string_view name);

}  // namespace pcglab
