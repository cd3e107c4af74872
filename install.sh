#!/usr/bin/env bash
# Installs zyg under a prefix (README, "CMake and pkg-config"):
#   bash install.sh [--prefix DIR] [--no-build]
# builds the release binary and the pass plugin (unless --no-build), then installs
#   DIR/bin/zyg, DIR/lib/libzyg_plugin.so, DIR/include/zyg/*, DIR/include/enzyme/*,
#   DIR/lib/cmake/Zyg/{ZygConfig,ZygConfigVersion}.cmake (find_package(Zyg)),
#   DIR/lib/pkgconfig/zyg.pc (pkg-config zyg).
# The default prefix is /usr/local. Running it again overwrites the same files.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)

usage() {
  echo "usage: bash install.sh [--prefix DIR] [--no-build]" >&2
  echo "  --prefix DIR  install under DIR (default /usr/local)" >&2
  echo "  --no-build    install what target/release already holds, without running cargo" >&2
}
die() {
  echo "install.sh: error: $*" >&2
  exit 1
}

prefix=/usr/local
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix)
      [ $# -ge 2 ] && [ -n "$2" ] || die "--prefix needs a directory"
      prefix=$2
      shift 2
      ;;
    --prefix=*)
      prefix=${1#--prefix=}
      [ -n "$prefix" ] || die "--prefix needs a directory"
      shift
      ;;
    --no-build) build=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage; die "unknown argument \`$1'" ;;
  esac
done
# pkg-config's files and the -fpass-plugin= flag cannot hold a path with spaces.
case "$prefix" in
  *[[:space:]]*) die "--prefix \`$prefix' has a space: pkg-config and compiler flags cannot carry it; choose another" ;;
esac
case "$prefix" in
  /*) ;;
  *) prefix="$PWD/$prefix" ;;
esac

if [ "$build" = 1 ]; then
  echo "install.sh: building zyg and the pass plugin (cargo build --release)"
  (cd "$root" && source ci/env.sh && cargo build --release -p zyg-driver -p zyg-plugin)
fi

release="${CARGO_TARGET_DIR:-$root/target}/release"
for product in zyg libzyg_plugin.so; do
  if [ ! -f "$release/$product" ]; then
    if [ "$build" = 1 ]; then
      die "$release/$product is missing after the build"
    fi
    die "$release/$product is missing: build it first (source ci/env.sh && cargo build --release -p zyg-driver -p zyg-plugin) or run install.sh without --no-build"
  fi
done

# The workspace's version: `version = "X.Y.Z"` under [workspace.package] in Cargo.toml.
version=$(awk '/^\[/ { section = $0 } section == "[workspace.package]" && /^version *=/ { gsub(/[" ]/, "", $0); sub(/^version=/, "", $0); print; exit }' "$root/Cargo.toml")
[[ "$version" =~ ^([0-9]+)\.([0-9]+)\.[0-9]+ ]] || die "cannot read the workspace version from $root/Cargo.toml (found \`$version')"
major=${BASH_REMATCH[1]}
minor=${BASH_REMATCH[2]}

mkdir -p "$prefix" 2>/dev/null || die "cannot create $prefix: choose a writable --prefix, or run as root (sudo bash install.sh --no-build after building)"
[ -w "$prefix" ] || die "cannot write to $prefix: choose a writable --prefix, or run as root (sudo bash install.sh --no-build after building)"

echo "install.sh: installing zyg $version into $prefix"
install -d "$prefix/bin" "$prefix/lib/cmake/Zyg" "$prefix/lib/pkgconfig" "$prefix/include"
install -m 755 "$release/zyg" "$prefix/bin/zyg"
install -m 755 "$release/libzyg_plugin.so" "$prefix/lib/libzyg_plugin.so"
# The headers, keeping their folders (enzyme/enzyme is a header without an extension).
for dir in zyg enzyme; do
  (cd "$root/include" && find "$dir" -type f) | while IFS= read -r file; do
    install -D -m 644 "$root/include/$file" "$prefix/include/$file"
  done
done
install -m 644 "$root/cmake/ZygConfig.cmake" "$prefix/lib/cmake/Zyg/ZygConfig.cmake"
# Written to a temporary name and renamed, so an interrupted run leaves no half file.
# The prefix as sed's replacement text: `&`, `|` and `\` quoted.
prefix_sed=$(printf '%s' "$prefix" | sed 's/[&|\\]/\\&/g')
substitute() {
  sed -e "s|@ZYG_VERSION@|$version|g" -e "s|@ZYG_VERSION_MAJOR@|$major|g" \
    -e "s|@ZYG_VERSION_MINOR@|$minor|g" -e "s|@PREFIX@|$prefix_sed|g" "$1" >"$2.tmp"
  chmod 644 "$2.tmp"
  mv -f "$2.tmp" "$2"
}
substitute "$root/cmake/ZygConfigVersion.cmake.in" "$prefix/lib/cmake/Zyg/ZygConfigVersion.cmake"
substitute "$root/cmake/zyg.pc.in" "$prefix/lib/pkgconfig/zyg.pc"

# The installed zyg must find the installed plugin (<bindir>/../lib), not another one.
found=$(env -u ZYG_PLUGIN "$prefix/bin/zyg" plugin-path) || die "$prefix/bin/zyg plugin-path failed (above)"
[ "$(realpath "$found")" = "$(realpath "$prefix/lib/libzyg_plugin.so")" ] ||
  die "$prefix/bin/zyg plugin-path gives $found, not $prefix/lib/libzyg_plugin.so"

echo "install.sh: installed:"
echo "  $prefix/bin/zyg"
echo "  $prefix/lib/libzyg_plugin.so   (clang-22 -fpass-plugin=...)"
echo "  $prefix/include/zyg, $prefix/include/enzyme"
echo "  $prefix/lib/cmake/Zyg          (find_package(Zyg); -DCMAKE_PREFIX_PATH=$prefix unless it is a default prefix)"
echo "  $prefix/lib/pkgconfig/zyg.pc   (pkg-config zyg; PKG_CONFIG_PATH=$prefix/lib/pkgconfig unless it is searched)"
