//! Type analysis for memory copies made with integers. clang copies a `double` through
//! an `i64` when it sees only bytes moving (`memcpy(&t, a, 8)`, a swap through a union): a
//! load and a store of an integer of the same width. Such a copy still moves a derivative,
//! so before differentiating, zyg gives it the type the type analysis of memory finds for
//! those bytes (`memtypes`): a float, or a pointer (a struct copy moves pointer fields as
//! integers too, and their shadows must move with them); a load and store of another type
//! copy the same bits, so the program does not change. When the analysis does not know the
//! bytes (nothing types them: they are never taken for the function's floats), the copy is
//! left alone and activity analysis reports it if it touches differentiated memory.

use crate::memtypes::{Known, MemTypes};
use cranelift_entity::{EntitySet, SecondaryMap};
use zyg_ir::{CastOp, FloatTy, Function, Inst, InstKind, Module, ScalarKind as Kind, Type, Value};

/// Retypes every integer copy whose bytes the type analysis (`memtypes`) decides, in place.
pub fn retype_integer_copies(module: &mut Module) {
    let types = MemTypes::compute(module);
    for func in &mut module.functions {
        retype_function(func, &types);
    }
}

/// An integer load whose value is only stored (`integer_copies`).
#[derive(Clone, Debug)]
pub struct IntegerCopy {
    /// The loaded value.
    pub value: Value,
    /// Its width.
    pub bits: u32,
    /// The addresses it is stored to.
    pub targets: Vec<Value>,
}

/// Each function's integer loads, with their widths, by loaded value.
fn integer_loads(func: &Function) -> SecondaryMap<Value, Option<(Inst, u32)>> {
    let mut loads = SecondaryMap::new();
    for (_, i) in func.inst_order() {
        if let (InstKind::Load { ty: Type::Int(bits), .. }, Some(v)) = (&func.insts[i].kind, func.result(i)) {
            loads[v] = Some((i, *bits));
        }
    }
    loads
}

/// Integer loads whose values are only stored (the value operand of stores): copies, by load.
pub fn integer_copies(func: &Function) -> SecondaryMap<Inst, Option<IntegerCopy>> {
    let loads = integer_loads(func);
    let is_load = |v: &Value| loads[*v].is_some();
    let mut stores: SecondaryMap<Value, Vec<Value>> = SecondaryMap::new();
    let mut other_use: EntitySet<Value> = EntitySet::new();
    for (_, i) in func.inst_order() {
        match &func.insts[i].kind {
            InstKind::Store { value, ptr } if is_load(value) => {
                stores[*value].push(*ptr);
                other_use.extend(is_load(ptr).then_some(*ptr));
            }
            kind => other_use.extend(kind.operands().into_iter().filter(is_load)),
        }
    }
    let mut copies = SecondaryMap::new();
    for (value, targets) in stores.iter().filter(|(v, ptrs)| !ptrs.is_empty() && !other_use.contains(*v)) {
        let (inst, bits) = loads[value].expect("a stored integer load");
        copies[inst] = Some(IntegerCopy { value, bits, targets: targets.clone() });
    }
    copies
}

/// Integer loads that are floats in disguise: every use stores the bits or makes them a
/// float of the same width again (`bitcast`), with that float type and the bitcasts. (An
/// assignment of a `union { double; long }` whose double is read after.)
fn disguised_floats(func: &Function) -> Vec<(Inst, Value, FloatTy, Vec<Inst>)> {
    let loads = integer_loads(func);
    let is_load = |v: &Value| loads[*v].is_some();
    let mut casts: SecondaryMap<Value, (Option<FloatTy>, Vec<Inst>)> = SecondaryMap::new();
    let mut other_use: EntitySet<Value> = EntitySet::new();
    for (_, i) in func.inst_order() {
        match &func.insts[i].kind {
            InstKind::Store { value, ptr } if is_load(value) && value != ptr => {}
            InstKind::Cast { op: CastOp::BitCast, arg } if is_load(arg) => {
                let width = loads[*arg].map(|(_, bits)| bits);
                let to = func.result(i).and_then(|r| func.ty(r).float_ty()).filter(|f| Some(f.bits()) == width);
                let entry = &mut casts[*arg];
                match (to, entry.0) {
                    (Some(f), None) => entry.0 = Some(f),
                    (Some(f), Some(g)) if f == g => {}
                    _ => {
                        other_use.insert(*arg);
                    }
                }
                entry.1.push(i);
            }
            kind => other_use.extend(kind.operands().into_iter().filter(is_load)),
        }
    }
    casts
        .iter()
        .filter(|(v, (_, bitcasts))| !bitcasts.is_empty() && !other_use.contains(*v))
        .filter_map(|(v, (f, bitcasts))| Some((loads[v]?.0, v, (*f)?, bitcasts.clone())))
        .collect()
}

/// A copy of float bytes becomes a float load and store, a copy of an address a pointer
/// load and store (whose shadow the primal then copies too); a copy of integer bytes stays.
/// A load that is a float in disguise (`disguised_floats`) becomes a float load, and its
/// bitcasts the identity.
fn retype_function(func: &mut Function, types: &MemTypes) {
    for (inst, v, f, bitcasts) in disguised_floats(func) {
        if let InstKind::Load { ty, .. } = &mut func.insts[inst].kind {
            *ty = Type::Float(f);
        }
        func.values[v].ty = Type::Float(f);
        // The bitcasts' users read the float itself; the bitcasts are left unused.
        let mut results: EntitySet<Value> = EntitySet::new();
        results.extend(bitcasts.iter().filter_map(|c| func.result(*c)));
        let users: Vec<Inst> = func.inst_order().map(|(_, i)| i).collect();
        for i in users {
            for operand in func.insts[i].kind.operands_mut() {
                if results.contains(*operand) {
                    *operand = v;
                }
            }
        }
    }
    let mut retyped: Vec<(Inst, Value, Type)> = Vec::new();
    for (inst, IntegerCopy { value: v, bits, .. }) in integer_copies(func).iter().filter_map(|(i, c)| Some((i, c.as_ref()?))) {
        let (v, bits) = (*v, *bits);
        let InstKind::Load { ptr, .. } = &func.insts[inst].kind else { continue };
        let bytes = u64::from(bits.div_ceil(8));
        let ty = match types.at(func, *ptr, bytes) {
            Known::All(Kind::Float(f)) if f.bits() == bits => Type::Float(f),
            Known::All(Kind::Pointer) if bits == 64 => Type::PTR,
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
