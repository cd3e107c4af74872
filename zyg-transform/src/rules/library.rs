//! Bodies for library functions whose derivative is easiest to state as code: C99 complex
//! arithmetic. When a module calls one of these without defining it, zyg adds the body
//! here and differentiates it like any other callee; calls that carry no derivative still
//! go to the library. The bodies compute the mathematical value; the libraries' recovery
//! of infinities and NaNs (C99 Annex G) does not change derivatives where they exist.
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
  %cc = fmul double %c, %c
  %dd = fmul double %d, %d
  %den = fadd double %cc, %dd
  %ac = fmul double %a, %c
  %bd = fmul double %b, %d
  %bc = fmul double %b, %c
  %ad = fmul double %a, %d
  %nre = fadd double %ac, %bd
  %nim = fsub double %bc, %ad
  %re = fdiv double %nre, %den
  %im = fdiv double %nim, %den
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
  %cc = fmul float %c, %c
  %dd = fmul float %d, %d
  %den = fadd float %cc, %dd
  %ac = fmul float %a, %c
  %bd = fmul float %b, %d
  %bc = fmul float %b, %c
  %ad = fmul float %a, %d
  %nre = fadd float %ac, %bd
  %nim = fsub float %bc, %ad
  %re = fdiv float %nre, %den
  %im = fdiv float %nim, %den
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
