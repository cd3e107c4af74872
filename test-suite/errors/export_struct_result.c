// `zyg grad --fn` of a function that returns a struct of floats in registers is refused in
// both modes, naming the function and the type: an exported gradient would not seed the
// struct (before, it exited 0 and every gradient was 0), and a forward export's C type for
// it is not written yet. Nothing is written.
// RUN: rm -f %t.fwd.ll %t.rev.ll
// RUN: %clang -O2 -S -emit-llvm %s -o %t.ll
// RUN: not %zyg grad %t.ll --fn f --mode forward -o %t.fwd.ll 2>&1 | FileCheck --check-prefix=FWD %s
// RUN: not test -e %t.fwd.ll
// RUN: not %zyg grad %t.ll --fn f -o %t.rev.ll 2>&1 | FileCheck --check-prefix=REV %s
// RUN: not test -e %t.rev.ll
// FWD: zyg: error: {{.*}}.ll: --fn f: `f` returns `{ double, double }`; exporting the forward mode of a function that returns a struct is not supported yet; call `__enzyme_fwddiff` in the program
// REV: zyg: error: {{.*}}.ll: --fn f: `f` returns `{ double, double }`; an exported gradient seeds a float result only
typedef struct { double a, b; } pair;
pair f(double x, double y) {
    pair r = {x * y, x + y * y};
    return r;
}
