#!/usr/bin/env bash
# The CUDA path of the libtorch modules on a machine that has a GPU and a PyTorch with CUDA but none
# of pcglab's Debian packages (the device machines of docs/PERFORMANCE.md, "PPO training on a GPU").
#
#   bash scripts/gpu-bench.sh pack            # here (Debian 12, after `make build`): .gpu/ holds the
#                                             # release pcglab and the shared libraries it needs
#   bash scripts/gpu-bench.sh device [OUTDIR] # there, from the repository root with .gpu/ beside it:
#                                             # builds libpcglab_{pcgrl_,}torch.so against python3's
#                                             # torch (CUDA), checks CPU and CUDA agree, times PPO
#
# The executable and libpcglab_core.so are the ones built here; only the modules, which talk to
# pcglab through plain C tables (nn/torch/abi.h), are compiled there, against that PyTorch.
set -uo pipefail
mode=${1:-}
root=$(cd "$(dirname "$0")/.." && pwd)
gpu=$root/.gpu

pack() {
  local build=${BUILD:-$root/build/release}
  rm -rf "$gpu/bin" "$gpu/lib" && mkdir -p "$gpu/bin" "$gpu/lib"
  cp "$build/pcglab" "$gpu/bin/"
  cp "$build/src/libpcglab_core.so" "$gpu/lib/"
  # Every library the executable needs except the C and C++ run-times, which the other machine has
  # (newer: they are backward compatible) and which its PyTorch needs in their newer versions.
  ldd "$build/pcglab" | awk '/=> \//{print $1, $3}' | while read -r name path; do
    case $name in
      libc.so.* | libm.so.* | libstdc++.so.* | libgcc_s.so.* | libpthread.so.* | libdl.so.* | librt.so.* | \
        libresolv.so.* | libpcglab_core.so) ;;
      *) cp -L "$path" "$gpu/lib/$name" ;;
    esac
  done
  du -sh "$gpu"
}

device() {
  local out=${1:-${OUT:-$root/.gpu/out}}
  mkdir -p "$out"
  local torch abi cxx
  torch=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))') || exit 2
  abi=$(python3 -c 'import torch; print(int(torch.compiled_with_cxx11_abi()))')
  cxx=$(command -v g++ || command -v c++ || command -v clang++)
  echo "== machine"
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "cxx11 abi", torch.compiled_with_cxx11_abi())'
  echo "compiler: $cxx ($($cxx -dumpversion)); $(ldd --version | head -1); cores $(nproc)"
  echo "== build the modules against $torch"
  # The rollout's evaluation runs as one CUDA graph (-DPCGLAB_CUDA_GRAPH) where the CUDA runtime's
  # headers are found (NO_GRAPH=1: without it).
  local cuda_inc=""
  for d in "${CUDA_HOME:-}" "$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /x/x)")")" /usr/local/cuda; do
    [ -n "$d" ] && [ -f "$d/include/cuda_runtime_api.h" ] && cuda_inc=$d/include && break
  done
  local graph_flags=()
  if [ -n "$cuda_inc" ] && [ -z "${NO_GRAPH:-}" ]; then
    graph_flags=(-I"$cuda_inc" -DPCGLAB_CUDA_GRAPH=1)
  else
    echo "the rollout's evaluation runs without a CUDA graph (NO_GRAPH set or no cuda_runtime_api.h)"
  fi
  local flags=(-O2 -std=c++20 -fPIC -shared -fvisibility=hidden -fvisibility-inlines-hidden
    "-D_GLIBCXX_USE_CXX11_ABI=$abi" -DPCGLAB_TORCH_CUDA=1 -I"$root/src"
    -I"$torch/include" -I"$torch/include/torch/csrc/api/include" "${graph_flags[@]}")
  # --no-as-needed: nothing calls libtorch_cuda by name, but loading it registers the CUDA backend.
  local libs=(-L"$torch/lib" -Wl,--no-as-needed -ltorch -ltorch_cuda -ltorch_cpu -lc10_cuda -lc10
    -Wl,--as-needed -Wl,-rpath,"$torch/lib" -L"$gpu/lib" -lpcglab_core)
  local t0=$SECONDS
  "$cxx" "${flags[@]}" "$root"/src/pcgrl/torch/*.cc -o "$gpu/bin/libpcglab_pcgrl_torch.so" "${libs[@]}" \
    >/tmp/build_pcgrl.log 2>&1 &
  local p1=$!
  "$cxx" "${flags[@]}" "$root"/src/nn/torch/*.cc -o "$gpu/bin/libpcglab_torch.so" "${libs[@]}" \
    >/tmp/build_nn.log 2>&1 &
  local p2=$!
  local ok=1
  wait $p1 || { ok=0; echo "pcgrl module FAILED:"; head -c 6000 /tmp/build_pcgrl.log; }
  wait $p2 || { echo "nn module FAILED:"; head -c 3000 /tmp/build_nn.log; }
  echo "modules built in $((SECONDS - t0)) s"
  [ $ok = 1 ] || exit 1
  export LD_LIBRARY_PATH=$gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  local pcglab=$gpu/bin/pcglab
  local missing
  missing=$(ldd "$pcglab" "$gpu/bin/libpcglab_pcgrl_torch.so" | grep 'not found')
  [ -z "$missing" ] || { echo "missing libraries: $missing"; exit 1; }
  "$pcglab" --version
  run() { # label, then the bench's options
    local label=$1
    shift
    echo "== $label: pcglab bench pcgrl-ppo $*"
    echo "== $label: $*" >>"$out/runs.txt"
    timeout "${LIMIT:-240}" "$pcglab" bench pcgrl-ppo --format csv "$@" 2>&1 | tee -a "$out/runs.txt" | tail -n 3
  }
  # Agreement first: one update of 16 environments on both devices from the same seed.
  run agree_cpu --envs 16 --updates 1 --device cpu --first-layers dense --train-threads 8
  run agree_cuda --envs 16 --updates 1 --device cuda
  local u=${UPDATES:-6}
  if [ -f "$gpu/old/ppo.cc" ]; then
    # A/B: .gpu/old/ppo.cc (another version of src/pcgrl/torch/ppo.cc, same table ABI) against the
    # tree's, alternating, at the official setting with cuDNN's benchmark mode.
    "$cxx" "${flags[@]}" "$gpu/old/ppo.cc" -o "$gpu/old/libpcglab_pcgrl_torch.so" "${libs[@]}" || exit 1
    cp "$gpu/bin/libpcglab_torch.so" "$gpu/old/"
    for r in 1 2; do
      run "new$r" --envs 600 --updates "$u" --device cuda --cudnn-benchmark
      PCGLAB_TORCH_LIBRARY=$gpu/old/libpcglab_torch.so run "old$r" --envs 600 --updates "$u" --device cuda \
        --cudnn-benchmark
    done
  else
    # The official setting (pcgrl.md §6: 600 environments, 128 steps, 10 epochs, 4 minibatches),
    # with cuDNN's default algorithms and with its benchmark mode, on 2 and 8 host threads.
    run cuda600 --envs 600 --updates "$u" --device cuda
    run cuda600_bench --envs 600 --updates "$u" --device cuda --cudnn-benchmark
    run cuda600_t8 --envs 600 --updates "$u" --device cuda --train-threads 8
    run cuda600_t8_bench --envs 600 --updates "$u" --device cuda --train-threads 8 --cudnn-benchmark
  fi
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
}

case $mode in
  pack) pack ;;
  device) device "${2:-}" ;;
  *)
    echo "usage: $0 pack | device [OUTDIR]" >&2
    exit 2
    ;;
esac
