// A `catch` inside the function to differentiate that goes on with the function's normal
// code (it does not rethrow) is refused, naming the handler: which path the adjoint must
// reverse would then depend on where the exception came from, which zyg does not record.
// RUN: rm -f %t.out.ll
// RUN: %clangxx -O0 -g -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll -o %t.out.ll 2>&1 | FileCheck %s
// RUN: not test -e %t.out.ll
// CHECK: zyg: error: {{.*}}.ll: in function `_Z4lossd`{{.*}}an exception handler here goes on into the function's normal path (a `catch` that does not rethrow), which zyg does not differentiate yet; catch the exception outside the function to differentiate, or rethrow it
#include <stdexcept>
extern "C" double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double checked(double x) {
    if (x > 10)
        throw std::range_error("x");
    return x * x;
}

double loss(double x) {
    double y;
    try {
        y = checked(x);
    } catch (const std::range_error &) {
        y = 100;
    }
    return y * x;
}

int main() { return __enzyme_autodiff((void *)loss, 2.0) > 0; }
