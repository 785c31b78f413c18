// Entry points of libpcglab_torch.so are `extern "C" PCGLAB_TORCH_EXPORT`; everything else in
// the module is hidden (the module is built with -fvisibility=hidden).
#pragma once
#define PCGLAB_TORCH_EXPORT __attribute__((visibility("default")))
