//! GPU kernels. Many threads run a kernel's adjoint at once, and the adjoints of their
//! loads add into shadow memory: where two threads may add into the same place the adds
//! must be atomic. zyg decides it per pointer: an address `base[i]`, where `i` is the
//! thread's global index (`ctaid.x * ntid.x + tid.x`, however the product and sum are
//! ordered and extended) and every access through `base` uses that same index, belongs to
//! one thread, and its shadow is updated with plain loads and stores; every other shadow
//! update is an `atomicrmw fadd`.

use std::collections::{HashMap, HashSet};
use zyg_ir::{BinOp, Callee, CastOp, Function, InstKind, Value};

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

/// The pointers whose memory only the running thread touches (see the module comment).
pub fn thread_private_pointers(func: &Function) -> HashSet<Value> {
    // For each base: the index values of the GEPs on it, and whether it is used otherwise.
    let mut indices: HashMap<Value, HashSet<Value>> = HashMap::new();
    let mut other_use: HashSet<Value> = HashSet::new();
    let mut geps: Vec<(Value, Value)> = Vec::new();
    for (_, i) in func.inst_order() {
        match &func.insts[i].kind {
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
        .filter(|(_, base)| {
            !other_use.contains(base)
                && indices.get(base).is_some_and(|set| set.len() == 1 && set.iter().all(|i| is_thread_index(func, *i)))
        })
        .map(|(gep, _)| gep)
        .collect()
}
