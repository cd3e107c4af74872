//! GPU kernels. Many threads run a kernel's adjoint at once, and the adjoints of their
//! loads add into shadow memory: where two threads may add into the same place the adds
//! must be atomic. zyg decides it per pointer: an address `base[i]` belongs to one thread,
//! and its shadow is updated with plain loads and stores, when
//!
//! - `base` is where an object starts (a parameter or a global, not an address computed
//!   from another: `(x + 1)[i]` is `x[i + 1]`, which thread `i + 1` may touch as `x[i]`),
//!   every access through `base` is such a `base[i]` with the same `i`, and `base` has no
//!   other use (no copy of it escapes the analysis);
//! - `i` is the thread's global index (`ctaid.x * ntid.x + tid.x`, however the product and
//!   sum are ordered and extended), or, for an array in shared memory (address space 3, one
//!   copy per block), the index within the block, `tid.x`, as well;
//! - and the launch is one-dimensional: a kernel that reads a y or z index or size
//!   (`tid.y`, `ctaid.z`...) gets no thread-private pointers, since `tid.x` no longer tells
//!   its threads apart. (A 1D kernel launched on a 2D grid runs each thread's work several
//!   times, racing in the primal already.)
//!
//! Every other shadow update is an `atomicrmw fadd`: on shared memory these are cheap, and
//! a shared array read at a neighbour's index (`buf[t + s]`, `tile[t - 1]`) needs them.
//! The adjoint of a store (take the shadow, zero it) stays a plain load and store: in a
//! race-free kernel one thread writes a place between two barriers, and the replayed
//! barriers order the other threads' adds into it before or after.
//!
//! Shared memory's shadows are shared arrays the gradient zeroes first (`zero_shared_shadows`).

use crate::builder::Cursor;
use std::collections::{BTreeSet, HashMap, HashSet};
use zyg_ir::{BinOp, Callee, CastOp, Constant, Function, InstKind, IntPred, Module, Signature, Type, Value, SHARED_MEMORY};

fn sreg(func: &Function, v: Value, which: &str) -> bool {
    let Some(i) = func.def_inst(v) else { return false };
    matches!(&func.insts[i].kind, InstKind::Call { callee: Callee::Direct(n), .. }
        if n.strip_prefix("llvm.nvvm.read.ptx.sreg.") == Some(which))
}

/// Looks through integer extensions.
fn strip(func: &Function, mut v: Value) -> Value {
    while let Some(i) = func.def_inst(v) {
        match &func.insts[i].kind {
            InstKind::Cast { op: CastOp::SExt | CastOp::ZExt, arg } => v = *arg,
            _ => break,
        }
    }
    v
}

/// `ctaid.x * ntid.x + tid.x` in any order (extensions allowed around each part).
pub fn is_thread_index(func: &Function, v: Value) -> bool {
    let v = strip(func, v);
    let Some(i) = func.def_inst(v) else { return false };
    let InstKind::Binary { op: BinOp::Add, args } = &func.insts[i].kind else { return false };
    let is_block_offset = |x: Value| {
        let x = strip(func, x);
        let Some(j) = func.def_inst(x) else { return false };
        let InstKind::Binary { op: BinOp::Mul, args } = &func.insts[j].kind else { return false };
        let (a, b) = (strip(func, args[0]), strip(func, args[1]));
        (sreg(func, a, "ctaid.x") && sreg(func, b, "ntid.x")) || (sreg(func, a, "ntid.x") && sreg(func, b, "ctaid.x"))
    };
    let (a, b) = (strip(func, args[0]), strip(func, args[1]));
    (sreg(func, a, "tid.x") && is_block_offset(b)) || (sreg(func, b, "tid.x") && is_block_offset(a))
}

/// `i` identifies the running thread among those that can reach `base` (module comment).
fn owns(func: &Function, base: Value, i: Value) -> bool {
    is_thread_index(func, i) || (*func.ty(base) == Type::Ptr(SHARED_MEMORY) && sreg(func, strip(func, i), "tid.x"))
}

/// Reads a thread or block index or size in the y or z dimension.
fn reads_y_or_z(func: &Function) -> bool {
    func.inst_order().any(|(_, i)| {
        matches!(&func.insts[i].kind, InstKind::Call { callee: Callee::Direct(n), .. }
            if n.strip_prefix("llvm.nvvm.read.ptx.sreg.").is_some_and(|r| r.ends_with(".y") || r.ends_with(".z")))
    })
}

