#!/usr/bin/env bash
# DARTS on a GPU machine that has PyTorch (with its CUDA libtorch) but none
# of hpt's Debian packages: the device tool's machines. Two steps.
#
# 1. Here, after `cmake --build build`:
#      bash bench/run_darts_gpu.sh kit [BUILD_DIR]
#    fills .gpukit/ (git-ignored, ~35 MB) with what the GPU machine lacks:
#    hpt's api library built here (plain C++, no libtorch in it), static
#    yaml-cpp, RE2 and zlib, zlib's headers, and Fashion-MNIST.
# 2. There, with .gpukit carried beside the working tree:
#      bash bench/run_darts_gpu.sh run OUT_DIR
#    compiles nas/ and the two DARTS benches against PyTorch's libtorch
#    (CUDA), then runs, on the GPU:
#    - bench/run_darts.sh: one supernet step, hpt vs the same step in that
#      PyTorch, same shapes (a full-size supernet: 8 layers, C16, batch 64);
#    - hpt_bench_darts_accuracy: a search with the full-size supernet on
#      Fashion-MNIST, the derived network trained from scratch (augmented)
#      and tested, and beside it, in a second process on the same GPU, a
#      RandomGenotype with the same evaluation budget.
#    `build` only compiles (build-gpu/hpt_bench_darts_*). `profile OUT_DIR`
#    runs hpt_bench_darts_eval_step instead (GPU_PROFILE_BATCHES, default
#    512; GPU_PROFILE_FLAGS adds flags).
#    Logs and tables land in OUT_DIR. GPU_ACCURACY_FLAGS adds or overrides
#    flags of both accuracy runs; GPU_GENOTYPE evaluates that genotype
#    instead of searching; GPU_SECONDS (default 330) bounds them;
#    GPU_STEP=0 skips the step benchmark; GPU_BASELINE=0 the random cell.
set -euo pipefail
cd "$(dirname "$0")/.."
KIT=.gpukit

