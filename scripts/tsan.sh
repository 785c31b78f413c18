#!/usr/bin/env bash
# Builds the `tsan` preset (ThreadSanitizer, RelWithDebInfo, build/tsan) and runs the tests that
# exercise threads under it: the thread pool, the progress bar with log lines from other threads,
# the LLM rate limiter, client (keep-alive handles shared by threads), completer layers and
# `birds run` through the CLI, the letter classifier shared by many threads, and the Science Birds
# simulate / classify / generate pipelines (in process and through the CLI), and the batch driver
# (items on the pool, concurrent shards), and the sandbox's worker pool, zygote and `sandbox run`
# batches (leases from many threads, workers forked concurrently, the driver over the pool).
#
#   bash scripts/tsan.sh             # build and run
#   JOBS=2 bash scripts/tsan.sh      # fewer parallel jobs
#   TSAN_REGEX='ThreadPool' bash scripts/tsan.sh
#
# libtorch (Debian's build) is not instrumented and uses OpenMP, whose synchronisation
# ThreadSanitizer cannot see; scripts/tsan.supp silences reports whose stack lies inside libtorch
# or libgomp. The classifier tests still run: pcglab's own accesses around the model are checked.
# Exit status: ctest's (non-zero on any report: halt_on_error=1).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
REGEX=${TSAN_REGEX:-'^(ThreadPool|ProgressBar|RateLimiter|ChatClientKeepAlive|Completers|Dialogue|BirdsRun|LetterClassifierConcurrency|Capture\.SameBytesOnAnyThreadAndRun|Stability|BirdsSimCli|BirdsClassify|GeneratorRun|Driver|BirdsShards|SandboxPool|SandboxZygote|SandboxBatch|GameHost|Generation|GenerationResume|GenerateCli|Reflection|ExperimentResume|ExperimentShards|Judge[A-Za-z]*|TextgameJudge|TextgameValidity|TextgamePlay|TextgameReplay)\.'}

cmake --preset tsan >/dev/null
cmake --build build/tsan -j "$JOBS" --target pcglab pcglab_torch core_unit_tests llm_unit_tests nn_unit_tests \
  batch_unit_tests birds_unit_tests birds_integration_tests sandbox_unit_tests \
  textgame_unit_tests textgame_integration_tests
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan.supp ${TSAN_OPTIONS:-}"
ctest --test-dir build/tsan --output-on-failure -j "$JOBS" --timeout 1800 -R "$REGEX"
