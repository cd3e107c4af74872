// A request C++ makes with `invoke` (main has a std::string to destroy if the call throws,
// or a `try` around it) is filled in as an invoke of the gradient: its derivative is
// computed as a plain call's is, and an exception thrown while computing it unwinds into
// the caller's landing pad (the `catch` here), as the request itself would have. Once,
// zyg refused such requests.
// RUN: %clangxx -O0 -g -S -emit-llvm %s -o %t.O0.ll
// RUN: %zyg grad %t.O0.ll -o %t.O0.grad.ll
// RUN: %clangxx %t.O0.grad.ll -o %t.O0.exe
// RUN: %t.O0.exe | FileCheck %s
// RUN: %clangxx -O2 -g -S -emit-llvm %s -o %t.O2.ll
// RUN: %zyg grad %t.O2.ll -o %t.O2.grad.ll
// RUN: %clangxx %t.O2.grad.ll -o %t.O2.exe
// RUN: %t.O2.exe | FileCheck %s
// CHECK: d 6
// CHECK-NEXT: caught negative -2
// CHECK-NEXT: after 1
#include <cstdio>
#include <stdexcept>
#include <string>
extern "C" double __enzyme_autodiff(void *, ...);

double f(double x) { return x * x; }

struct negative : std::runtime_error {
    negative() : std::runtime_error("negative") {}
};

// Throws for negative x; the derivative is 1/(2 sqrt x) otherwise.
__attribute__((noinline)) double root(double x) {
    if (x < 0)
        throw negative();
    return __builtin_sqrt(x);
}

int main(int argc, char **) {
    std::string label = "d";
    double d = __enzyme_autodiff((void *)f, 3.0);
    std::printf("%s %g\n", label.c_str(), d);
    double x = argc > 5 ? 1.0 : -2.0;
    try {
        double g = __enzyme_autodiff((void *)root, x);
        std::printf("FAIL no exception, gradient %g\n", g);
    } catch (const negative &e) {
        std::printf("caught %s %g\n", e.what(), x);
    }
    std::printf("after %g\n", __enzyme_autodiff((void *)root, 0.25));
}
