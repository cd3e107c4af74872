//! The primal ("J" in Zygote's terms): a copy of the function that also writes its tape.
//! It records which predecessor ran into join blocks (a phi of constants), writes each
//! block's record at the block's end (a fixed tape slot, or a push on the block's stack),
//! calls differentiated callees through their own primals, and notes which `ret` ran.

use crate::builder::Cursor;
use crate::stack;
use crate::tape::{Field, Storage};
use crate::Plan;
use std::collections::HashMap;
use zyg_ir::{Block, Callee, Constant, Function, InstKind, Linkage, Type, Value};

pub fn build(plan: &Plan, name: &str) -> Function {
    let mut p = plan.func.clone();
    p.name = name.to_string();
    p.linkage = Linkage::Internal;
    p.attributes.clear();
    let tape = p.add_param(Type::PTR);
    let entry = p.entry().expect("a function with a body");
    let tape_ty = &plan.layout.tape_ty;

    // Stack headers start empty; callee tapes get a slot each.
    let mut c = Cursor::at_start(&mut p, entry);
    for index in plan.layout.stacks() {
        let header = c.field_ptr(tape_ty, tape, &[index]);
        let empty = c.constant(Constant::Zero(stack::header_type()));
        c.store(empty, header);
    }
    let mut callee_slots = HashMap::new();
    for (inst, callee) in &plan.callees {
        callee_slots.insert(*inst, (c.alloca(callee.tape_ty.clone()), callee.tape_ty.clone()));
    }
    for (inst, callee) in &plan.callees {
        let slot = callee_slots[inst].0;
        if let InstKind::Call { callee: target, sig, args } = &mut p.insts[*inst].kind {
            *target = Callee::Direct(callee.primal.as_str().into());
            sig.params.push(Type::PTR);
            args.push(slot);
        }
    }

    let pred_ids = record_predecessors(plan, &mut p);
    for &b in &plan.func.layout {
        let Some(record) = plan.layout.records.get(&b) else { continue };
        let mut c = Cursor::before_terminator(&mut p, b);
        let values: Vec<Value> = record
            .fields
            .iter()
            .map(|f| match f {
                Field::Value(v) => *v,
                Field::PredId => pred_ids[&b],
                Field::CalleeTape(inst) => {
                    let (slot, ty) = &callee_slots[inst];
                    c.load(ty.clone(), *slot)
                }
            })
            .collect();
        let place = c.field_ptr(tape_ty, tape, &[record.tape_index]);
        let record_ptr = match record.storage {
            Storage::Once => place,
            Storage::Stack => {
                let size = c.size_of(&record.ty);
                c.call(&stack::Op::Push.name(&plan.namespace), stack::signature(stack::Op::Push), vec![place, size]).expect("push returns")
            }
        };
        for (k, v) in values.into_iter().enumerate() {
            let field = c.field_ptr(&record.ty, record_ptr, &[k as u32]);
            c.store(v, field);
        }
    }

    if let Some(exit_index) = plan.layout.exit_index {
        for (k, &r) in plan.returns.iter().enumerate() {
            let mut c = Cursor::before_terminator(&mut p, r);
            let id = c.i32(k as i64);
            let field = c.field_ptr(tape_ty, tape, &[exit_index]);
            c.store(id, field);
        }
    }
    p
}

/// A phi of constants at the head of every block that needs a predecessor id: the id of a
/// predecessor is its index in `cfg.preds`.
fn record_predecessors(plan: &Plan, p: &mut Function) -> HashMap<Block, Value> {
    let mut ids = HashMap::new();
    for &b in &plan.func.layout {
        let Some(record) = plan.layout.records.get(&b) else { continue };
        if !record.fields.contains(&Field::PredId) {
            continue;
        }
        let mut incoming = Vec::new();
        for (k, &pred) in plan.cfg.preds(b).iter().enumerate() {
            let id = p.constant_value(Constant::int(32, k as i128));
            // LLVM wants one phi entry per edge, so a switch with two cases to `b` gets two.
            for _ in 0..edge_count(plan.func, pred, b) {
                incoming.push((pred, id));
            }
        }
        let phi = Cursor::at_start(p, b).emit(InstKind::Phi { incoming }, Type::I32).expect("phi");
        ids.insert(b, phi);
    }
    ids
}

/// How many CFG edges go from `from` to `to`.
pub fn edge_count(func: &Function, from: Block, to: Block) -> usize {
    let Some(t) = func.terminator(from) else { return 0 };
    match &func.insts[t].kind {
        InstKind::Br { dest } => usize::from(*dest == to),
        InstKind::CondBr { then_dest, else_dest, .. } => usize::from(*then_dest == to) + usize::from(*else_dest == to),
        InstKind::Switch { default, cases, .. } => {
            usize::from(*default == to) + cases.iter().filter(|(_, b)| *b == to).count()
        }
        _ => 0,
    }
}
