//! Floats kept in integers: `bitcast double %x to i64`, the bits read from memory as an
//! integer (`memcpy` into a `uint64_t`, a union, SIMD `andnot` with -0.0), passed around
//! and made a float again. Within one function LLVM's instcombine folds a round trip that
//! changes nothing, so what is left crosses something zyg cannot follow as a derivative:
//! integer arithmetic on the bits, a call, a return, memory.
//!
//! An integer *holds bits* when it is a `bitcast` of an active float (*strong*), an integer
//! load from differentiated memory (strong where the type analysis says the bytes may be a
//! float, *weak* where it says integer: it may still be a float's bytes the program only
//! ever reads as an integer), the result of a function that returns bits, or computed from
//! any of those. Bits may be inspected (compared, counted, hashed, used as an index,
//! converted with `sitofp`): that is piecewise constant in the float, so no derivative is
//! lost. zyg refuses the ways back to a float: a `bitcast` to a float, a store into bytes
//! that may hold floats, a call that makes the parameter a float again
//! (`BitSummaries::reinterprets`), and, for strong bits, a call to a function without a
//! body or a store into memory zyg does not differentiate (from where they could come back
//! unseen). An integer field's value copied into another integer field stays fine.

use crate::error::TransformError;
use crate::memtypes::MemTypes;
use cranelift_entity::{EntitySet, SecondaryMap};
use std::collections::HashSet;
use zyg_ir::{Callee, CastOp, Function, Inst, InstKind, Module, Type, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Bits {
    /// Read from memory the type analysis takes for integers.
    Weak,
    /// A float's, surely.
    Strong,
}

/// The integers of a function that hold float bits, and how surely.
#[derive(Default)]
struct BitValues {
    of: SecondaryMap<Value, Option<Bits>>,
    any: bool,
}

impl BitValues {
    fn get(&self, v: Value) -> Option<Bits> {
        self.of[v]
    }

    fn holds(&self, v: Value) -> bool {
        self.of[v].is_some()
    }

    /// `v` holds bits at least as surely as `b`; whether that is news.
    fn raise(&mut self, v: Value, b: Bits) -> bool {
        if self.of[v].is_some_and(|old| old >= b) {
            return false;
        }
        self.of[v] = Some(b);
        self.any = true;
        true
    }

    fn is_empty(&self) -> bool {
        !self.any
    }
}

/// What functions do with float bits across their boundary, for the module.
#[derive(Debug, Default)]
pub struct BitSummaries {
    /// Functions whose integer result may be computed from the bits of a float.
    returns_bits: HashSet<String>,
    /// Integer parameters a function may turn back into a float: by a `bitcast`, a store
    /// into bytes that may hold floats, returning it, or passing it to such a parameter or to
    /// a function without a body.
    reinterprets: HashSet<(String, usize)>,
}

impl BitSummaries {
    pub fn compute(module: &Module, memory: &MemTypes) -> BitSummaries {
        let mut s = BitSummaries::default();
        let defined: Vec<&Function> = module.functions.iter().filter(|f| !f.is_declaration()).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for f in &defined {
                if !s.returns_bits.contains(&f.name) {
                    let mut floats = EntitySet::new();
                    floats.extend(values(f).filter(|v| f.ty(*v).float_elem().is_some()));
                    let loads = |p: Value, size: u64| load_bits(memory, f, p, size);
                    let bits = s.bits(f, &floats, &EntitySet::new(), &floats, &loads);
                    if f.inst_order().any(|(_, i)| matches!(f.insts[i].kind, InstKind::Ret { value: Some(v) } if bits.holds(v))) {
                        s.returns_bits.insert(f.name.clone());
                        changed = true;
                    }
                }
                for (i, &p) in f.params.iter().enumerate() {
                    if f.ty(p).is_int() && !s.reinterprets.contains(&(f.name.clone(), i)) && s.turns_back(module, memory, f, p) {
                        s.reinterprets.insert((f.name.clone(), i));
                        changed = true;
                    }
                }
            }
        }
        s
    }

    /// Whether integer parameter `p` of `f` may become a float again.
    fn turns_back(&self, module: &Module, memory: &MemTypes, f: &Function, p: Value) -> bool {
        let mut taint = BitValues::default();
        taint.raise(p, Bits::Strong);
        let mut grew = true;
        while grew {
            grew = false;
            for (_, inst) in f.inst_order() {
                let Some(r) = f.result(inst).filter(|r| f.ty(*r).is_int() && !taint.holds(*r)) else { continue };
                if !matches!(f.insts[inst].kind, InstKind::Call { .. })
                    && f.insts[inst].kind.operands().iter().any(|v| taint.holds(*v))
                {
                    taint.raise(r, Bits::Strong);
                    grew = true;
                }
            }
        }
        f.inst_order().any(|(_, inst)| match &f.insts[inst].kind {
            InstKind::Ret { value: Some(value) } => taint.holds(*value),
            kind => self.turned_back(module, memory, f, inst, kind, &taint, &EntitySet::new(), &|_| true).is_some(),
        })
    }

    /// How `inst` turns an integer holding bits back into a float, if it does.
    #[allow(clippy::too_many_arguments)]
    fn turned_back(
        &self,
        module: &Module,
        memory: &MemTypes,
        f: &Function,
        inst: Inst,
        kind: &InstKind,
        bits: &BitValues,
        silent: &EntitySet<Inst>,
        shadowed: &dyn Fn(Value) -> bool,
    ) -> Option<&'static str> {
        let holds = |v: &Value| bits.holds(*v);
        match kind {
            InstKind::Cast { op: CastOp::BitCast, arg } if holds(arg) && yields_float(f, inst) => {
                Some("this makes a float from the bits of an active value that went through an integer")
            }
            InstKind::Store { value, ptr } if holds(value) => {
                let size = f.ty(*value).natural_layout().map_or(8, |(s, _)| s);
                if floaty(memory, f, *ptr, size) {
                    Some("this stores the bits of an active value as an integer where a float may be")
                } else if bits.get(*value) == Some(Bits::Strong) && !shadowed(*ptr) {
                    Some("this stores the bits of an active value as an integer into memory zyg does not differentiate")
                } else {
                    None
                }
            }
            InstKind::Call { .. } if silent.contains(inst) => None,
            // `llvm.assume` of a test on the bits and its kin make nothing of them.
            InstKind::Call { callee: Callee::Direct(g), .. } if crate::checkpoint::harmless_intrinsic(g) => None,
            // An allocation function reads its integers as sizes (and alignments), never as
            // a float: Eigen's `aligned_malloc(rows * cols * 8)`, where the sizes are read
            // from an object the type analysis cannot tell from its floats.
            kind if crate::activity::is_allocation(kind) => None,
            InstKind::Call { callee, args, .. } => {
                let defined = |g: &str| module.function(g).is_some_and(|g| !g.is_declaration());
                let back = args.iter().enumerate().any(|(j, a)| match (bits.get(*a), callee) {
                    (None, _) => false,
                    (Some(_), Callee::Direct(g)) if defined(g) => self.reinterprets.contains(&(g.to_string(), j)),
                    (Some(strength), _) => strength == Bits::Strong,
                });
                if back && matches!(callee, Callee::Direct(g) if &**g == crate::rules::openmp::FORK) {
                    return Some(
                        "an OpenMP parallel region captures a float with a derivative by value (`firstprivate`, \
                         passed as an integer's bits), which is not supported yet; leave the variable shared (the \
                         default for variables declared outside the region)",
                    );
                }
                back.then_some("this passes the bits of an active value as an integer to a call that may make them a float again")
            }
            _ => None,
        }
    }

    /// The integers of `func` that hold float bits (module comment): from `bitcast`s of
    /// `varied` floats, integer loads `loads` says may read a float's bytes, calls given one
    /// of `given` (`silent` calls, and functions that return bits), and what is computed
    /// from them.
    fn bits(
        &self,
        func: &Function,
        varied: &EntitySet<Value>,
        silent: &EntitySet<Inst>,
        given: &EntitySet<Value>,
        loads: &dyn Fn(Value, u64) -> Option<Bits>,
    ) -> BitValues {
        let mut bits = BitValues::default();
        let mut changed = true;
        while changed {
            changed = false;
            for (_, inst) in func.inst_order() {
                let Some(result) = func.result(inst).filter(|r| is_int(func, *r)) else { continue };
                let found = match &func.insts[inst].kind {
                    InstKind::Cast { op: CastOp::BitCast, arg } if varied.contains(*arg) => Some(Bits::Strong),
                    InstKind::Load { ty, ptr } => ty.natural_layout().and_then(|(size, _)| loads(*ptr, size)),
                    InstKind::Call { callee, args, .. } => {
                        let returns_bits = matches!(callee, Callee::Direct(g) if self.returns_bits.contains(&**g));
                        ((silent.contains(inst) || returns_bits) && args.iter().any(|a| given.contains(*a))).then_some(Bits::Weak)
                    }
                    // Any other integer computed from bits: arithmetic, casts, merges, lanes.
                    kind => kind.operands().iter().filter_map(|v| bits.get(*v)).max(),
                };
                if let Some(b) = found {
                    changed |= bits.raise(result, b);
                }
            }
        }
        bits
    }
}

