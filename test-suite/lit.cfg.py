# lit configuration of zyg's end-to-end suite (run by ci/test.sh).
import os
import shutil

import lit.formats

config.name = "zyg"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".c", ".cpp", ".cu", ".ll", ".test", ".mlir"]
config.excludes = ["include", "examples", "Inputs", "bin", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

repo = os.path.dirname(config.test_source_root)
llvm_bin = "/usr/lib/llvm-22/bin"
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
zyg = os.environ.get("ZYG", os.path.join(repo, "target", "release", "zyg"))
clang = shutil.which("clang-22") or os.path.join(llvm_bin, "clang")
clangxx = shutil.which("clang++-22") or os.path.join(llvm_bin, "clang++")

config.substitutions.append(("%zyg", zyg))
config.substitutions.append(("%clangxx", clangxx))
config.substitutions.append(("%clang", clang))
config.substitutions.append(("%FileCheck", os.path.join(llvm_bin, "FileCheck")))
config.substitutions.append(("%include", os.path.join(config.test_source_root, "include")))
# Programs calling CBLAS and LAPACKE link OpenBLAS and LAPACKE (Debian's libopenblas-dev,
# liblapacke-dev: ci/setup.sh); listed before %grad-run, which is its prefix. Their tests
# say `REQUIRES: blas`.
# OpenMP programs (clang's -fopenmp, Debian's libomp-22-dev: ci/setup.sh) link libomp; listed
# before %grad-run too. Their tests say `REQUIRES: openmp` and pass -fopenmp to clang.
config.substitutions.append(
    ("%grad-run-omp", "env ZYG_LINK_FLAGS=-fopenmp bash " + os.path.join(config.test_source_root, "bin", "grad-run.sh"))
)
if os.path.exists("/usr/lib/llvm-22/lib/clang/22/include/omp.h") and os.path.exists("/usr/lib/llvm-22/lib/libomp.so"):
    config.available_features.add("openmp")
config.substitutions.append(
    ("%grad-run-blas", "env ZYG_LINK_FLAGS='-llapacke -lopenblas' bash " + os.path.join(config.test_source_root, "bin", "grad-run.sh"))
)
if os.path.exists("/usr/include/lapacke.h") and any(
    os.path.exists(p) for p in ("/usr/include/cblas.h", "/usr/include/x86_64-linux-gnu/cblas.h")
):
    config.available_features.add("blas")
# Programs using Eigen (Debian's libeigen3-dev: ci/setup.sh) pass `%eigen` to clang and say
# `REQUIRES: eigen`.
config.substitutions.append(("%eigen", "-I/usr/include/eigen3"))
if os.path.exists("/usr/include/eigen3/Eigen/Dense"):
    config.available_features.add("eigen")
# `%valgrind EXE` runs a linked gradient program under valgrind's memcheck, failing on any
# memory error and on memory definitely lost (ci/setup.sh installs valgrind); without
# valgrind it runs the program as it is.
valgrind = shutil.which("valgrind")
config.substitutions.append(
    ("%valgrind", valgrind + " -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite" if valgrind else "")
)
# MPI programs (test-suite/e2e/mpi_*.c): `%mpi-run NP OPT SRC TMP` builds a program with
# OpenMPI's flags and runs it under `mpirun -np NP` (bin/mpi-run.sh). They say `REQUIRES: mpi` (Debian's libopenmpi-dev and
# openmpi-bin: ci/setup.sh), so they are skipped where mpicc or mpirun is missing.
config.substitutions.append(("%mpi-run", "bash " + os.path.join(config.test_source_root, "bin", "mpi-run.sh")))
if shutil.which("mpirun") and shutil.which("mpicc") and os.path.exists("/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h"):
    config.available_features.add("mpi")
    # `%mpi-cflags`: OpenMPI's compile flags, for tests that only compile (errors/).
    import subprocess
    config.substitutions.append(("%mpi-cflags", subprocess.run(["mpicc", "-showme:compile"], capture_output=True, text=True).stdout.strip()))
config.substitutions.append(("%grad-run", "bash " + os.path.join(config.test_source_root, "bin", "grad-run.sh")))
config.environment["ZYG"] = zyg
# `ZYG_GRAD_FLAGS=--tape-budget=4KiB lit test-suite` runs every %grad-run test with those
# `zyg grad` flags (a sweep: every gradient must stay right under checkpointing).
if "ZYG_GRAD_FLAGS" in os.environ:
    config.environment["ZYG_GRAD_FLAGS"] = os.environ["ZYG_GRAD_FLAGS"]
# The pass plugin (`zyg plugin-path`): beside the zyg binary in cargo's target directory, or
# $ZYG_PLUGIN. `%plugin-run OPT SRC TMP` builds a program in one step through it and runs it
# (bin/plugin-run.sh); `%plugin` is its path, for clang's -fpass-plugin= and opt's
# -load-pass-plugin=. lld (ci/setup.sh: lld-22) links the plugin's LTO tests (`REQUIRES: lld`).
plugin = os.environ.get("ZYG_PLUGIN", os.path.join(os.path.dirname(zyg), "libzyg_plugin.so"))
config.substitutions.append(("%plugin-run", "bash " + os.path.join(config.test_source_root, "bin", "plugin-run.sh")))
config.substitutions.append(("%plugin", plugin))
config.environment["ZYG_PLUGIN"] = plugin
lld = shutil.which("ld.lld-22") or shutil.which("ld.lld")
if lld:
    config.available_features.add("lld")
    config.substitutions.append(("%lld", lld))
config.substitutions.append(("%opt", os.path.join(llvm_bin, "opt")))

# `%march-v3` asks clang for x86-64-v3 (AVX2, FMA: masked loads and stores, wider vectors)
# where this machine runs such code, and for the baseline elsewhere, so a test keeps its
# RUN line everywhere and exercises the AVX2 path where it can.
def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()

v3 = {"avx2", "fma", "bmi2", "movbe"} <= cpu_flags()
config.substitutions.append(("%march-v3", "-march=x86-64-v3" if v3 else ""))
if v3:
    config.available_features.add("x86-64-v3")
# x86-64-v4 (AVX-512), where clang turns indexed and conditional loads and stores into
# llvm.masked.gather and llvm.masked.scatter (test-suite/sound/gather_*).
if v3 and {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"} <= cpu_flags():
    config.available_features.add("x86-64-v4")
config.environment["CLANG"] = clang
config.environment["CLANGXX"] = clangxx

# ptxas (NVIDIA's PTX assembler, from the nvidia-cuda-nvcc-cu12 wheel ci/setup.sh installs,
# or a CUDA toolkit) checks the PTX `zyg compile --target nvptx64` writes.
import glob
ptxas = shutil.which("ptxas") or next(iter(sorted(glob.glob(os.path.expanduser(
    "~/.local/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas")))), None)
# CUDA's headers, for single-source `.cu` tests (`REQUIRES: cuda-headers`): a toolkit at
# $CUDA_HOME, or the wheels; `%cuda-root DIR` makes a CUDA root of them (bin/cuda-root.sh).
wheels = os.path.expanduser("~/.local/lib/python3*/site-packages/nvidia")
if os.path.exists(os.path.join(os.environ.get("CUDA_HOME", "/nonexistent"), "include", "cuda_runtime.h")) or (
    glob.glob(os.path.join(wheels, "cuda_runtime/include/cuda_runtime.h")) and glob.glob(os.path.join(wheels, "cuda_nvcc/include/crt"))
):
    config.available_features.add("cuda-headers")
config.substitutions.append(("%cuda-root", "bash " + os.path.join(config.test_source_root, "bin", "cuda-root.sh")))
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    config.environment["ZYG_LIBDEVICE"] = os.path.join(
        os.path.dirname(os.path.dirname(ptxas)), "nvvm", "libdevice", "libdevice.10.bc")