/// The pointers whose memory only the running thread touches (see the module comment).
pub fn thread_private_pointers(func: &Function) -> HashSet<Value> {
    if reads_y_or_z(func) {
        return HashSet::new();
    }
    // For each base: the index values of the GEPs on it, and whether it is used otherwise;
    // and the pointers other addresses are computed from (`&base[i] + 1` is a neighbour's).
    let mut indices: HashMap<Value, HashSet<Value>> = HashMap::new();
    let mut other_use: HashSet<Value> = HashSet::new();
    let mut derived_from: HashSet<Value> = HashSet::new();
    let mut geps: Vec<(Value, Value)> = Vec::new();
    for (_, i) in func.inst_order() {
        let kind = &func.insts[i].kind;
        match kind {
            InstKind::Gep { base, .. } | InstKind::Cast { arg: base, .. } => {
                derived_from.insert(*base);
            }
            _ => {}
        }
        match kind {
            InstKind::Gep { base, indices: idx, .. } if idx.len() == 1 => {
                indices.entry(*base).or_default().insert(idx[0]);
                if let Some(r) = func.result(i) {
                    geps.push((r, *base));
                }
            }
            kind => other_use.extend(kind.operands().into_iter().filter(|v| func.ty(*v).is_ptr())),
        }
    }
    geps.into_iter()
        .filter(|(gep, base)| {
            func.def_inst(*base).is_none()
                && !derived_from.contains(gep)
                && !other_use.contains(base)
                && indices.get(base).is_some_and(|set| set.len() == 1 && set.iter().all(|i| owns(func, *base, *i)))
        })
        .map(|(gep, _)| gep)
        .collect()
}

/// The shared-memory globals with shadows (`Module::active_global`) that `function`, or a
/// function it calls directly (transitively), refers to.
pub fn shared_globals_reached(module: &Module, function: &str) -> BTreeSet<String> {
    let (mut seen, mut todo, mut shared) = (HashSet::new(), vec![function.to_string()], BTreeSet::new());
    while let Some(name) = todo.pop() {
        let Some(func) = module.function(&name).filter(|_| seen.insert(name.clone())) else { continue };
        for (_, inst) in func.inst_order() {
            for v in func.insts[inst].kind.operands() {
                let Some(Constant::Global(g, _)) = func.constant(v) else { continue };
                if module.function(g).is_some() {
                    todo.push(g.clone());
                } else if module.active_global(g).is_some_and(|g| g.is_shared()) {
                    shared.insert(g.clone());
                }
            }
        }
        // Direct callees are not operands.
        for (_, inst) in func.inst_order() {
            if let InstKind::Call { callee: Callee::Direct(callee), .. } = &func.insts[inst].kind {
                todo.push(callee.to_string());
            }
        }
    }
    shared
}

/// Zeroes the shared-memory shadows `shadows` (name, type), then waits at a barrier so that
/// no thread adds into them before all are zero. The block's threads share the work: thread
/// `tid.x` zeroes 32-bit words `tid.x`, `tid.x + ntid.x`, ... (every type with floats in it
/// is a whole number of words). In a 2D or 3D block, threads with the same `tid.x` zero the
/// same words: redundant, and still correct. Every thread of the block must get here, as at
/// a `__syncthreads()`: the gradient of a kernel starts here.
pub fn zero_shared_shadows(c: &mut Cursor, shadows: &[(String, Type)]) {
    if shadows.is_empty() {
        return;
    }
    let sreg = |c: &mut Cursor, which: &str| {
        let v = c.call(&format!("llvm.nvvm.read.ptx.sreg.{which}"), Signature::new(vec![], Type::I32), vec![]);
        c.cast(CastOp::ZExt, v.expect("a special register"), Type::I64)
    };
    let (tid, ntid) = (sreg(c, "tid.x"), sreg(c, "ntid.x"));
    for (name, ty) in shadows {
        let base = c.constant(Constant::Global(name.clone(), SHARED_MEMORY));
        let bytes = c.size_of(ty);
        let four = c.i64(4);
        let words = c.binary(BinOp::UDiv, bytes, four);
        let (before, check, body, next) =
            (c.block, c.func.create_block(None), c.func.create_block(None), c.func.create_block(None));
        c.br(check);
        c.switch_to(check);
        let k = c.emit(InstKind::Phi { incoming: vec![(before, tid)] }, Type::I64).expect("a phi");
        let inside = c.icmp(IntPred::Ult, k, words);
        c.cond_br(inside, body, next);
        c.switch_to(body);
        let word = c
            .emit(InstKind::Gep { source_ty: Type::I32, base, indices: vec![k], inbounds: true }, Type::Ptr(SHARED_MEMORY))
            .expect("a pointer");
        let zero = c.i32(0);
        c.store(zero, word);
        let k_next = c.binary(BinOp::Add, k, ntid);
        c.br(check);
        let phi = c.func.def_inst(k).expect("the phi");
        if let InstKind::Phi { incoming } = &mut c.func.insts[phi].kind {
            incoming.push((body, k_next));
        }
        c.switch_to(next);
    }
    let all = c.i32(0);
    c.call(BARRIER, Signature::new(vec![Type::I32], Type::Void), vec![all]);
}

/// `__syncthreads()` as clang 22 writes it (barrier 0, all threads of the block).
pub const BARRIER: &str = "llvm.nvvm.barrier.cta.sync.aligned.all";
