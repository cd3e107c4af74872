//! Bodies for library functions whose derivative is easiest to state as code: C99 complex
//! arithmetic, and `posix_memalign` (an allocation that returns its memory through a
//! pointer). When a module calls one of these without defining it, zyg adds the body
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

/// Adds the model of every library function the module declares (calls without a body).
pub fn add_models(module: &mut Module) {
    for (name, text) in MODELS {
        if !module.declarations.contains_key(*name) || module.function(name).is_some() {
            continue;
        }
        let model = zyg_ir::text::parse_module(text).expect("zyg's library models parse");
        module.declarations.remove(*name);
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
        for (name, text) in MODELS {
            let m = zyg_ir::text::parse_module(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(m.function(name).is_some(), "{name} defines itself");
        }
    }
}
