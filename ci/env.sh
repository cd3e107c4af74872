# Sourced by the other scripts: where LLVM 22 lives, for llvm-sys/mlir-sys and the tools.
export LLVM_SYS_221_PREFIX=/usr/lib/llvm-22
export MLIR_SYS_220_PREFIX=/usr/lib/llvm-22
export TABLEGEN_220_PREFIX=/usr/lib/llvm-22
case ":$PATH:" in
  *:/usr/lib/llvm-22/bin:*) ;;
  *) export PATH="/usr/lib/llvm-22/bin:$PATH" ;;
esac
# lit from PyPI (ci/setup.sh's fallback) lives in ~/.local/bin; Debian's comes first.
if [ -n "${HOME:-}" ] && [ -d "$HOME/.local/bin" ]; then
  case ":$PATH:" in
    *:"$HOME/.local/bin":*) ;;
    *) export PATH="$PATH:$HOME/.local/bin" ;;
  esac
fi
