// Inference on the calling thread only. pcglab spreads images over its own thread pool (the
// caller's --threads); if each of those threads also opened an OpenMP team for libtorch's
// intra-op parallelism, 2 pool threads would run 4 busy threads on 2 cores (measured: 2-3x
// slower). A CallerThreadOnly guard sets the calling thread's OpenMP thread count to 1 for the
// duration of one entry-point call and restores it afterwards (OpenMP's setting is per thread,
// so other threads, and training, keep theirs).
#pragma once

#include <ATen/Parallel.h>
#include <omp.h>

namespace pcglab::nn::torch_detail {

class CallerThreadOnly {
 public:
  CallerThreadOnly() {
    at::internal::lazy_init_num_threads();  // else libtorch's first parallel call would reset it
    saved_ = omp_get_max_threads();
    omp_set_num_threads(1);
  }
  ~CallerThreadOnly() { omp_set_num_threads(saved_); }
  CallerThreadOnly(const CallerThreadOnly&) = delete;
  CallerThreadOnly& operator=(const CallerThreadOnly&) = delete;

 private:
  int saved_ = 1;
};

}  // namespace pcglab::nn::torch_detail
