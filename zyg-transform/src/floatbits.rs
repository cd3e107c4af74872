//! Floats kept in integers: `bitcast double %x to i64`, the bits passed around as an
//! integer and made a float again (a `memcpy` into an `int64_t`, a union, a helper taking
//! the bits as an argument). Within one function LLVM's instcombine folds such round trips
//! away before zyg sees them, so what is left crosses something zyg cannot follow as a
//! derivative: a call, a return, memory, or integer arithmetic on the bits.
//!
//! An integer holding the bits of an active float, or computed from them (masked, shifted,
//! hashed), may be inspected, returned or passed on: a function of the bits is piecewise
//! constant in the float, so no derivative is lost, as long as the bits never become a
//! float again. zyg refuses the ways back: a `bitcast` to a float, a store to memory (which
//! may be read as a float), a call to a function without a body, or to one that turns that
//! parameter back into a float (`BitSummaries`). The result of a function that returns
//! bits of its floats holds bits in its caller too.

use crate::error::TransformError;
use std::collections::HashSet;
use zyg_ir::{Callee, CastOp, Function, Inst, InstKind, Module, Type, Value};

/// What functions do with float bits across their boundary, for the module.
#[derive(Debug, Default)]
pub struct BitSummaries {
    /// Functions whose integer result may be computed from the bits of a float.
    returns_bits: HashSet<String>,
    /// Integer parameters a function may turn back into a float: by a `bitcast`, a store,
    /// returning it, or passing it to such a parameter or to a function without a body.
    reinterprets: HashSet<(String, usize)>,
}

impl BitSummaries {
    pub fn compute(module: &Module) -> BitSummaries {
        let mut s = BitSummaries::default();
        let defined: Vec<&Function> = module.functions.iter().filter(|f| !f.is_declaration()).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for f in &defined {
                if !s.returns_bits.contains(&f.name) {
                    let floats: HashSet<Value> = values(f).filter(|v| f.ty(*v).float_elem().is_some()).collect();
                    let bits = s.bits(f, &floats, &HashSet::new(), &floats);
                    if f.inst_order().any(|(_, i)| matches!(f.insts[i].kind, InstKind::Ret { value: Some(v) } if bits.contains(&v))) {
                        s.returns_bits.insert(f.name.clone());
                        changed = true;
                    }
                }
                for (i, &p) in f.params.iter().enumerate() {
                    if f.ty(p).is_int() && !s.reinterprets.contains(&(f.name.clone(), i)) && s.turns_back(module, f, p) {
                        s.reinterprets.insert((f.name.clone(), i));
                        changed = true;
                    }
                }
            }
        }
        s
    }

    /// Whether integer parameter `p` of `f` may become a float again.
    fn turns_back(&self, module: &Module, f: &Function, p: Value) -> bool {
        let mut taint: HashSet<Value> = HashSet::from([p]);
        let mut grew = true;
        while grew {
            grew = false;
            for (_, inst) in f.inst_order() {
                let Some(r) = f.result(inst).filter(|r| f.ty(*r).is_int() && !taint.contains(r)) else { continue };
                if !matches!(f.insts[inst].kind, InstKind::Call { .. }) && f.insts[inst].kind.operands().iter().any(|v| taint.contains(v)) {
                    taint.insert(r);
                    grew = true;
                }
            }
        }
        f.inst_order().any(|(_, inst)| match &f.insts[inst].kind {
            InstKind::Ret { value: Some(value) } => taint.contains(value),
            kind => self.turned_back(module, f, inst, kind, &|v| taint.contains(v), &HashSet::new()),
        })
    }

    /// Whether `inst` turns an integer `holds` says holds bits back into a float.
    fn turned_back(
        &self,
        module: &Module,
        f: &Function,
        inst: Inst,
        kind: &InstKind,
        holds: &dyn Fn(&Value) -> bool,
        silent: &HashSet<Inst>,
    ) -> bool {
        match kind {
            InstKind::Cast { op: CastOp::BitCast, arg } => holds(arg) && yields_float(f, inst),
            InstKind::Store { value, .. } => holds(value),
            InstKind::Call { .. } if silent.contains(&inst) => false,
            InstKind::Call { callee, args, .. } => args.iter().enumerate().any(|(j, a)| {
                holds(a)
                    && match callee {
                        Callee::Direct(g) if module.function(g).is_some_and(|g| !g.is_declaration()) => {
                            self.reinterprets.contains(&(g.to_string(), j))
                        }
                        _ => true,
                    }
            }),
            _ => false,
        }
    }

    /// The integers of `func` that hold float bits: from `bitcast`s of `varied` floats,
    /// calls given one of `given` (`silent` calls, and functions that return bits), and
    /// what is computed from them.
    fn bits(&self, func: &Function, varied: &HashSet<Value>, silent: &HashSet<Inst>, given: &HashSet<Value>) -> HashSet<Value> {
        let mut bits: HashSet<Value> = HashSet::new();
        let mut changed = true;
        while changed {
            changed = false;
            for (_, inst) in func.inst_order() {
                let Some(result) = func.result(inst).filter(|r| is_int(func, *r) && !bits.contains(r)) else { continue };
                let holds = match &func.insts[inst].kind {
                    InstKind::Cast { op: CastOp::BitCast, arg } if varied.contains(arg) => true,
                    InstKind::Call { callee, args, .. } => {
                        let returns_bits = matches!(callee, Callee::Direct(g) if self.returns_bits.contains(&**g));
                        (silent.contains(&inst) || returns_bits) && args.iter().any(|a| given.contains(a))
                    }
                    // Any other integer computed from bits: arithmetic, casts, merges, lanes.
                    kind => kind.operands().iter().any(|v| bits.contains(v)),
                };
                if holds {
                    bits.insert(result);
                    changed = true;
                }
            }
        }
        bits
    }
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
    module: &Module,
    func: &Function,
    varied: &HashSet<Value>,
    shadowed: &HashSet<Value>,
    silent: &HashSet<Inst>,
) -> Result<(), TransformError> {
    let given: HashSet<Value> = varied.union(shadowed).copied().collect();
    let bits = summaries.bits(func, varied, silent, &given);
    if bits.is_empty() {
        return Ok(());
    }
    for (_, inst) in func.inst_order() {
        let kind = &func.insts[inst].kind;
        if !summaries.turned_back(module, func, inst, kind, &|v| bits.contains(v), silent) {
            continue;
        }
        let problem = match kind {
            InstKind::Cast { .. } => "this makes a float from the bits of an active value that went through an integer",
            InstKind::Store { .. } => "this stores the bits of an active value as an integer",
            _ => "this passes the bits of an active value as an integer to a call that may make them a float again",
        };
        return Err(TransformError::at(
            func,
            inst,
            format!(
                "{problem}; zyg cannot follow a derivative through an integer (it would be lost). Keep the value a \
                 float across the call or the store"
            ),
        ));
    }
    Ok(())
}
