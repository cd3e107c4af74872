//! MLIR input and output (README, "MLIR").
//!
//! A `.mlir` module is read with melior (MLIR 22's C API), checked for dialects zyg lowers
//! (func, arith, math, scf, cf, memref, index, affine, and llvm itself), lowered to the LLVM
//! dialect by MLIR's own conversion passes, and translated to LLVM IR directly into zyg's
//! LLVM context. Functions that ask for their gradient with a `zyg.gradient` attribute get
//! a gradient function whose body is an ordinary Enzyme-style request, with the activity
//! markers that map each memref descriptor (exploded into arguments by the lowering) to
//! zyg's argument kinds; so does each `func.call @__zyg_autodiff_NAME(%f, ...)` (or
//! `__zyg_fwddiff_NAME`) that passes memrefs or has `zyg.args`, which is pointed at a
//! gradient function of its own before lowering (`calls`). From there the module takes the
//! same path as a `.ll` input.
//!
//! `-o OUT.mlir` writes the result back as MLIR's LLVM dialect (`import.cpp`, MLIR's C++
//! importer, since the C API only translates the other way).
//!
//! Errors carry MLIR's locations (`FILE:LINE:COL: message`). The lowered functions carry
//! debug locations from the MLIR source too, so zyg's own errors name MLIR lines.

mod calls;
mod export;
mod lower;
mod request;

use crate::error::Result;
use inkwell::context::Context;
use inkwell::module::Module;
use std::path::Path;

pub use export::to_text;

/// Whether `path` names MLIR (by its extension, `.mlir`).
pub fn is_mlir(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "mlir")
}

/// Reads, checks, lowers and translates the MLIR module at `path` into `context`, with each
/// `zyg.gradient` request (and `func.call` request with memrefs) turned into a gradient
/// function that holds an Enzyme-style request.
pub fn read_module<'ctx>(context: &'ctx Context, path: &Path) -> Result<Module<'ctx>> {
    let (module, requests) = lower::read(context, path)?;
    request::add_gradients(&module, &requests, path)?;
    Ok(module)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = r#"
func.func @f(%a: memref<?xf64>, %x: f64, %n: index) -> f64 attributes {zyg.gradient = @df, llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xf64>
  %p = arith.mulf %v, %x : f64
  %s = math.sin %p : f64
  return %s : f64
}
"#;

    fn read(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("m.mlir");
        std::fs::write(&path, text).expect("written");
        (dir, path)
    }

    #[test]
    fn mlir_by_extension() {
        assert!(is_mlir(Path::new("a/b.mlir")));
        assert!(!is_mlir(Path::new("b.ll")) && !is_mlir(Path::new("-")) && !is_mlir(Path::new("mlir")));
    }

    #[test]
    fn gradient_function_follows_the_lowering() {
        let (_dir, path) = read(MODULE);
        let context = Context::create();
        let module = read_module(&context, &path).expect("lowered");
        // f: 5 descriptor fields, x, n; df: the descriptor twice, x, n.
        assert_eq!(module.get_function("f").expect("f").count_params(), 7);
        let df = module.get_function("df").expect("df");
        assert_eq!(df.count_params(), 12);
        assert!(df.get_type().get_return_type().is_some_and(|t| t.is_float_type()));
        let ciface = module.get_function("_mlir_ciface_df").expect("the C interface");
        assert_eq!(ciface.count_params(), 4);
        assert!(!module.get_triple().as_str().to_bytes().is_empty());
        let text = module.print_to_string().to_string();
        assert!(text.contains("@zyg_dup"), "{text}");
        let back = to_text(&module, Path::new("out.mlir")).expect("MLIR text");
        assert!(String::from_utf8_lossy(&back).contains("llvm.func @df("));
    }

    #[test]
    fn call_request_gets_a_gradient_of_its_own() {
        let (_dir, path) = read(
            r#"
func.func @f(%a: memref<?xf64>, %x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xf64>
  %p = arith.mulf %v, %x : f64
  return %p : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64) -> f64, memref<?xf64>, memref<?xf64>, f64) -> f64
func.func @g(%a: memref<?xf64>, %da: memref<?xf64>, %x: f64) -> f64 {
  %f = func.constant @f : (memref<?xf64>, f64) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %a, %da, %x) : ((memref<?xf64>, f64) -> f64, memref<?xf64>, memref<?xf64>, f64) -> f64
  return %d : f64
}
"#,
        );
        let context = Context::create();
        let module = read_module(&context, &path).expect("lowered");
        // The call now calls zyg's gradient function (the descriptor twice, x), internal,
        // whose body is the request with the descriptor's markers.
        let gradient = module.get_function("f.zyg.mlir.call.0").expect("the call's gradient function");
        assert_eq!(gradient.count_params(), 11);
        assert_eq!(gradient.get_linkage(), inkwell::module::Linkage::Internal);
        let text = module.print_to_string().to_string();
        assert!(text.contains("call double @f.zyg.mlir.call.0("), "{text}");
        assert!(!text.contains("call double @__zyg_autodiff_f("), "{text}");
        assert!(text.contains("@__zyg_autodiff.mlir.f.zyg.mlir.call.0(ptr @f, ptr @zyg_dup"), "{text}");
    }

    #[test]
    fn errors_carry_mlir_locations() {
        let (_dir, path) = read("func.func @f(%x: f64) -> f64 {\n  %y = arith.nope %x : f64\n  return %y : f64\n}\n");
        let context = Context::create();
        let Err(error) = read_module(&context, &path) else { panic!("a parse error was expected") };
        let message = error.to_string();
        assert!(message.starts_with(&format!("{}:2:8: ", path.display())), "{message}");
    }
}
