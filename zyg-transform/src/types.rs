//! Type analysis for memory copies made with integers. clang copies a `double` through
//! an `i64` when it sees only bytes moving (`memcpy(&t, a, 8)`, a swap through a union): a
//! load and a store of an integer of the same width. Such a copy still moves a derivative,
//! so before differentiating, zyg gives it the float type of the function's other accesses
//! to memory: a float load and store copy the same bits, so the program does not change.
//! When the function's accesses do not decide it (none, or several float formats), the copy
//! is left alone and activity analysis reports it if it touches differentiated memory.

use std::collections::{HashMap, HashSet};
use zyg_ir::{FloatTy, Function, Inst, InstKind, Module, Type, Value};

/// Retypes every integer copy that the float accesses of its function decide, in place.
pub fn retype_integer_copies(module: &mut Module) {
    for func in &mut module.functions {
        retype_function(func);
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

fn retype_function(func: &mut Function) {
    let formats = float_accesses(func);
    let [only] = formats.iter().copied().collect::<Vec<_>>()[..] else { return };
    let copies: Vec<(Inst, Value)> = integer_copies(func)
        .into_iter()
        .filter(|(_, (_, bits, _))| *bits == only.bits())
        .map(|(i, (v, _, _))| (i, v))
        .collect();
    for (inst, v) in copies {
        if let InstKind::Load { ty, .. } = &mut func.insts[inst].kind {
            *ty = Type::Float(only);
        }
        func.values[v].ty = Type::Float(only);
    }
}
