#!/usr/bin/env bash
# Fuzzing for longer than CI does (README, "Robustness"):
#  1. coverage-guided, with libFuzzer through cargo-fuzz on the stable toolchain (fuzz/):
#     `text_form` (zyg-ir's text form round trip) and `llvm_module` (LLVM IR text through
#     zyg's input checks, reader, transform, writer and request rewriting), each for
#     SECONDS; seeds are fuzz/seeds/ and zyg's own test programs as LLVM IR;
#  2. the command-line fuzzer, ci/fuzz-cli.py, over the seed range CASES.
# Failing inputs land in fuzz/artifacts/TARGET/ (replay one with
# `cd fuzz && cargo run --release --example replay -- TARGET FILE`) and
# target/fuzz-cli-failures/SEED/.
# usage: bash ci/fuzz.sh [SECONDS (default 300)] [CASES (default 0:2000)]
set -euo pipefail
cd "$(dirname "$0")/.."
source ci/env.sh
seconds=${1:-300}
cases=${2:-0:2000}

if ! command -v cargo-fuzz >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz from crates.io"
  cargo install cargo-fuzz --locked
fi

# Seeds for llvm_module: the .ll tests, and the e2e C programs that fuzz-cli.py compiles.
python3 - <<'PY'
import importlib.util, os, shutil
spec = importlib.util.spec_from_file_location("fuzz_cli", "ci/fuzz-cli.py")
fuzz_cli = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz_cli)
seeds = "fuzz/seeds-generated/llvm_module"
os.makedirs(seeds, exist_ok=True)
for path in fuzz_cli.corpus_modules("target/fuzz-cli-cache"):
    shutil.copy(path, seeds)
PY

(
  cd fuzz
  # --sanitizer none: sanitizers need nightly (-Zsanitizer); coverage does not.
  cargo fuzz build --sanitizer none -O
  for target in text_form llvm_module; do
    mkdir -p "corpus/$target"
    dirs=("corpus/$target")  # the first is where libFuzzer adds what it finds
    for d in "seeds/$target" "seeds-generated/$target"; do
      if [ -d "$d" ]; then dirs+=("$d"); fi
    done
    cargo fuzz run --sanitizer none -O "$target" "${dirs[@]}" -- \
      -max_total_time="$seconds" -max_len=65536 -timeout=30 -rss_limit_mb=4096 -print_final_stats=1
  done
)

python3 ci/fuzz-cli.py --seeds "$cases" --jobs 2 --keep target/fuzz-cli-failures