/// What an integer load of `size` bytes at `p` holds: a float's bits (strong) where the
/// type analysis says the bytes may be a float, maybe one's (weak) where it says integer or
/// nothing, none where they hold a pointer.
fn load_bits(memory: &MemTypes, func: &Function, p: Value, size: u64) -> Option<Bits> {
    match memory.at(func, p, size) {
        crate::memtypes::Known::All(zyg_ir::ScalarKind::Pointer) => None,
        known if crate::memtypes::may_hold_floats(&known) => Some(Bits::Strong),
        _ => Some(Bits::Weak),
    }
}

/// Whether the `size` bytes at `p` may hold (part of) a float, by the type analysis.
fn floaty(memory: &MemTypes, func: &Function, p: Value, size: u64) -> bool {
    crate::memtypes::may_hold_floats(&memory.at(func, p, size))
}

fn is_int(func: &Function, v: Value) -> bool {
    matches!(func.ty(v), Type::Int(_)) || matches!(func.ty(v), Type::Vector(_, e) if e.is_int())
}

fn yields_float(func: &Function, inst: Inst) -> bool {
    func.result(inst).is_some_and(|r| func.ty(r).float_elem().is_some())
}

/// Every value a function defines or takes.
fn values(f: &Function) -> impl Iterator<Item = Value> + '_ {
    f.params.iter().copied().chain(f.inst_order().filter_map(|(_, i)| f.result(i)))
}

