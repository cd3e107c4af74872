// C++ names as LLVM's demangler (llvm-cxxfilt's) prints them, for `zyg grad --fn` given a
// demangled name: LLVM's C API has no demangler, and its C++ one is what users see from
// llvm-cxxfilt, `nm -C` and debuggers built on LLVM, so names match character for character.
#include "llvm/Demangle/Demangle.h"

// The demangled form of an Itanium-mangled name (`_Z...`), malloc'd; null when `name` is
// not one LLVM can demangle (a C name, a broken mangling).
extern "C" char *zyg_demangle_itanium(const char *name) { return llvm::itaniumDemangle(name); }
