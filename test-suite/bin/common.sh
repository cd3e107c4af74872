# Sourced by the test runners (grad-run.sh, plugin-run.sh, mlir/Inputs/mlir-run.sh).

# compiler_for SRC: clang for C; clang++ for C++ (.cpp, .cc, .cxx), which compiles with
# exceptions on, as users compile C++. $CLANG and $CLANGXX override (lit.cfg.py sets them).
compiler_for() {
  case "$1" in
    *.cpp|*.cc|*.cxx) echo "${CLANGXX:-clang++-22}" ;;
    *) echo "${CLANG:-clang-22}" ;;
  esac
}

# run_built EXE: runs the just-linked program and exits with its status. Exit status 126 is
# ETXTBSY: another test's fork can briefly hold the new binary open for writing. It is a
# race of parallel runners, not a test result, so try again.
run_built() {
  local attempt status
  for attempt in 1 2 3; do
    status=0
    "$1" || status=$?
    [ "$status" -ne 126 ] && exit "$status"
    sleep 0.2
  done
  exit 126
}
