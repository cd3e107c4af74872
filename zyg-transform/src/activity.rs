//! Activity analysis: a value is active when it both depends on an active input (varied)
//! and influences the active result (useful). Only active values get adjoints.

use crate::error::TransformError;
use crate::rules;
use std::collections::HashSet;
use zyg_ir::{Callee, CastOp, Function, InstKind, Module, UnOp, Value};

pub struct Activity {
    active: HashSet<Value>,
}

impl Activity {
    pub fn is_active(&self, v: Value) -> bool {
        self.active.contains(&v)
    }

    /// Analyses `func` with the given parameters active and its float result as the output.
    pub fn analyze(module: &Module, func: &Function, active_params: &[bool]) -> Result<Activity, TransformError> {
        let insts: Vec<_> = func.inst_order().map(|(_, i)| i).collect();
        let mut varied: HashSet<Value> =
            func.params.iter().zip(active_params).filter(|(_, a)| **a).map(|(p, _)| *p).collect();
        // Forward: a derivative-carrying result is varied if an operand it flows from is.
        let mut changed = true;
        while changed {
            changed = false;
            for &inst in &insts {
                let Some(result) = func.result(inst) else { continue };
                if varied.contains(&result) || !func.ty(result).carries_derivative() {
                    continue;
                }
                if flows_from(module, func, &func.insts[inst].kind).iter().any(|v| varied.contains(v)) {
                    varied.insert(result);
                    changed = true;
                }
            }
        }
        // Derivatives through memory are not tracked yet: refuse rather than drop them.
        for &inst in &insts {
            if let InstKind::Store { value, .. } = func.insts[inst].kind {
                if varied.contains(&value) {
                    return Err(TransformError::at(
                        func,
                        inst,
                        "an active value is stored to memory; differentiating through memory is not supported yet",
                    ));
                }
            }
        }
        // Backward: from the returned values, through the same edges.
        let mut useful: HashSet<Value> = HashSet::new();
        for &inst in &insts {
            if let InstKind::Ret { value: Some(v) } = func.insts[inst].kind {
                if func.ty(v).carries_derivative() {
                    useful.insert(v);
                }
            }
        }
        changed = true;
        while changed {
            changed = false;
            for &inst in insts.iter().rev() {
                let Some(result) = func.result(inst) else { continue };
                if !useful.contains(&result) {
                    continue;
                }
                for v in flows_from(module, func, &func.insts[inst].kind) {
                    if func.ty(v).carries_derivative() && useful.insert(v) {
                        changed = true;
                    }
                }
            }
        }
        Ok(Activity { active: varied.intersection(&useful).copied().collect() })
    }
}

/// The operands a derivative can flow from into the instruction's result.
pub fn flows_from(module: &Module, func: &Function, kind: &InstKind) -> Vec<Value> {
    let floats = |vs: &[Value]| vs.iter().copied().filter(|v| func.ty(*v).carries_derivative()).collect();
    match kind {
        InstKind::Binary { op, args } if op.name().starts_with('f') => args.to_vec(),
        InstKind::Unary { op: UnOp::FNeg | UnOp::Freeze, arg } => floats(&[*arg]),
        InstKind::Cast { op: CastOp::FPExt | CastOp::FPTrunc, arg } => vec![*arg],
        InstKind::Select { then_value, else_value, .. } => floats(&[*then_value, *else_value]),
        InstKind::Phi { incoming } => floats(&incoming.iter().map(|(_, v)| *v).collect::<Vec<_>>()),
        InstKind::ExtractValue { agg, .. } => floats(&[*agg]),
        InstKind::InsertValue { agg, value, .. } => floats(&[*agg, *value]),
        InstKind::Call { callee: Callee::Direct(name), args, .. } => {
            if module.function(name).is_some() {
                return floats(args);
            }
            match rules::family(name) {
                Some(rule) => {
                    let adjoints = (rule.adjoints)();
                    args.iter().zip(adjoints).filter(|(_, a)| a.is_some()).map(|(v, _)| *v).collect()
                }
                // Unknown functions: assume a derivative flows, so that an active use is
                // reported as an error rather than silently dropped.
                None => floats(args),
            }
        }
        InstKind::Call { args, .. } => floats(args),
        _ => Vec::new(),
    }
}
