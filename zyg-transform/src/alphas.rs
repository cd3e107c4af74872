//! Phase "alphas": what each chosen pullback reads from the primal (Zygote's alphas): the
//! primal values its rule uses, the shadows its memory accesses go through, the tapes of
//! differentiated callees, and the shadow memory of stack arrays. The tape layout
//! (`tape::TapeLayout`) stores them, after the recompute plan has taken out what the adjoint
//! can rebuild instead (`recompute::plan`).

use crate::activity::Activity;
use crate::rules::E;
use crate::tape::TapeNeeds;
use crate::{memory, rule_operands, Pullback};
use std::collections::{HashMap, HashSet};
use zyg_ir::{Function, Inst, InstKind, Type, Value};

/// The alphas of the pullbacks of `order` (in that order, each value and shadow once).
pub fn tape_needs(func: &Function, activity: &Activity, order: &[Inst], pullbacks: &HashMap<Inst, Pullback>) -> TapeNeeds {
    let mut needs = TapeNeeds::default();
    let (mut seen, mut seen_shadows): (HashSet<Value>, HashSet<Value>) = Default::default();
    for &inst in order {
        let pullback = &pullbacks[&inst];
        match (pullback, &func.insts[inst].kind) {
            (Pullback::Rule(adjoints), _) => {
                let v = func.result(inst).expect("a rule's instruction has a result");
                rule_needs(func, inst, v, adjoints, activity, &mut needs.values, &mut seen)
            }
            (Pullback::Lanes, InstKind::ExtractElement { index, .. } | InstKind::InsertElement { index, .. })
                if func.constant(*index).is_none() && seen.insert(*index) =>
            {
                needs.values.push(*index);
            }
            (Pullback::Callee(g), _) => {
                needs.callee_tapes.push((inst, if g.boxed { Type::PTR } else { g.tape_ty.clone() }));
            }
            (Pullback::Load, InstKind::Load { ptr, .. }) | (Pullback::Store, InstKind::Store { ptr, .. })
                if seen_shadows.insert(*ptr) =>
            {
                needs.shadows.push(*ptr);
            }
            (Pullback::Custom(rule), InstKind::Call { args, .. }) => {
                for &a in args {
                    if func.constant(a).is_none() && seen.insert(a) {
                        needs.values.push(a);
                    }
                    if activity.has_shadow(a) && seen_shadows.insert(a) {
                        needs.shadows.push(a);
                    }
                }
                if rule.has_tape() {
                    needs.callee_tapes.push((inst, Type::PTR));
                }
            }
            (Pullback::MemSet | Pullback::MemCopy(_), kind) => {
                let (_, dst, src, bytes) = memory::mem_op(kind).expect("a memory call");
                for p in [dst, src] {
                    if activity.has_shadow(p) && seen_shadows.insert(p) {
                        needs.shadows.push(p);
                    }
                }
                if func.constant(bytes).is_none() && seen.insert(bytes) {
                    needs.values.push(bytes);
                }
            }
            (Pullback::Realloc(_), InstKind::Call { args, .. }) => {
                let memory = func.result(inst).expect("realloc returns its memory");
                for p in [args[0], memory] {
                    if activity.has_shadow(p) && seen_shadows.insert(p) {
                        needs.shadows.push(p);
                    }
                }
                if func.constant(args[1]).is_none() && seen.insert(args[1]) {
                    needs.values.push(args[1]);
                }
            }
            (Pullback::Barrier, InstKind::Call { args, .. }) => {
                for &a in args {
                    if func.constant(a).is_none() && seen.insert(a) {
                        needs.values.push(a);
                    }
                }
            }
            (
                Pullback::MaskedLoad | Pullback::MaskedStore | Pullback::Gather | Pullback::Scatter,
                InstKind::Call { args, .. },
            ) => {
                // A gather's and a scatter's operands sit where a masked load's and
                // store's do.
                let (ptr, mask) = if matches!(pullback, Pullback::MaskedLoad | Pullback::Gather) {
                    (args[0], args[1])
                } else {
                    (args[1], args[2])
                };
                if activity.has_shadow(ptr) && seen_shadows.insert(ptr) {
                    needs.shadows.push(ptr);
                }
                if func.constant(mask).is_none() && seen.insert(mask) {
                    needs.values.push(mask);
                }
            }
            (Pullback::ReduceFMul, InstKind::Call { args, .. }) => {
                for &v in args {
                    if func.constant(v).is_none() && seen.insert(v) {
                        needs.values.push(v);
                    }
                }
            }
            (Pullback::ReduceMinMax, InstKind::Call { args, .. }) => {
                for v in [args[0], func.result(inst).expect("a reduction result")] {
                    if seen.insert(v) {
                        needs.values.push(v);
                    }
                }
            }
            (Pullback::Allocation, _) => {
                let memory = func.result(inst).expect("an allocation returns its memory");
                if seen_shadows.insert(memory) {
                    needs.shadows.push(memory);
                }
            }
            _ => {}
        }
    }
    // Shadow memory of stack arrays lives in the tape, so it outlives the primal.
    for (_, inst) in func.inst_order() {
        if let (InstKind::Alloca { ty }, Some(v)) = (&func.insts[inst].kind, func.result(inst)) {
            if activity.has_shadow(v) {
                needs.shadow_memory.push((v, ty.clone()));
            }
        }
    }
    needs
}

/// The primal values (alphas) an active instruction's rule reads.
fn rule_needs(
    func: &Function,
    inst: Inst,
    result: Value,
    adjoints: &[Option<E>],
    activity: &Activity,
    out: &mut Vec<Value>,
    seen: &mut HashSet<Value>,
) {
    let operands = rule_operands(&func.insts[inst].kind);
    let (mut indices, mut uses_result) = (Vec::new(), false);
    for (j, adjoint) in adjoints.iter().enumerate() {
        if let Some(e) = adjoint {
            if operands.get(j).is_some_and(|v| activity.is_active(*v)) {
                e.needs(&mut indices, &mut uses_result);
            }
        }
    }
    let mut push = |v: Value| {
        if func.constant(v).is_none() && seen.insert(v) {
            out.push(v);
        }
    };
    indices.into_iter().filter_map(|i| operands.get(i).copied()).for_each(&mut push);
    if uses_result {
        push(result);
    }
}
