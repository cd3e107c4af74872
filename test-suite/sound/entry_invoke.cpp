// A request C++ makes with `invoke` (the call may throw, and a destructor must run then) is
// refused with what to do, rather than left unfilled; declared `noexcept`, the same request
// is a plain call and is filled in.
// RUN: rm -f %t.out.ll
// RUN: %clangxx -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// RUN: %clangxx -O0 -g -DNOEXCEPT -S -emit-llvm %s -o %t.noexcept.ll
// RUN: %zyg grad %t.noexcept.ll -o %t.noexcept.grad.ll
// RUN: %clangxx %t.noexcept.grad.ll -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=RAN
// RAN: d 6
#include <cstdio>
#include <string>
#ifdef NOEXCEPT
extern "C" double __enzyme_autodiff(void *, ...) noexcept;
#else
extern "C" double __enzyme_autodiff(void *, ...);
#endif
double f(double x) { return x * x; }
int main() {
    std::string label = "d";
    // CHECK: zyg: error: {{.*}}.ll: in `main` at {{.*}}entry_invoke.cpp:[[@LINE+1]]:{{[0-9]+}}: `__enzyme_autodiff` is called with `invoke` (C++ code that may unwind through it), which zyg does not fill in yet; declare it `noexcept`, or compile with -fno-exceptions
    double d = __enzyme_autodiff((void *)f, 3.0);
    std::printf("%s %g\n", label.c_str(), d);
}
