//! Type analysis for memory copies made with integers. clang copies a `double` through
//! an `i64` when it sees only bytes moving (`memcpy(&t, a, 8)`, a swap through a union): a
//! load and a store of an integer of the same width. Such a copy still moves a derivative,
//! so before differentiating, zyg gives it the type the type analysis of memory finds for
//! those bytes (`memtypes`): a float, or a pointer (a struct copy moves pointer fields as
//! integers too, and their shadows must move with them); a load and store of another type
//! copy the same bits, so the program does not change. When the analysis knows nothing of
//! the bytes, the function's own float accesses decide (one float format); otherwise the
//! copy is left alone and activity analysis reports it if it touches differentiated memory.

use std::collections::{HashMap, HashSet};
use crate::memtypes::{Known, MemTypes};
use zyg_ir::{FloatTy, Function, Inst, InstKind, Module, ScalarKind as Kind, Type, Value};

/// Retypes every integer copy whose bytes the type analysis (`memtypes`) or, failing it,
/// the float accesses of its function decide, in place.
pub fn retype_integer_copies(module: &mut Module) {
    let types = MemTypes::compute(module);
    for func in &mut module.functions {
        retype_function(func, &types);
    }
}

/// The float formats a function loads or stores (vectors by their elements).
pub fn float_accesses(func: &Function) -> HashSet<FloatTy> {
    let mut seen = HashSet::new();
    for (_, i) in func.inst_order() {
        let ty = match &func.insts[i].kind {
            InstKind::Load { ty, .. } => ty.clone(),
            InstKind::Store { value, .. } => func.ty(*value).clone(),
            _ => continue,
        };
        seen.extend(ty.float_elem());
    }
    seen
}

/// Integer loads whose values are only stored (the value operand of stores): copies, with
/// the loaded value, its width and the stores' addresses.
pub fn integer_copies(func: &Function) -> HashMap<Inst, (Value, u32, Vec<Value>)> {
    let mut loads: HashMap<Value, (Inst, u32)> = HashMap::new();
    for (_, i) in func.inst_order() {
        if let (InstKind::Load { ty: Type::Int(bits), .. }, Some(v)) = (&func.insts[i].kind, func.result(i)) {
            loads.insert(v, (i, *bits));
        }
    }
    let mut stores: HashMap<Value, Vec<Value>> = HashMap::new();
    let mut other_use: HashSet<Value> = HashSet::new();
    for (_, i) in func.inst_order() {
        match &func.insts[i].kind {
            InstKind::Store { value, ptr } if loads.contains_key(value) => {
                stores.entry(*value).or_default().push(*ptr);
                other_use.extend(loads.contains_key(ptr).then_some(*ptr));
            }
            kind => other_use.extend(kind.operands().into_iter().filter(|v| loads.contains_key(v))),
        }
    }
    stores
        .into_iter()
        .filter(|(v, _)| !other_use.contains(v))
        .map(|(v, ptrs)| {
            let (inst, bits) = loads[&v];
            (inst, (v, bits, ptrs))
        })
        .collect()
}

/// A copy of float bytes becomes a float load and store, a copy of an address a pointer
/// load and store (whose shadow the primal then copies too); a copy of integer bytes stays.
fn retype_function(func: &mut Function, types: &MemTypes) {
    let formats = float_accesses(func);
    let only = match formats.iter().copied().collect::<Vec<_>>()[..] {
        [only] => Some(only),
        _ => None,
    };
    let mut retyped: Vec<(Inst, Value, Type)> = Vec::new();
    for (inst, (v, bits, _)) in integer_copies(func) {
        let InstKind::Load { ptr, .. } = &func.insts[inst].kind else { continue };
        let bytes = u64::from(bits.div_ceil(8));
        let ty = match types.at(func, *ptr, bytes) {
            Known::All(Kind::Float(f)) if f.bits() == bits => Type::Float(f),
            Known::All(Kind::Pointer) if bits == 64 => Type::PTR,
            Known::Nothing => match only {
                Some(f) if f.bits() == bits => Type::Float(f),
                _ => continue,
            },
            _ => continue,
        };
        retyped.push((inst, v, ty));
    }
    for (inst, v, ty) in retyped {
        if let InstKind::Load { ty: load_ty, .. } = &mut func.insts[inst].kind {
            *load_ty = ty.clone();
        }
        func.values[v].ty = ty;
    }
}