/// Refuses the uses of an active float's bits that would drop its derivative (module
/// comment). `varied` are the values that depend on an active input, `shadowed` the
/// pointers to differentiated memory; `silent` the calls that cannot move a derivative.
pub fn check(
    summaries: &BitSummaries,
    memory: &MemTypes,
    module: &Module,
    func: &Function,
    varied: &EntitySet<Value>,
    shadowed: &EntitySet<Value>,
    silent: &EntitySet<Inst>,
) -> Result<(), TransformError> {
    let mut given = EntitySet::new();
    given.extend(varied.iter().chain(shadowed.iter()));
    let loads = |p: Value, size: u64| if shadowed.contains(p) { load_bits(memory, func, p, size) } else { None };
    let bits = summaries.bits(func, varied, silent, &given, &loads);
    if bits.is_empty() {
        return Ok(());
    }
    for (_, inst) in func.inst_order() {
        let kind = &func.insts[inst].kind;
        if let Some(problem) = summaries.turned_back(module, memory, func, inst, kind, &bits, silent, &|p| shadowed.contains(p)) {
            return Err(TransformError::at(
                func,
                inst,
                format!(
                    "{problem}; zyg cannot follow a derivative through an integer (it would be lost). Keep the value \
                     a float across the call or the store"
                ),
            ));
        }
    }
    Ok(())
}
