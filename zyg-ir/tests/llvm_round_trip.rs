//! The reader and writer on real clang output: functions read into zyg-ir and written back
//! under a new name compute the same numbers as the originals (run through LLVM's JIT), and
//! the analyses see the loops clang emitted.

#![cfg(feature = "llvm")]

use inkwell::context::Context;
use inkwell::execution_engine::JitFunction;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::targets::{InitializationConfig, Target};
use inkwell::OptimizationLevel;
use std::process::Command;
use zyg_ir::cfg::ControlFlowGraph;
use zyg_ir::dominance::DominatorTree;
use zyg_ir::llvm::{read_functions, write_function};
use zyg_ir::loops::LoopAnalysis;
use zyg_ir::InstKind;

const SOURCE: &str = r#"
#include <math.h>
double poly(double x, int n) {
    double s = 0, t = 1;
    for (int i = 0; i < n; i++) { s += t * sin(x); t *= x; }
    return s;
}
double branches(double x, double y) {
    if (x > y) return x * y - 1.5;
    switch ((int)x) { case 0: return y / 3; case 2: return cos(y); default: break; }
    double z = x;
    while (z > 0.1) z = z * 0.5;
    return z + (y < 0 ? -y : y);
}
float mixed(float a, double b) { return (float)(a * b) + fmodf(a, 1.25f); }
long double wide(long double x) { return x * 0.1L + 3.0L; }
"#;

fn clang_ir(opt: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("t.c");
    std::fs::write(&src, SOURCE).expect("write source");
    let out = dir.path().join("t.ll");
    let status = Command::new("clang-22")
        .args([opt, "-S", "-emit-llvm", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .expect("clang-22 is installed (ci/setup.sh)");
    assert!(status.success());
    std::fs::read_to_string(out).expect("read .ll")
}

#[test]
fn read_write_round_trip_computes_the_same() {
    Target::initialize_native(&InitializationConfig::default()).expect("native target");
    for opt in ["-O0", "-O2"] {
        let context = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range_copy(clang_ir(opt).as_bytes(), "t.ll");
        let module = context.create_module_from_ir(buffer).expect("parse");
        let names: Vec<String> = ["poly", "branches", "mixed", "wide"].iter().map(|s| s.to_string()).collect();
        let read = read_functions(&module, &names);
        assert!(read.unreadable.is_empty(), "{opt}: {:?}", read.unreadable);
        assert_eq!(read.module.functions.len(), 4);
        for f in &read.module.functions {
            let mut copy = f.clone();
            copy.name = format!("copy_{}", f.name);
            write_function(&module, &copy).expect("write");
        }
        module.verify().unwrap_or_else(|e| panic!("{opt}: {e}"));
        let engine = module.create_jit_execution_engine(OptimizationLevel::None).expect("jit");
        type F2 = unsafe extern "C" fn(f64, f64) -> f64;
        type Fi = unsafe extern "C" fn(f64, i32) -> f64;
        type Ff = unsafe extern "C" fn(f32, f64) -> f32;
        // SAFETY: the signatures match the C source above.
        unsafe {
            let (a, b): (JitFunction<Fi>, JitFunction<Fi>) =
                (engine.get_function("poly").unwrap(), engine.get_function("copy_poly").unwrap());
            for (x, n) in [(0.3, 5), (-1.2, 9), (2.0, 0)] {
                assert_eq!(a.call(x, n).to_bits(), b.call(x, n).to_bits(), "{opt} poly");
            }
            let (a, b): (JitFunction<F2>, JitFunction<F2>) =
                (engine.get_function("branches").unwrap(), engine.get_function("copy_branches").unwrap());
            for (x, y) in [(3.0, 1.0), (0.5, 2.0), (2.5, 7.0), (-1.0, -4.0), (9.0, 10.0)] {
                assert_eq!(a.call(x, y).to_bits(), b.call(x, y).to_bits(), "{opt} branches({x}, {y})");
            }
            let (a, b): (JitFunction<Ff>, JitFunction<Ff>) =
                (engine.get_function("mixed").unwrap(), engine.get_function("copy_mixed").unwrap());
            for (x, y) in [(1.5f32, 0.25), (-3.0, 2.0)] {
                assert_eq!(a.call(x, y).to_bits(), b.call(x, y).to_bits(), "{opt} mixed");
            }
        }
    }
}

#[test]
fn analyses_see_clangs_loops() {
    let context = Context::create();
    let buffer = MemoryBuffer::create_from_memory_range_copy(clang_ir("-O2").as_bytes(), "t.ll");
    let module = context.create_module_from_ir(buffer).expect("parse");
    let read = read_functions(&module, &["branches".to_string()]);
    let f = read.module.function("branches").expect("read");
    let cfg = ControlFlowGraph::compute(f);
    let dom = DominatorTree::compute(f, &cfg);
    let loops = LoopAnalysis::compute(f, &cfg, &dom);
    assert_eq!(loops.loops().len(), 1, "one while loop");
    assert!(loops.is_reducible());
    let header = loops.loops()[0].header;
    assert!(f.phis(header).count() >= 1, "the loop carries z in a phi");
    assert!(loops.may_repeat(header));
    assert!(!loops.may_repeat(f.entry().unwrap()));
    assert!(f.inst_order().any(|(_, i)| matches!(f.insts[i].kind, InstKind::Switch { .. })));
    assert!(read.module.declarations.contains_key("llvm.cos.f64") || read.module.declarations.contains_key("cos"));
}
