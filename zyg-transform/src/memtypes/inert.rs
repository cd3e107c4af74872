//! Pointer parameters through which a function reaches no memory (*inert* ones), which the
//! type analysis does not merge with its callers' arguments.
//!
//! The analysis is context-insensitive: a parameter is one object shared by every call, so
//! a function called with two places of one object makes that object repeat with their
//! distance as its period. C++ calls many functions whose `this` they never read: the
//! constructors of empty classes (Eigen's `variable_if_dynamic<long, 3>`, a compile-time
//! size, is called with `this` at bytes 8 and 9 of a `Map`; its `Stride` at bytes 10 and
//! 11), whose merges would make every byte of the object repeat every byte, its floats over
//! its pointers. Such a parameter says nothing of the memory, so skipping its merges loses
//! no fact.

use std::collections::HashSet;
use zyg_ir::{Callee, CastOp, Function, InstKind, Module, Value};

/// The (function, parameter index) pairs of pointer parameters that are inert: every use
/// of the pointer, or of an address computed from it (`getelementptr`, casts between
/// pointers), is a comparison or an argument of a direct call at a parameter that is
/// itself inert. A greatest fixed point: every pointer parameter of a defined function is
/// taken for inert, then those with another use are struck out until nothing changes.
pub(super) fn inert_params(module: &Module) -> HashSet<(String, usize)> {
    let mut inert: HashSet<(String, usize)> = HashSet::new();
    for func in module.functions.iter().filter(|f| !f.is_declaration()) {
        for (i, &p) in func.params.iter().enumerate() {
            if func.ty(p).is_ptr() {
                inert.insert((func.name.clone(), i));
            }
        }
    }
    loop {
        let struck: Vec<(String, usize)> = inert
            .iter()
            .filter(|(name, i)| {
                let func = module.function(name).expect("a defined function");
                !reaches_no_memory(module, func, func.params[*i], &inert)
            })
            .cloned()
            .collect();
        if struck.is_empty() {
            return inert;
        }
        for key in struck {
            inert.remove(&key);
        }
    }
}

/// Whether no use of `ptr` in `func`, nor of the addresses computed from it, reaches memory
/// (as `inert_params` says, with the parameters `inert` holds so far).
fn reaches_no_memory(module: &Module, func: &Function, ptr: Value, inert: &HashSet<(String, usize)>) -> bool {
    let mut work = vec![ptr];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for (_, inst) in func.inst_order() {
            let kind = &func.insts[inst].kind;
            if !kind.operands().contains(&v) {
                continue;
            }
            match kind {
                InstKind::Gep { base, indices, .. } if *base == v && !indices.contains(&v) => {
                    work.extend(func.result(inst));
                }
                InstKind::Cast { op: CastOp::BitCast | CastOp::AddrSpaceCast, .. } => work.extend(func.result(inst)),
                InstKind::ICmp { .. } => {}
                InstKind::Call { callee: Callee::Direct(name), args, .. }
                    if module.function(name).is_some_and(|f| !f.is_declaration()) =>
                {
                    let at_inert = |(i, a): (usize, &Value)| *a != v || inert.contains(&(name.to_string(), i));
                    if !args.iter().enumerate().all(at_inert) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }
    true
}