kit() {
  local build=${1:-build}
  local api="$build/api/libhpt_api.a"
  [[ -f "$api" ]] || { echo "build hpt first: cmake --build $build" >&2; exit 1; }
  rm -rf "$KIT"
  mkdir -p "$KIT/lib" "$KIT/include" "$KIT/fashion-mnist"
  cp "$api" "$KIT/lib/"
  local multiarch
  multiarch=$(gcc -print-multiarch)
  for lib in libyaml-cpp.a libre2.a libz.a; do
    cp "/usr/lib/$multiarch/$lib" "$KIT/lib/"
  done
  cp /usr/include/zlib.h /usr/include/zconf.h "$KIT/include/"
  cp /usr/share/datasets/fashion-mnist/*-ubyte.gz "$KIT/fashion-mnist/"
  du -sh "$KIT"
}

compile() {
  local torch abi
  torch=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')
  abi=$(python3 -c 'import torch; print(int(torch.compiled_with_cxx11_abi()))')
  echo "torch $(python3 -c 'import torch; print(torch.__version__, torch.version.cuda)')" \
    "at $torch, cxx11 abi $abi; $(g++ --version | head -1)"
  if [[ "$abi" != 1 ]]; then
    echo "this PyTorch uses the old C++ ABI; hpt's api library needs the new one" >&2
    exit 1
  fi
  local flags=(-std=c++20 -O2 -DNDEBUG -DHPT_HAVE_TORCH=1 -D_GLIBCXX_USE_CXX11_ABI=1
               -I. -I"$KIT/include" -isystem "$torch/include"
               -isystem "$torch/include/torch/csrc/api/include")
  local obj=build-gpu/obj
  mkdir -p "$obj"
  local sources=(nas/dataset.cc nas/dataset_io.cc nas/idx_reader.cc
                 nas/cifar_reader.cc nas/npy_reader.cc nas/genotype_text.cc
                 nas/operations.cc nas/supernet.cc nas/architect.cc
                 nas/genotype.cc nas/eval_network.cc nas/training.cc
                 nas/darts_search.cc nas/evaluate.cc nas/depthwise_conv.cc
                 nas/pooling.cc nas/data_parallel.cc nas/sgd.cc
                 bench/darts_step_main.cc bench/darts_accuracy_main.cc
                 bench/darts_eval_step_main.cc)
  printf '%s\n' "${sources[@]}" |
    xargs -P "$(nproc)" -I{} sh -c \
      'g++ "$@" -c {} -o '"$obj"'/$(basename {} .cc).o || exit 255' _ "${flags[@]}"
  local nas=()
  # Every source but the three mains. No -fopenmp: PyTorch's wheel brings
  # its own OpenMP runtime, and nas::Replicas then sets thread counts
  # through libtorch.
  for s in "${sources[@]:0:${#sources[@]}-3}"; do nas+=("$obj/$(basename "$s" .cc).o"); done
  local libs=("$KIT/lib/libhpt_api.a" "$KIT/lib/libyaml-cpp.a" "$KIT/lib/libre2.a"
              "$KIT/lib/libz.a" -L"$torch/lib" -Wl,-rpath,"$torch/lib"
              -Wl,--no-as-needed -ltorch_cuda -ltorch -ltorch_cpu -lc10_cuda -lc10
              -Wl,--as-needed -pthread)
  for main in darts_step darts_accuracy darts_eval_step; do
    g++ -o "build-gpu/hpt_bench_$main" "$obj/${main}_main.o" "${nas[@]}" "${libs[@]}"
  done
  # The profiler's CUDA-graph row needs CUDA's runtime headers (PyTorch's
  # nvidia-* wheels or a toolkit); without them, or if that build fails,
  # the profiler keeps its other rows.
  local runtime_h cudart
  runtime_h=$(find "$(dirname "$torch")/nvidia" /usr/local/cuda/include \
    -name cuda_runtime_api.h 2>/dev/null | head -1 || true)
  if [[ -z "$runtime_h" ]]; then
    echo "no cuda_runtime_api.h: the profiler has no CUDA-graph row"
    return 0
  fi
  cudart=$(find "$(dirname "$(dirname "$runtime_h")")" "$(dirname "$torch")/nvidia" \
    -name 'libcudart.so*' 2>/dev/null | head -1 || true)
  if g++ "${flags[@]}" -DHPT_CUDA_GRAPHS=1 -isystem "$(dirname "$runtime_h")" \
       -c bench/darts_eval_step_main.cc -o "$obj/darts_eval_step_graphs.o" &&
     g++ -o build-gpu/hpt_bench_darts_eval_step.graphs "$obj/darts_eval_step_graphs.o" \
       "${nas[@]}" "${libs[@]}" ${cudart:+"$cudart" -Wl,-rpath,"$(dirname "$cudart")"}; then
    mv build-gpu/hpt_bench_darts_eval_step.graphs build-gpu/hpt_bench_darts_eval_step
    echo "profiler with CUDA graphs ($runtime_h${cudart:+, $cudart})"
  else
    echo "the CUDA-graph profiler did not build; the profiler has no CUDA-graph row"
  fi
}

run() {
  local out=${1:?run OUT_DIR}
  mkdir -p "$out"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader |
    tee "$out/gpu.txt"
  local start=$SECONDS
  compile 2>&1 | tee "$out/compile.log"
  echo "compiled in $((SECONDS - start)) s"
  export PYTHONUNBUFFERED=1

  # One supernet step, hpt vs PyTorch, on the GPU (GPU_STEP=0 skips it).
  [[ "${GPU_STEP:-1}" == 0 ]] || HPT_STEP_BIN=build-gpu/hpt_bench_darts_step PYTHON=python3 ROUNDS=${ROUNDS:-2} \
    bash bench/run_darts.sh build-gpu -- --device cuda --batch 64 --channels 16 \
    --layers 8 --steps 20 --warmup 5 --threads 4 2>&1 | tee "$out/step.md"

  # Search + evaluation, and the random baseline beside it.
  local common=(--dataset "$KIT/fashion-mnist" --device cuda --threads 4 --seed 1
                --layers 8 --channels 16 --nodes 4 --batch 128
                --search-limit 20000 --epochs 5
                --eval-layers 8 --eval-channels 36 --eval-batch 256
                --eval-epochs 12 --eval-augment 1 --w-lr 0.05)
  # shellcheck disable=SC2206
  local extra=(${GPU_ACCURACY_FLAGS:-})
  # A genotype has spaces: it comes on its own, and replaces the search.
  [[ -n "${GPU_GENOTYPE:-}" ]] && extra+=(--genotype "$GPU_GENOTYPE")
  local bin=build-gpu/hpt_bench_darts_accuracy
  timeout "${GPU_SECONDS:-330}" "$bin" "${common[@]}" "${extra[@]}" --baseline 0 \
    >"$out/accuracy.md" 2>"$out/accuracy.log" &
  local searched=$!
  # GPU_BASELINE=0: the searched side alone (two processes time-share the
  # GPU: each ran 1.5x slower beside the other).
  local baseline=
  if [[ "${GPU_BASELINE:-1}" != 0 ]]; then
    timeout "${GPU_SECONDS:-330}" "$bin" "${common[@]}" "${extra[@]}" --searched 0 \
      >"$out/baseline.md" 2>"$out/baseline.log" &
    baseline=$!
  fi
  local rc=0
  wait "$searched" || rc=$?
  [[ -z "$baseline" ]] || wait "$baseline" || rc=$?
  echo "--- searched"; grep -v '^step=' "$out/accuracy.md" || true
  grep 'Test-Accuracy' "$out/accuracy.md" | tail -3 || true
  if [[ -n "$baseline" ]]; then
    echo "--- random baseline"; grep -v '^step=' "$out/baseline.md" || true
    grep 'Test-Accuracy' "$out/baseline.md" | tail -3 || true
  fi
  echo "accuracy runs: rc $rc, $((SECONDS - start)) s since the start"
}

# Where an evaluation step's time goes on the GPU: the step in fp32,
# channels-last and bf16 autocast, its phases, and each primitive alone.
profile() {
  local out=${1:?profile OUT_DIR}
  mkdir -p "$out"
  compile >"$out/compile.log" 2>&1 || { tail -20 "$out/compile.log"; exit 1; }
  local genotype=()
  [[ -n "${GPU_GENOTYPE:-}" ]] && genotype=(--genotype "$GPU_GENOTYPE")
  for batch in ${GPU_PROFILE_BATCHES:-512}; do
    echo "## batch $batch"
    build-gpu/hpt_bench_darts_eval_step --device cuda --batch "$batch" \
      "${genotype[@]}" ${GPU_PROFILE_FLAGS:-} 2>&1 | tee "$out/eval_step_$batch.md"
  done
}

case "${1:-}" in
  kit) shift; kit "$@" ;;
  build) compile ;;
  run) shift; run "$@" ;;
  profile) shift; profile "$@" ;;
  *) echo "usage: bench/run_darts_gpu.sh kit [BUILD_DIR] | build | run OUT_DIR | profile OUT_DIR" >&2
     exit 2 ;;
esac
