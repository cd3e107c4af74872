//! The digamma function ψ = Γ'/Γ, which the derivatives of `lgamma` and `tgamma` need and
//! the C library lacks: a helper function per float type, written in zyg's text form and
//! added beside the generated code of any function whose rules call it (rules name it
//! `digamma`; `emit::math_call` calls `helper_name`).
//!
//! The method (Abramowitz and Stegun 6.3.7, 6.3.5, 6.3.18): for x < 0 the reflection
//! ψ(x) = ψ(1 - x) - π·cot(πx), with cot's argument reduced to x - round(x) first (exact),
//! so that it stays accurate next to the poles; then the recurrence ψ(y) = ψ(y + 1) - 1/y
//! up to y >= 10 (16 for x86_fp80), and the asymptotic series
//! ψ(y) ~ ln y - 1/(2y) - Σ B(2k)/(2k·y^(2k)) through y^-14, whose first omitted term is
//! below 2e-17 of ψ(y) at y = 10 (5e-21 at 16 for x86_fp80). Near ψ's root (1.4616...) the
//! error is absolute, about 1e-16. At the poles, 0 and the negative integers, the result is
//! infinite (-inf at +0, +inf at -0, the limits from the right and left), and NaN for NaN
//! and -inf.

use zyg_ir::{FloatTy, Function, Type};

/// The family name rules call (`expr::call("digamma", ..)`).
pub const NAME: &str = "digamma";

/// The helper's name for floats of `ty`: `__<ns>_digamma_double`.
pub fn helper_name(namespace: &str, ty: FloatTy) -> String {
    format!("__{namespace}_digamma_{}", ty.name())
}

/// Whether a rule's adjoints call digamma.
pub fn is_called(adjoints: &[Option<super::expr::E>]) -> bool {
    let mut called = false;
    for e in adjoints.iter().flatten() {
        e.visit_calls(&mut |name, _| called |= name == NAME);
    }
    called
}

/// The helper for floats of `ty` (`helper_name`).
pub fn helper(namespace: &str, ty: FloatTy) -> Function {
    let (threshold, pi, tan) = match ty {
        FloatTy::F32 => ("10.0", "3.141592653589793", "tanf"),
        FloatTy::F64 => ("10.0", "3.141592653589793", "tan"),
        // π to x87's 64 bits (0xC90FDAA22168C234C4C6... rounded up).
        FloatTy::X86Fp80 => ("16.0", "0xK4000C90FDAA22168C235", "tanl"),
    };
    let mangled = Type::Float(ty).mangled().expect("a float type");
    let text = TEMPLATE
        .replace("$NAME", &helper_name(namespace, ty))
        .replace("$THRESHOLD", threshold)
        .replace("$PI", pi)
        .replace("$TAN", tan)
        .replace("$M", &mangled)
        .replace("$T", ty.name());
    let module = zyg_ir::text::parse_module(&text).expect("the digamma helper parses");
    let mut f = module.functions.into_iter().next().expect("the digamma helper defines one function");
    f.linkage = zyg_ir::Linkage::Internal;
    f
}

/// ψ(x) for `$T`. The series' coefficients are B(2k)/(2k): 1/12, -1/120, 1/252, -1/240,
/// 1/132, -691/32760, 1/12, evaluated by Horner's rule in w = 1/y².
const TEMPLATE: &str = "declare $T @$TAN($T)
declare $T @llvm.round.$M($T)
declare $T @llvm.log.$M($T)

define $T @$NAME($T %x) {
entry:
  %negative = fcmp olt $T %x, $T 0.0
  br i1 %negative, label %reflect, label %shift
reflect:
  %nearest = call $T @llvm.round.$M($T %x)
  %offset = fsub $T %x, $T %nearest
  %angle = fmul $T %offset, $T $PI
  %tangent = call $T @$TAN($T %angle)
  %cot = fdiv $T $PI, $T %tangent
  %mirror = fsub $T 1.0, $T %x
  br label %shift
shift:
  %y = phi $T [ %x, %entry ], [ %mirror, %reflect ]
  %reflection = phi $T [ 0.0, %entry ], [ %cot, %reflect ]
  br label %head
head:
  %v = phi $T [ %y, %shift ], [ %v.next, %step ]
  %sum = phi $T [ 0.0, %shift ], [ %sum.next, %step ]
  %small = fcmp olt $T %v, $T $THRESHOLD
  br i1 %small, label %step, label %series
step:
  %inverse = fdiv $T 1.0, $T %v
  %sum.next = fadd $T %sum, $T %inverse
  %v.next = fadd $T %v, $T 1.0
  br label %head
series:
  %v.last = phi $T [ %v, %head ]
  %sum.last = phi $T [ %sum, %head ]
  %r = fdiv $T 1.0, $T %v.last
  %w = fmul $T %r, $T %r
  %p6 = fmul $T %w, $T 0.08333333333333333
  %q6 = fsub $T 0.021092796092796094, $T %p6
  %p5 = fmul $T %w, $T %q6
  %q5 = fsub $T 0.007575757575757576, $T %p5
  %p4 = fmul $T %w, $T %q5
  %q4 = fsub $T 0.004166666666666667, $T %p4
  %p3 = fmul $T %w, $T %q4
  %q3 = fsub $T 0.003968253968253968, $T %p3
  %p2 = fmul $T %w, $T %q3
  %q2 = fsub $T 0.008333333333333333, $T %p2
  %p1 = fmul $T %w, $T %q2
  %q1 = fsub $T 0.08333333333333333, $T %p1
  %tail = fmul $T %w, $T %q1
  %log = call $T @llvm.log.$M($T %v.last)
  %half = fmul $T %r, $T 0.5
  %a = fsub $T %log, $T %half
  %b = fsub $T %a, $T %tail
  %c = fsub $T %b, $T %sum.last
  %psi = fsub $T %c, $T %reflection
  ret $T %psi
}
";
