//! Bodies for library functions whose derivative is easiest to state as code: C99 complex
//! arithmetic, `modf` (which writes a result through a pointer) and `posix_memalign` (an
//! allocation that returns its memory through a pointer). When a module calls one of these
//! without defining it, zyg adds the body
//! here and differentiates it like any other callee; calls that carry no derivative still
//! go to the library. The bodies compute the mathematical value; the libraries' recovery
//! of infinities and NaNs (C99 Annex G) does not change derivatives where they exist.
//! Quotients divide as Smith's algorithm does (by the larger of the divisor's parts), not
//! by `c*c + d*d`, which overflows for a divisor past 1e154 (1e19 in `float`) and
//! underflows below 1e-154: the model's primal would be wrong there, and its derivative 0
//! or NaN (the libraries scale too; both branches are the same function, so either gives
//! the derivative).
//! Written in zyg's text form (`zyg_ir::text`), one function per model.

use zyg_ir::Module;

/// `(name, body)`: complex numbers travel as `{ double, double }` (x86-64: two doubles in,
/// a struct out) or, for `float complex`, `<2 x float>`.
pub static MODELS: &[(&str, &str)] = &[
    (
        "__muldc3",
        "define { double, double } @__muldc3(double %a, double %b, double %c, double %d) {
entry:
  %ac = fmul double %a, %c
  %bd = fmul double %b, %d
  %ad = fmul double %a, %d
  %bc = fmul double %b, %c
  %re = fsub double %ac, %bd
  %im = fadd double %ad, %bc
  %z0 = insertvalue { double, double } zeroinitializer, double %re, 0
  %z1 = insertvalue { double, double } %z0, double %im, 1
  ret { double, double } %z1
}",
    ),
    (
        "__divdc3",
        "define { double, double } @__divdc3(double %a, double %b, double %c, double %d) {
entry:
  %ac = call double @llvm.fabs.f64(double %c)
  %ad = call double @llvm.fabs.f64(double %d)
  %wide = fcmp oge double %ac, %ad
  br i1 %wide, label %by_c, label %by_d
by_c:
  %r1 = fdiv double %d, %c
  %dr1 = fmul double %d, %r1
  %t1 = fadd double %c, %dr1
  %br1 = fmul double %b, %r1
  %ar1 = fmul double %a, %r1
  %n1re = fadd double %a, %br1
  %n1im = fsub double %b, %ar1
  %re1 = fdiv double %n1re, %t1
  %im1 = fdiv double %n1im, %t1
  br label %done
by_d:
  %r2 = fdiv double %c, %d
  %cr2 = fmul double %c, %r2
  %t2 = fadd double %cr2, %d
  %ar2 = fmul double %a, %r2
  %br2 = fmul double %b, %r2
  %n2re = fadd double %ar2, %b
  %n2im = fsub double %br2, %a
  %re2 = fdiv double %n2re, %t2
  %im2 = fdiv double %n2im, %t2
  br label %done
done:
  %re = phi double [ %re1, %by_c ], [ %re2, %by_d ]
  %im = phi double [ %im1, %by_c ], [ %im2, %by_d ]
  %z0 = insertvalue { double, double } zeroinitializer, double %re, 0
  %z1 = insertvalue { double, double } %z0, double %im, 1
  ret { double, double } %z1
}",
    ),
    (
        "__mulsc3",
        "define <2 x float> @__mulsc3(float %a, float %b, float %c, float %d) {
entry:
  %ac = fmul float %a, %c
  %bd = fmul float %b, %d
  %ad = fmul float %a, %d
  %bc = fmul float %b, %c
  %re = fsub float %ac, %bd
  %im = fadd float %ad, %bc
  %z0 = insertelement <2 x float> zeroinitializer, float %re, i32 0
  %z1 = insertelement <2 x float> %z0, float %im, i32 1
  ret <2 x float> %z1
}",
    ),
    (
        "__divsc3",
        "define <2 x float> @__divsc3(float %a, float %b, float %c, float %d) {
entry:
  %ac = call float @llvm.fabs.f32(float %c)
  %ad = call float @llvm.fabs.f32(float %d)
  %wide = fcmp oge float %ac, %ad
  br i1 %wide, label %by_c, label %by_d
by_c:
  %r1 = fdiv float %d, %c
  %dr1 = fmul float %d, %r1
  %t1 = fadd float %c, %dr1
  %br1 = fmul float %b, %r1
  %ar1 = fmul float %a, %r1
  %n1re = fadd float %a, %br1
  %n1im = fsub float %b, %ar1
  %re1 = fdiv float %n1re, %t1
  %im1 = fdiv float %n1im, %t1
  br label %done
by_d:
  %r2 = fdiv float %c, %d
  %cr2 = fmul float %c, %r2
  %t2 = fadd float %cr2, %d
  %ar2 = fmul float %a, %r2
  %br2 = fmul float %b, %r2
  %n2re = fadd float %ar2, %b
  %n2im = fsub float %br2, %a
  %re2 = fdiv float %n2re, %t2
  %im2 = fdiv float %n2im, %t2
  br label %done
done:
  %re = phi float [ %re1, %by_c ], [ %re2, %by_d ]
  %im = phi float [ %im1, %by_c ], [ %im2, %by_d ]
  %z0 = insertelement <2 x float> zeroinitializer, float %re, i32 0
  %z1 = insertelement <2 x float> %z0, float %im, i32 1
  ret <2 x float> %z1
}",
    ),
    (
        "cexp",
        "define { double, double } @cexp(double %x, double %y) {
entry:
  %e = call double @exp(double %x)
  %c = call double @cos(double %y)
  %s = call double @sin(double %y)
  %re = fmul double %e, %c
  %im = fmul double %e, %s
  %z0 = insertvalue { double, double } zeroinitializer, double %re, 0
  %z1 = insertvalue { double, double } %z0, double %im, 1
  ret { double, double } %z1
}",
    ),
    (
        "clog",
        "define { double, double } @clog(double %x, double %y) {
entry:
  %r = call double @hypot(double %x, double %y)
  %re = call double @log(double %r)
  %im = call double @atan2(double %y, double %x)
  %z0 = insertvalue { double, double } zeroinitializer, double %re, 0
  %z1 = insertvalue { double, double } %z0, double %im, 1
  ret { double, double } %z1
}",
    ),
    (
        "cabs",
        "define double @cabs(double %x, double %y) {
entry:
  %r = call double @hypot(double %x, double %y)
  ret double %r
}",
    ),
    (
        "carg",
        "define double @carg(double %x, double %y) {
entry:
  %r = call double @atan2(double %y, double %x)
  ret double %r
}",
    ),
    (
        // Memory handed back through a pointer: a model around `aligned_alloc`, an allocation
        // zyg shadows (`activity::ALLOCATIONS`), whose store of the memory into `*out` then
        // stores its shadow into the shadow of `*out`. POSIX's checks: an alignment that is
        // not a power of two of at least `sizeof(void *)` is EINVAL (22), a failure ENOMEM
        // (12), and `*out` is left alone on failure. The size is rounded up to a multiple of
        // the alignment, as C11's `aligned_alloc` asks.
        "posix_memalign",
        "define i32 @posix_memalign(ptr %out, i64 %align, i64 %size) {
entry:
  %low = sub i64 %align, 1
  %shared = and i64 %align, %low
  %notpow2 = icmp ne i64 %shared, 0
  %small = icmp ult i64 %align, 8
  %invalid = or i1 %small, %notpow2
  br i1 %invalid, label %done, label %alloc
alloc:
  %padded = add i64 %size, %low
  %mask = xor i64 %low, -1
  %rounded = and i64 %padded, %mask
  %memory = call ptr @aligned_alloc(i64 %align, i64 %rounded)
  %failed = icmp eq ptr %memory, null
  br i1 %failed, label %done, label %store
store:
  store ptr %memory, ptr %out
  br label %done
done:
  %status = phi i32 [ 22, %entry ], [ 12, %alloc ], [ 0, %store ]
  ret i32 %status
}",
    ),
];

