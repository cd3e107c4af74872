#!/usr/bin/env bash
# plugin-run.sh OPT SRC TMP [CLANG FLAGS...]
#
# Builds the C (or C++) program SRC in one step through zyg's pass plugin and runs it; the
# program's standard output is ours, for FileCheck. Fails as soon as a step fails.
#
#   clang-22 OPT -g -fpass-plugin=$ZYG_PLUGIN [CLANG FLAGS...] -I test-suite/include SRC -lm -o TMP.OPT.plugin.exe
#
# $ZYG_PLUGIN names libzyg_plugin.so and $CLANG/$CLANGXX the compilers (lit.cfg.py sets them);
# $ZYG_LINK_FLAGS, when set, goes to the link.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: plugin-run.sh OPT SRC TMP [CLANG FLAGS...]" >&2
  exit 2
fi
opt=$1 src=$2 tmp=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=common.sh
source "$here/common.sh"
clang=$(compiler_for "$src")
plugin=${ZYG_PLUGIN:?ZYG_PLUGIN must name libzyg_plugin.so}
exe="$tmp.${opt#-}.plugin.exe"
# shellcheck disable=SC2086 # several flags, split on purpose
"$clang" "$opt" -g -fpass-plugin="$plugin" "$@" -I "$here/../include" "$src" -lm ${ZYG_LINK_FLAGS:-} -o "$exe"
run_built "$exe"
