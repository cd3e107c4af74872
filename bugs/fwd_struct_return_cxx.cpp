// Same bug as fwd_struct_return.c from C++: an operator returning a 16-byte Vec2 by value.
//   clang++-22 -O0 -S -emit-llvm fwd_struct_return_cxx.cpp -o v.ll && zyg grad v.ll -o v.grad.ll \
//     && clang++-22 v.grad.ll -o v.exe && ./v.exe
// prints `C++ Vec2 operator*: 0 (want 6)` at -O0 (6 at -O2).
#include <cstdio>
#include <cmath>
template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);
struct Vec2 { double x, y; Vec2 operator*(double s) const { return {x * s, y * s}; } };
static double f(double s) { Vec2 a{1.0, 2.0}; Vec2 b = a * s; return b.x * b.y; }
int main() { std::printf("C++ Vec2 operator*: %g (want %g)\n", __enzyme_fwddiff<double>((void *)f, 1.5, 1.0), 4 * 1.5); }