/// Models written once for the three C float types, as `(name, body)`: `$T` is the type
/// (`double`), `$F` the C name's suffix (`modff`), `$M` the LLVM intrinsics' (`f64`).
///
/// `modf(x, &ip)` returns x's fractional part and writes its integer part through `ip`:
/// as `trunc(x)` and `x - trunc(x)`, both exact, so the values are libm's bit for bit. The
/// fraction takes x's sign, at integers too (-0 for -3), so for a negative x it is computed
/// as -(|x| - |t|); it is ±0 for ±inf (x - t would be inf - inf). Differentiated, the
/// fraction's derivative is 1 (at the integers too, the slope of the pieces on either
/// side), and the integer part's 0: stored as `trunc(x)`, it gives its memory's shadow the
/// derivative 0 (forward mode), and takes the adjoint found there and drops it (reverse).
static TYPED_MODELS: &[(&str, &str)] = &[(
    "modf",
    "declare $T @llvm.trunc.$M($T)
declare $T @llvm.fabs.$M($T)
declare $T @llvm.copysign.$M($T, $T)

define $T @modf$F($T %x, ptr %ip) {
entry:
  %t = call $T @llvm.trunc.$M($T %x)
  store $T %t, ptr %ip
  %sign = call $T @llvm.copysign.$M($T 1.0, $T %x)
  %negative = fcmp olt $T %sign, $T 0.0
  %ax = fneg $T %x
  %at = fneg $T %t
  %afrac = fsub $T %ax, $T %at
  %nfrac = fneg $T %afrac
  %pfrac = fsub $T %x, $T %t
  %frac = select i1 %negative, $T %nfrac, $T %pfrac
  %magnitude = call $T @llvm.fabs.$M($T %x)
  %infinite = fcmp oeq $T %magnitude, $T 0x7FF0000000000000
  %zero = fmul $T %sign, $T 0.0
  %result = select i1 %infinite, $T %zero, $T %frac
  ret $T %result
}",
)];

/// The models of `TYPED_MODELS` for each float type, as `(name, body)`.
fn typed_models() -> impl Iterator<Item = (String, String)> {
    TYPED_MODELS.iter().flat_map(|(name, text)| {
        [("double", "", "f64"), ("float", "f", "f32"), ("x86_fp80", "l", "f80")].map(|(ty, suffix, mangled)| {
            (format!("{name}{suffix}"), text.replace("$T", ty).replace("$F", suffix).replace("$M", mangled))
        })
    })
}

/// Every model, as `(name, body)`.
fn all_models() -> impl Iterator<Item = (String, String)> {
    MODELS.iter().map(|(name, text)| (name.to_string(), text.to_string())).chain(typed_models())
}

/// Adds the model of every library function the module declares (calls without a body).
pub fn add_models(module: &mut Module) {
    for (name, text) in all_models() {
        let name = name.as_str();
        if !module.declarations.contains_key(name) || module.function(name).is_some() {
            continue;
        }
        let model = zyg_ir::text::parse_module(&text).expect("zyg's library models parse");
        module.declarations.remove(name);
        for (callee, sig) in model.declarations {
            module.declarations.entry(callee).or_insert(sig);
        }
        module.functions.extend(model.functions);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_parses_and_defines_its_name() {
        for (name, text) in all_models() {
            let m = zyg_ir::text::parse_module(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(m.function(&name).is_some(), "{name} defines itself");
        }
    }
}
