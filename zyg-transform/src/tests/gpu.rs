//! Which shadow updates of a kernel may skip atomics (`gpu`), on small
//! kernels written in zyg-ir's text form.

use super::common;

use crate::gpu::thread_private_pointers;
use zyg_ir::{Function, GlobalVar, Module, Type, Value};

const KERNELS: &str = r#"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()

define void @k(ptr %x, ptr %y, ptr %z) {
entry:
  %t = call i32 () @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 () @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %n = call i32 () @llvm.nvvm.read.ptx.sreg.ntid.x()
  %bn = mul i32 %n, i32 %b
  %i = add i32 %t, i32 %bn
  %i64 = sext i32 %i to i64
  %t64 = zext i32 %t to i64
  %px = getelementptr float, ptr %x, i64 %i64
  %xi = load float, ptr %px
  %ps = getelementptr float, ptr addrspace(3) @buf, i64 %t64
  store float %xi, ptr addrspace(3) %ps
  %py = getelementptr float, ptr %y, i64 %t64
  store float %xi, ptr %py
  %pz = getelementptr float, ptr %z, i64 %i64
  %pz1 = getelementptr float, ptr %pz, i64 1
  %zi = load float, ptr %pz1
  store float %zi, ptr %pz
  ret void
}

define void @k2(ptr %x) {
entry:
  %t = call i32 () @llvm.nvvm.read.ptx.sreg.tid.x()
  %ty = call i32 () @llvm.nvvm.read.ptx.sreg.tid.y()
  %t64 = zext i32 %t to i64
  %ps = getelementptr float, ptr addrspace(3) @buf2, i64 %t64
  store float 1.0, ptr addrspace(3) %ps
  ret void
}

define void @k4() {
entry:
  %t = call i32 () @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %t to i64
  %ps = getelementptr float, ptr addrspace(3) @dyn, i64 %t64
  store float 1.0, ptr addrspace(3) %ps
  ret void
}

define void @k3(ptr %x, ptr %y, i32 %w, i32 %h) {
entry:
  %tx = call i32 () @llvm.nvvm.read.ptx.sreg.tid.x()
  %bx = call i32 () @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nx = call i32 () @llvm.nvvm.read.ptx.sreg.ntid.x()
  %ty = call i32 () @llvm.nvvm.read.ptx.sreg.tid.y()
  %by = call i32 () @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %ny = call i32 () @llvm.nvvm.read.ptx.sreg.ntid.y()
  %ox = mul i32 %bx, i32 %nx
  %col = add i32 %ox, i32 %tx
  %oy = mul i32 %ny, i32 %by
  %row = add i32 %ty, i32 %oy
  %rw = mul i32 %w, i32 %row
  %i = add i32 %rw, i32 %col
  %i64 = zext i32 %i to i64
  %py0 = getelementptr float, ptr %y, i64 %i64
  store float 0.0, ptr %py0
  %inrow = icmp slt i32 %row, i32 %h
  %incol = icmp slt i32 %col, i32 %w
  %inside = select i1 %inrow, i1 %incol, i1 false
  br i1 %inside, label %body, label %exit
body:
  %px = getelementptr float, ptr %x, i64 %i64
  %xi = load float, ptr %px
  store float %xi, ptr %py0
  br label %exit
exit:
  ret void
}
"#;

fn module() -> Module {
    let mut m = common::module_of(KERNELS);
    let shared = |ty| GlobalVar { ty, constant: false, addrspace: 3, inactive: false, points_to: vec![] };
    m.globals.insert("buf".into(), shared(Type::Array(256, std::sync::Arc::new(Type::F32))));
    m.globals.insert("buf2".into(), shared(Type::Array(256, std::sync::Arc::new(Type::F32))));
    m.globals.insert("dyn".into(), shared(Type::Array(0, std::sync::Arc::new(Type::F32))));
    m
}

