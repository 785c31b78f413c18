#!/usr/bin/env bash
# The CUDA path of the libtorch modules on a machine that has a GPU and a PyTorch with CUDA but none
# of pcglab's Debian packages (the device machines of docs/PERFORMANCE.md, "PPO training on a GPU").
#
#   bash scripts/gpu-bench.sh pack [DEST]     # here (Debian 12, after `make build`): .gpu/ holds the
#                                             # release pcglab and the shared libraries it needs (DEST:
#                                             # also a copy of src/, scripts/ and .gpu/ there)
#   bash scripts/gpu-bench.sh device [OUTDIR] # there, from the repository root with .gpu/ beside it:
#                                             # builds libpcglab_{pcgrl_,}torch.so against python3's
#                                             # torch (CUDA), checks CPU and CUDA agree, times PPO
#   bash scripts/gpu-bench.sh measure [OUTDIR] # the checks and timings alone, with PCGLAB (default
#                                             # build/release/pcglab) and DEVICE (default cuda): with
#                                             # DEVICE=cpu ENVS=4 UPDATES=2 a dry run of the script here
#
# The timings (measure): the variants named in ORDER (default: every speed option of `pcglab bench
# pcgrl-ppo`, --update-graph, --input-channels 12|16, --channels-last, their combination, and
# --bf16, which changes the numerics; also base16/graph16 with 16 host threads) against the
# baseline, at the official setting (ENVS=600 × 128 steps, THREADS=8 host threads,
# --cudnn-benchmark), ROUNDS (1) times alternating, each run the median of UPDATES (6) updates;
# then the fastest float32 variant and the baseline REPEATS (2) more times each. AGREE names the
# variants whose losses after one update of 16 environments are compared with the CPU's (default:
# ORDER's); PROFILE=1 adds scripts/ppo_step_profile.py. No new timing run starts after BUDGET
# seconds (default 300) so that the call ends inside its limit with the summary printed.
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
  # pack DEST: also a copy of the sources the device step builds from, the scripts and .gpu/ in
  # DEST (the device tool sends the session's own checkout, not a helper's worktree: DEST is then an
  # ignored folder of that checkout, named in the call's carry; run `bash DEST/scripts/gpu-bench.sh
  # device` there).
  local dest=${1:-}
  if [ -n "$dest" ]; then
    rm -rf "$dest" && mkdir -p "$dest"
    cp -r "$root/src" "$root/scripts" "$dest/"
    cp -r "$gpu" "$dest/.gpu"
    du -sh "$dest"
  fi
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
  if ! wait $p1; then
    # The bf16 autocast is the one part built against an API that changed between libtorch
    # versions: without it, the rest still gets measured (--bf16 is then refused).
    echo "pcgrl module FAILED, again without the bf16 autocast:"
    head -c 6000 /tmp/build_pcgrl.log
    "$cxx" "${flags[@]}" -DPCGLAB_NO_AUTOCAST=1 "$root"/src/pcgrl/torch/*.cc \
      -o "$gpu/bin/libpcglab_pcgrl_torch.so" "${libs[@]}" >/tmp/build_pcgrl2.log 2>&1 ||
      { ok=0; echo "pcgrl module FAILED:"; head -c 6000 /tmp/build_pcgrl2.log; }
  fi
  wait $p2 || { echo "nn module FAILED:"; head -c 3000 /tmp/build_nn.log; }
  echo "modules built in $((SECONDS - t0)) s"
  [ $ok = 1 ] || exit 1
  export LD_LIBRARY_PATH=$gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  local pcglab=$gpu/bin/pcglab
  local missing
  missing=$(ldd "$pcglab" "$gpu/bin/libpcglab_pcgrl_torch.so" | grep 'not found')
  [ -z "$missing" ] || { echo "missing libraries: $missing"; exit 1; }
  "$pcglab" --version
  if [ -f "$gpu/old/ppo.cc" ]; then
    # A/B: .gpu/old/ppo.cc (another version of src/pcgrl/torch/ppo.cc, same table ABI) against the
    # tree's, alternating, at the official setting with cuDNN's benchmark mode.
    "$cxx" "${flags[@]}" "$gpu/old/ppo.cc" -o "$gpu/old/libpcglab_pcgrl_torch.so" "${libs[@]}" || exit 1
    cp "$gpu/bin/libpcglab_torch.so" "$gpu/old/"
    local u=${UPDATES:-6}
    for r in 1 2; do
      PCGLAB=$pcglab bench_run "$out" "new$r" --envs 600 --updates "$u" --device cuda --cudnn-benchmark
      PCGLAB=$pcglab PCGLAB_TORCH_LIBRARY=$gpu/old/libpcglab_torch.so bench_run "$out" "old$r" --envs 600 \
        --updates "$u" --device cuda --cudnn-benchmark
    done
  else
    PCGLAB=$pcglab measure "$out"
  fi
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
}

# One `pcglab bench pcgrl-ppo` run: OUT, a label, then the bench's options. Its CSV row goes to
# OUT/rows.csv (label first), its whole output to OUT/runs.txt; a failed run is recorded as such.
bench_run() {
  local out=$1 label=$2
  shift 2
  echo "== $label: pcglab bench pcgrl-ppo $*" | tee -a "$out/runs.txt"
  local text rc
  text=$(timeout "${LIMIT:-240}" "${PCGLAB:-$root/build/release/pcglab}" bench pcgrl-ppo --format csv "$@" 2>&1)
  rc=$?
  echo "$text" >>"$out/runs.txt"
  local row
  row=$(echo "$text" | grep -E '^(cpu|cuda),' | tail -n 1)
  if [ $rc -ne 0 ] || [ -z "$row" ]; then
    echo "$label,FAILED rc=$rc" >>"$out/rows.csv"
    echo "$text" | tail -n 3
    return 1
  fi
  echo "$label,$row" >>"$out/rows.csv"
  echo "$row"
}

# The agreement checks and the A/B timings of the speed options (see the top of this file).
measure() {
  local out=${1:-${OUT:-$root/.gpu/out}}
  mkdir -p "$out"
  : >"$out/rows.csv"
  local dev=${DEVICE:-cuda} envs=${ENVS:-600} u=${UPDATES:-6} t=${THREADS:-8}
  local budget=${BUDGET:-300} t0=$SECONDS
  local -A opts=(
    [base]="--train-threads $t"
    [graph]="--train-threads $t --update-graph"
    [ic16]="--train-threads $t --input-channels 16"
    [ic12]="--train-threads $t --input-channels 12"
    [chlast]="--train-threads $t --channels-last"
    [combo]="--train-threads $t --update-graph --input-channels 16 --channels-last"
    [bf16]="--train-threads $t --bf16"
    [base16]="--train-threads 16"
    [graph16]="--train-threads 16 --update-graph"
    [all0]="--train-threads $t --cudnn-benchmark-limit 0"
    [graph0]="--train-threads $t --update-graph --cudnn-benchmark-limit 0"
    [best16]="--train-threads 16 --update-graph --cudnn-benchmark-limit 0"
  )
  local order
  read -r -a order <<<"${ORDER:-base graph ic16 ic12 chlast combo bf16}"
  local agree
  read -r -a agree <<<"${AGREE:-${order[*]}}"
  # Agreement first: one update of 16 environments from the same seed, on the CPU (dense first
  # layers) and on the device with each variant; the losses must agree within float rounding.
  bench_run "$out" agree_cpu --envs "${AGREE_ENVS:-16}" --updates 1 --device cpu --first-layers dense --train-threads 8
  local v
  for v in "${agree[@]}"; do
    # shellcheck disable=SC2086
    bench_run "$out" "agree_$v" --envs "${AGREE_ENVS:-16}" --updates 1 --device "$dev" --first-layers dense \
      ${opts[$v]}
  done
  # The variants in ORDER, ROUNDS times over, alternating; each run the median of its updates.
  local common=(--envs "$envs" --updates "$u" --device "$dev" --cudnn-benchmark)
  local r
  for r in $(seq 1 "${ROUNDS:-1}"); do
    for v in "${order[@]}"; do
      [ $((SECONDS - t0)) -lt "$budget" ] || { echo "budget: $v skipped"; continue; }
      # shellcheck disable=SC2086
      bench_run "$out" "time_$v" "${common[@]}" ${opts[$v]}
    done
  done
  # The fastest float32 variant (bf16 is never the headline) and the baseline, REPEATS more times.
  local best
  best=$(python3 "$root/scripts/gpu_bench_summary.py" best "$out/rows.csv")
  echo "fastest float32 variant so far: $best"
  local again=(base)
  [ "$best" = base ] || again+=("$best")
  for r in $(seq 1 "${REPEATS:-2}"); do
    for v in "${again[@]}"; do
      [ $((SECONDS - t0)) -lt "$budget" ] || { echo "budget: repeat $r of $v skipped"; continue; }
      # shellcheck disable=SC2086
      bench_run "$out" "time_$v" "${common[@]}" ${opts[$v]}
    done
  done
  python3 "$root/scripts/gpu_bench_summary.py" table "$out/rows.csv" | tee "$out/summary.md"
  if [ -n "${PROFILE:-}" ]; then
    echo "== the minibatch step in PyTorch (scripts/ppo_step_profile.py)"
    timeout "${LIMIT:-240}" python3 "$root/scripts/ppo_step_profile.py" 2>&1 | tee "$out/profile.txt"
  fi
}

case $mode in
  pack) pack "${2:-}" ;;
  device) device "${2:-}" ;;
  measure) measure "${2:-}" ;;
  *)
    echo "usage: $0 pack | device [OUTDIR] | measure [OUTDIR]" >&2
    exit 2
    ;;
esac