/// The results of the function's `getelementptr`s, in layout order.
fn geps(f: &Function) -> Vec<Value> {
    f.inst_order().filter(|(_, i)| f.insts[*i].kind.opcode_name() == "getelementptr").filter_map(|(_, i)| f.result(i)).collect()
}

#[test]
fn private_places_are_the_thread_index_into_an_object_or_tid_into_shared_memory() {
    let m = module();
    let f = m.function("k").expect("k");
    let private = thread_private_pointers(&m, f);
    let [px, ps, py, pz, pz1] = geps(f).try_into().expect("five geps");
    assert!(private.contains(px), "x[ctaid.x * ntid.x + tid.x] belongs to the thread");
    assert!(private.contains(ps), "shared buf[tid.x] belongs to the thread (one copy per block)");
    assert!(!private.contains(py), "global y[tid.x] is touched by the same tid.x of every block");
    assert!(!private.contains(pz), "z[i] is also (z + i - 1)[1] of the thread before");
    assert!(!private.contains(pz1), "an address computed from another is not an object's start");
}

#[test]
fn tid_x_tells_no_threads_apart_in_a_kernel_that_reads_y() {
    let m = module();
    let f = m.function("k2").expect("k2");
    assert!(thread_private_pointers(&m, f).is_empty(), "tid.x does not tell the threads of a 2D block apart");
}

#[test]
fn a_2d_index_is_private_where_col_is_below_the_row_width() {
    let m = module();
    let f = m.function("k3").expect("k3");
    let private = thread_private_pointers(&m, f);
    let [py0, px] = geps(f).try_into().expect("two geps");
    assert!(private.contains(px), "x[row * w + col] under `row < h && col < w` belongs to the thread");
    assert!(!private.contains(py0), "y[row * w + col] before the guard: col >= w wraps into the next row");
}

#[test]
fn dynamic_shared_memory_is_never_private() {
    // Its names alias (`extern __shared__ float a[]; extern __shared__ double b[];` start at
    // the same place): `a[tid.x]` may be another thread's `b[tid.x / 2]`.
    let m = module();
    let f = m.function("k4").expect("k4");
    assert!(thread_private_pointers(&m, f).is_empty(), "dyn[tid.x] may be touched through another name");
}

const CALLS: &str = r#"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define float @right(i64 %t) {
entry:
  %t1 = add i64 %t, i64 1
  %p = getelementptr float, ptr addrspace(3) @buf, i64 %t1
  %v = load float, ptr addrspace(3) %p
  ret float %v
}

define void @own(ptr %x) {
entry:
  %t = call i32 () @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 () @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %n = call i32 () @llvm.nvvm.read.ptx.sreg.ntid.x()
  %bn = mul i32 %n, i32 %b
  %i = add i32 %t, i32 %bn
  %i64 = sext i32 %i to i64
  %px = getelementptr float, ptr %x, i64 %i64
  store float 1.0, ptr %px
  ret void
}

define void @k(ptr %x) {
entry:
  %t = call i32 () @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %t to i64
  %ps = getelementptr float, ptr addrspace(3) @buf, i64 %t64
  %v = load float, ptr addrspace(3) %ps
  %r = call float (i64) @right(i64 %t64)
  call void (ptr) @own(ptr %x)
  ret void
}
"#;

#[test]
fn an_object_another_function_touches_is_nobody_s_own() {
    let mut m = common::module_of(CALLS);
    let buf = GlobalVar {
        ty: Type::Array(64, std::sync::Arc::new(Type::F32)),
        constant: false,
        addrspace: 3,
        inactive: false,
        points_to: vec![],
    };
    m.globals.insert("buf".into(), buf);
    let k = m.function("k").expect("k");
    assert!(thread_private_pointers(&m, k).is_empty(), "buf[tid.x] here, buf[tid.x + 1] in a callee: a neighbour's too");
    let own = m.function("own").expect("own");
    assert!(thread_private_pointers(&m, own).is_empty(), "x[i] of a parameter: the caller may touch x elsewhere");
}
