//! The primal ("J" in Zygote's terms): a copy of the function that also writes its tape.
//! It records which predecessor ran into join blocks (a phi of constants), computes the
//! shadow of every pointer into differentiated memory beside the pointer itself, writes each
//! block's record at the block's end (a fixed tape slot, or a push on the block's stack),
//! calls differentiated callees through their own primals, and notes which `ret` ran.

use crate::builder::{Cleared, Cursor};
use crate::stack;
use crate::tape::{Field, Storage};
use crate::{ArgActivity, Plan};
use cranelift_entity::EntitySet;
use std::collections::HashMap;
use zyg_ir::{Block, Callee, Constant, Function, Inst, InstKind, Linkage, Signature, Type, Value};

/// Phase "primal": the steps below, in order (each inserts where the earlier ones left
/// the function).
///
/// In vector mode (`Plan::width` N > 1) every pointer has N shadows, one per lane, each
/// computed by the same steps (`lanes`); the tape holds each lane's.
pub fn build(plan: &Plan, name: &str) -> Function {
    let (mut primal, ret_shadow) = Primal::copy(plan, name);
    primal.init_tape();
    primal.returned_shadow_slots();
    for shadows in &mut primal.lanes {
        shadow_instructions(plan, &mut primal.p, shadows);
    }
    primal.box_tapes();
    for shadows in &primal.lanes {
        crate::rules::stacks::pop_kept_stacks(plan, &mut primal.p, shadows);
        store_pointer_shadows(plan, &mut primal.p, shadows);
        crate::rules::memcalls::copy_pointer_shadows(plan, &mut primal.p, shadows);
        check_lossy_stores(plan, &mut primal.p, shadows);
        stop_at_unknown_callees(plan, &mut primal.p);
    }
    // Registered derivatives are refused in vector mode (`Differentiator::generate`).
    let mut custom_tapes = crate::rules::custom::forward(plan, &mut primal.p, &primal.lanes[0]);
    // BLAS calls are refused in vector mode too (`rules::blas`); their copies are callee tapes.
    custom_tapes.extend(crate::rules::blas::save_inputs(plan, &mut primal.p, &primal.lanes[0]));
    custom_tapes.extend(crate::rules::sorts::forward(plan, &mut primal.p, &primal.lanes));
    // OpenMP forks are refused in vector mode too; their tapes are lists of the threads' tapes.
    custom_tapes.extend(crate::rules::openmp::fork_primals(plan, &mut primal.p, &primal.lanes[0]));
    // MPI calls are refused in vector mode too (`rules::mpi`); their records are callee tapes.
    custom_tapes.extend(crate::rules::mpi::record_requests(plan, &mut primal.p, &primal.lanes[0]));
    // Checkpointed calls stay calls of the function itself; their tapes are copies of their arguments' memory.
    custom_tapes.extend(crate::rules::calls::snapshot_arguments(plan, &mut primal.p));
    primal.call_primals();
    let pred_ids = record_predecessors(plan, &mut primal.p);
    let trips = count_trips(plan, &mut primal.p);
    primal.write_records(&pred_ids, &trips, &custom_tapes);
    primal.note_returns(ret_shadow);
    primal.release_on_unwind();
    primal.p
}

/// The primal being built, and what its steps share.
struct Primal<'p, 'a> {
    plan: &'p Plan<'a>,
    p: Function,
    /// The tape parameter.
    tape: Value,
    /// The shadow of each shadowed pointer, as it becomes known, per lane.
    lanes: Vec<HashMap<Value, Value>>,
    /// The stack slot (and type) of each unboxed callee's tape.
    callee_slots: HashMap<Inst, (Value, Type)>,
    /// The heap memory of each boxed (recursive) callee's tape.
    boxed_tapes: HashMap<Inst, Value>,
    /// Where a callee returning a pointer writes the pointer's shadow (one slot per lane).
    ret_slots: HashMap<Inst, Vec<Value>>,
}

impl<'p, 'a> Primal<'p, 'a> {
    /// The copy of the function with the primal's extra parameters: the shadows of `dup`
    /// arguments, the returned pointer's shadow's slot (returned with it), the tape; in
    /// vector mode each shadow and slot once per lane, lane 0 first.
    fn copy(plan: &'p Plan<'a>, name: &str) -> (Self, Vec<Value>) {
        let mut p = plan.func.clone();
        p.name = name.to_string();
        p.linkage = Linkage::Internal;
        p.attributes.clear();
        let mut lanes: Vec<HashMap<Value, Value>> = (0..plan.width).map(|_| HashMap::new()).collect();
        for (param, arg) in plan.func.params.iter().zip(&plan.args) {
            if *arg == ArgActivity::Dup {
                let ty = plan.func.ty(*param).clone();
                for shadows in &mut lanes {
                    shadows.insert(*param, p.add_param(ty.clone()));
                }
            }
        }
        let ret_shadow =
            if plan.func.sig.ret.is_ptr() { lanes.iter().map(|_| p.add_param(Type::PTR)).collect() } else { Vec::new() };
        let tape = p.add_param(Type::PTR);
        let primal =
            Primal { plan, p, tape, lanes, callee_slots: HashMap::new(), boxed_tapes: HashMap::new(), ret_slots: HashMap::new() };
        (primal, ret_shadow)
    }

    /// Stack headers start empty, shadow memory zeroed; callee tapes get a slot each;
    /// globals' shadows are known.
    fn init_tape(&mut self) {
        let plan = self.plan;
        let tape_ty = &plan.layout.tape_ty;
        let entry = self.p.entry().expect("a function with a body");
        let mut c = Cursor::at_start(&mut self.p, entry);
        for index in plan.layout.stacks() {
            let header = c.field_ptr(tape_ty, self.tape, &[index]);
            if plan.layout.inline_chunks {
                stack::init_inline(&mut c, header);
            } else {
                let empty = c.constant(Constant::Zero(stack::header_type()));
                c.store(empty, header);
            }
        }
        for (alloca, indices) in sorted(&plan.layout.shadow_memory) {
            for (shadows, index) in self.lanes.iter_mut().zip(indices) {
                let memory = c.field_ptr(tape_ty, self.tape, &[index]);
                let ty = tape_ty.field(index).cloned().expect("shadow memory field");
                c.store_cleared(memory, &ty, Cleared::Private);
                shadows.insert(alloca, memory);
            }
        }
        // A callee's tape: a slot on the stack, copied into the record after the call; or, for a
        // recursive call, heap memory whose pointer goes into the record.
        for (inst, callee) in plan.callees.iter().filter(|(_, g)| !g.boxed) {
            self.callee_slots.insert(*inst, (c.alloca(callee.tape_ty.clone()), callee.tape_ty.clone()));
        }
        for shadows in &mut self.lanes {
            global_shadows(plan, &mut self.p, shadows);
        }
    }

    /// What the adjoint would have freed, freed where an exception leaves instead: the
    /// handlers themselves are the primal's (destructors run as in the program), memory a
    /// handler frees has its shadow freed beside it, and before a handler's `resume` the
    /// chunks of the function's own tape stacks are released.
    fn release_on_unwind(&mut self) {
        let plan = self.plan;
        let free = stack::Op::Free.name(&plan.namespace);
        for b in self.p.handlers.clone() {
            for inst in self.p.blocks[b].insts.clone() {
                let InstKind::Call { callee: Callee::Direct(name), args, .. } = &self.p.insts[inst].kind else { continue };
                let freed = plan.conventions.frees(name);
                let Some(p) = args.first().copied().filter(|_| freed) else { continue };
                let shadows: Vec<Value> = self.lanes.iter().filter_map(|lane| lane.get(&p).copied()).collect();
                for shadow in shadows {
                    let at = position(&self.p, b, inst) + 1;
                    Cursor { func: &mut self.p, block: b, at: Some(at) }.free(shadow);
                }
            }
            let resumes = self.p.terminator(b).is_some_and(|t| matches!(self.p.insts[t].kind, InstKind::Resume { .. }));
            if !resumes {
                continue;
            }
            let mut c = Cursor::before_terminator(&mut self.p, b);
            for index in plan.layout.stacks() {
                let header = c.field_ptr(&plan.layout.tape_ty, self.tape, &[index]);
                c.call(&free, stack::signature(stack::Op::Free), vec![header]);
            }
        }
    }

    /// A callee that returns a pointer writes the pointer's shadow into a slot of ours.
    fn returned_shadow_slots(&mut self) {
        let plan = self.plan;
        let entry = self.p.entry().expect("a function with a body");
        for inst in plan.callees.keys() {
            let Some(result) = plan.func.result(*inst).filter(|v| plan.func.ty(*v).is_ptr()) else { continue };
            for shadows in &mut self.lanes {
                let slot = Cursor::at_start(&mut self.p, entry).alloca(Type::PTR);
                self.ret_slots.entry(*inst).or_default().push(slot);
                if plan.activity.has_shadow(result) {
                    read_returned_shadow(plan, &mut self.p, *inst, slot, shadows);
                }
            }
        }
    }

    /// Heap memory for the tape of each boxed callee, allocated before the call.
    fn box_tapes(&mut self) {
        for (inst, callee) in self.plan.callees.iter().filter(|(_, g)| g.boxed) {
            let b = self.plan.block_of[*inst];
            let at = position(&self.p, b, *inst);
            let mut c = Cursor { func: &mut self.p, block: b, at: Some(at) };
            let memory = crate::rules::calls::Calls::allocate_tape(&mut c, callee);
            self.boxed_tapes.insert(*inst, memory);
        }
    }

    /// Differentiated calls call their callees' primals, with the shadows of their `dup`
    /// arguments (each lane's in a row), the returned shadow's slots and the callee's tape.
    fn call_primals(&mut self) {
        for (inst, callee) in &self.plan.callees {
            let slot = match self.boxed_tapes.get(inst) {
                Some(memory) => *memory,
                None => self.callee_slots[inst].0,
            };
            if let InstKind::Call { callee: target, sig, args, .. } = &mut self.p.insts[*inst].kind {
                let lanes = &self.lanes;
                let extra: Vec<Value> = args
                    .iter()
                    .zip(&callee.args)
                    .filter(|(_, a)| **a == ArgActivity::Dup)
                    .flat_map(|(v, _)| lanes.iter().map(|shadows| shadows.get(v).copied().expect("a dup argument has a shadow")))
                    .collect();
                *target = Callee::Direct(callee.primal.as_str().into());
                *sig = callee.primal_sig.clone();
                args.extend(extra);
                args.extend(self.ret_slots.get(inst).into_iter().flatten());
                args.push(slot);
            }
        }
    }

    /// Each block's fields, written at its end into its record: a fixed tape slot, or a
    /// push on its stack; blocks sharing a loop header's record write into the header's.
    fn write_records(
        &mut self,
        pred_ids: &HashMap<Block, Value>,
        trips: &HashMap<(Block, Block), Value>,
        custom_tapes: &HashMap<Inst, Value>,
    ) {
        let plan = self.plan;
        let tape_ty = &plan.layout.tape_ty;
        // Where each pushed record is, for the blocks sharing it (reverse postorder: a loop's
        // header comes before the blocks that share its record).
        let mut pushed: HashMap<Block, Value> = HashMap::new();
        for &b in plan.cfg.reverse_postorder() {
            let Some((owner, record)) = plan.layout.record_of(b) else { continue };
            let own = plan.layout.fields_of(b);
            if owner != b && own.is_empty() {
                continue;
            }
            let mut c = Cursor::before_terminator(&mut self.p, b);
            let values: Vec<Value> = own
                .iter()
                .map(|f| match f {
                    Field::Value(v) => *v,
                    Field::Shadow(v, lane) => self.lanes[*lane as usize][v],
                    Field::PredId => pred_ids[&b],
                    Field::Trips(header) => trips[&(b, *header)],
                    Field::CalleeTape(inst) => match self.boxed_tapes.get(inst).or(custom_tapes.get(inst)) {
                        Some(memory) => *memory,
                        None => {
                            let (slot, ty) = &self.callee_slots[inst];
                            c.load(ty.clone(), *slot)
                        }
                    },
                })
                .collect();
            let record_ptr = if owner == b {
                let place = c.field_ptr(tape_ty, self.tape, &[record.tape_index]);
                let ptr = match record.storage {
                    Storage::Once => place,
                    Storage::Stack => {
                        let size = c.size_of(&record.ty);
                        let push = stack::Op::Push;
                        c.call(&push.name(&plan.namespace), stack::signature(push), vec![place, size]).expect("push returns")
                    }
                };
                pushed.insert(b, ptr);
                ptr
            } else {
                pushed[&owner]
            };
            for (f, v) in own.iter().zip(values) {
                let field = c.field_ptr(&record.ty, record_ptr, &[plan.layout.home[&(b, *f)]]);
                c.store(v, field);
            }
        }
    }

    /// Before each `ret`: the returned pointer's shadow into its slot (`ret_shadow`), and
    /// which `ret` ran into the tape when there are several.
    fn note_returns(&mut self, ret_shadow: Vec<Value>) {
        let plan = self.plan;
        for (slot, shadows) in ret_shadow.into_iter().zip(&self.lanes) {
            for &r in &plan.returns {
                let Some(t) = plan.func.terminator(r) else { continue };
                let InstKind::Ret { value: Some(v) } = plan.func.insts[t].kind else { continue };
                let mut c = Cursor::before_terminator(&mut self.p, r);
                let shadow = shadows.get(&v).copied().unwrap_or_else(|| c.constant(Constant::Null(0)));
                c.store(shadow, slot);
            }
        }
        if let Some(exit_index) = plan.layout.exit_index {
            for (k, &r) in plan.returns.iter().enumerate() {
                let mut c = Cursor::before_terminator(&mut self.p, r);
                let id = c.i32(k as i64);
                let field = c.field_ptr(&plan.layout.tape_ty, self.tape, &[exit_index]);
                c.store(id, field);
            }
        }
    }
}

fn sorted(map: &HashMap<Value, Vec<u32>>) -> Vec<(Value, Vec<u32>)> {
    let mut v: Vec<(Value, Vec<u32>)> = map.iter().map(|(k, i)| (*k, i.clone())).collect();
    v.sort_unstable_by_key(|(_, i)| i[0]);
    v
}

/// The shadow a differentiated callee wrote into `slot` for the pointer the call `inst`
/// returns, read right after the call.
pub(crate) fn read_returned_shadow(plan: &Plan, p: &mut Function, inst: Inst, slot: Value, shadows: &mut HashMap<Value, Value>) {
    let Some(result) = plan.func.result(inst) else { return };
    let b = plan.block_of[inst];
    let at = position(p, b, inst) + 1;
    let shadow = Cursor { func: p, block: b, at: Some(at) }.load(Type::PTR, slot);
    shadows.insert(result, shadow);
}

/// The shadows of the globals the function uses: their shadow globals (dynamic shared
/// memory's computed at the start of the entry block, where it dominates every use).
pub(crate) fn global_shadows(plan: &Plan, p: &mut Function, shadows: &mut HashMap<Value, Value>) {
    let entry = p.entry().expect("a function with a body");
    let mut c = Cursor::at_start(p, entry);
    for (global, _) in plan.activity.shadowed_globals(plan.func) {
        let constant = plan.func.constant(global).expect("a global");
        let shadow = crate::helpers::global_shadow(plan.module, &mut c, constant).expect("a global");
        shadows.insert(global, shadow);
    }
}

/// The shadow of each shadowed pointer, computed right after the pointer by the same
/// operation on the shadows of its operands (`gep` on the shadow base, a phi of shadows...).
/// Created first with the primal operands, then pointed at the shadows, since a phi's
/// incoming shadows may be defined later in the layout.
///
/// A struct value holding pointers has the same value with each pointer replaced by its
/// shadow (`insertvalue` of the shadows, `extractvalue` of the shadow struct), and with the
/// integers read from differentiated memory replaced by the integers at the same place in
/// the shadow memory (`copied_integers`): a generated gradient's tape copied as one struct
/// value holds stack headers, whose shadows are stacks too (`rules::stacks`), and must be
/// copied with their counts. Its other integers and its floats are zero in the shadow struct
/// (its floats' tangents are the tangent's, `rules::access`).
pub(crate) fn shadow_instructions(plan: &Plan, p: &mut Function, shadows: &mut HashMap<Value, Value>) {
    let mut made: Vec<(Inst, Inst)> = Vec::new();
    let copied = copied_integers(plan.func, &plan.activity);
    for &b in &plan.func.layout {
        for &inst in &plan.func.blocks[b].insts {
            let Some(v) = plan.func.result(inst).filter(|v| plan.activity.has_shadow(*v) || copied.contains(*v)) else {
                continue;
            };
            if shadows.contains_key(&v) {
                continue; // an alloca, whose shadow is tape memory
            }
            let mut kind = plan.func.insts[inst].kind.clone().without_unwind();
            if let InstKind::Call { args, .. } = &kind {
                kind = crate::rules::memcalls::shadow_allocation(plan, p, &kind, args);
            }
            let at = if matches!(kind, InstKind::Phi { .. }) { 0 } else { position(p, b, inst) + 1 };
            let mut c = Cursor { func: p, block: b, at: Some(at) };
            if let Some(kind) = address_shadow(plan, &mut c, inst, v) {
                let shadow = c.emit(kind, plan.func.ty(v).clone()).expect("pointer result");
                shadows.insert(v, shadow);
                made.push((inst, p.def_inst(shadow).expect("an instruction")));
                continue;
            }
            // The shadow lives in the pointer's address space (shared memory's is shared).
            let shadow = c.emit(kind, plan.func.ty(v).clone()).expect("pointer result");
            shadows.insert(v, shadow);
            made.push((inst, p.def_inst(shadow).expect("an instruction")));
        }
    }
    for &(_, shadow_inst) in &made {
        let mut kind = p.insts[shadow_inst].kind.clone();
        let shadow_of = |v: &mut Value, p: &mut Function| {
            if let Some(s) = shadows.get(v) {
                *v = *s;
            } else if let Type::Ptr(space) = *p.ty(*v) {
                // Only null, poison and undef reach here (activity refuses other unshadowed pointers;
                // a vector's poison or zero lanes stay as they are).
                *v = p.constant_value(Constant::Null(space));
            } else if crate::activity::is_holder(p.ty(*v)) {
                // A constant struct (activity refuses others in phis and selects).
                *v = p.constant_value(Constant::Zero(p.ty(*v).clone()));
            }
        };
        match &mut kind {
            // A field's shadow: a pointer's, a struct's, a copied integer's (`copied_integers`),
            // or zero.
            InstKind::InsertValue { agg, value, .. } => {
                shadow_of(agg, p);
                match shadows.get(value) {
                    Some(s) => *value = *s,
                    None if p.ty(*value).is_ptr() => shadow_of(value, p),
                    None => *value = p.constant_value(Constant::Zero(p.ty(*value).clone())),
                }
            }
            InstKind::ExtractValue { agg, .. } => shadow_of(agg, p),
            InstKind::Unary { arg, .. } => shadow_of(arg, p),
            InstKind::Gep { base, .. } => shadow_of(base, p),
            InstKind::Cast { arg, .. } => shadow_of(arg, p),
            InstKind::Load { ptr, .. } => shadow_of(ptr, p),
            // The shadow realloc's first argument: the old shadow.
            InstKind::Call { callee: Callee::Direct(name), args, .. }
                if **name == *crate::memory::shadow_realloc_name(&plan.namespace)
                    || **name == *crate::memory::shadow_realloc_moving_name(&plan.namespace) =>
            {
                shadow_of(&mut args[0], p)
            }
            // A tape stack's record: the same operation on the shadow stack (`rules::stacks`).
            InstKind::Call { callee: Callee::Direct(name), args, .. } if crate::stack::op_of(name).is_some() => {
                // Reverse mode keeps the shadow stack's memory for its adjoint.
                if !plan.forward && stack::op_of(name) == Some(stack::Op::Push) {
                    *name = stack::Op::PushKeep.name(&plan.namespace).into();
                }
                shadow_of(&mut args[0], p)
            }
            InstKind::Phi { incoming } => incoming.iter_mut().for_each(|(_, v)| shadow_of(v, p)),
            InstKind::Select { then_value, else_value, .. } => {
                shadow_of(then_value, p);
                shadow_of(else_value, p);
            }
            // Vectors of pointers: the same lanes of the shadows (poison and zero lanes stay).
            InstKind::InsertElement { vec, value, .. } => {
                shadow_of(vec, p);
                shadow_of(value, p);
            }
            InstKind::ShuffleVector { a, b, .. } => {
                shadow_of(a, p);
                shadow_of(b, p);
            }
            InstKind::ExtractElement { vec, .. } => shadow_of(vec, p),
            _ => {}
        }
        p.insts[shadow_inst].kind = kind;
    }
    guard_null_shadows(plan, p, shadows, &made);
}

/// The integers (and structs of integers) that get shadows beside the pointers: those
/// taken out of a struct value that has a shadow, and those read from differentiated
/// memory and put into one or stored into differentiated memory (`shadow_instructions`).
/// Both modes store them where the program stores them (forward mode in `rules::access`,
/// reverse mode's primal in `store_pointer_shadows`), so that a generated gradient's tape
/// copied field by field carries its shadow stacks' counts.
fn copied_integers(func: &Function, activity: &crate::activity::Activity) -> EntitySet<Value> {
    let integral = |v: Value| {
        let ty = func.ty(v);
        !ty.is_void() && !ty.holds_pointers() && !ty.carries_derivative()
    };
    let read_from_shadowed = |v: Value| {
        let read = func.def_inst(v).map(|i| &func.insts[i].kind);
        matches!(read, Some(InstKind::Load { ptr, .. }) if activity.has_shadow(*ptr))
    };
    let mut out: EntitySet<Value> = EntitySet::new();
    for (_, inst) in func.inst_order() {
        match &func.insts[inst].kind {
            InstKind::ExtractValue { agg, .. } if activity.has_shadow(*agg) => {
                out.extend(func.result(inst).filter(|v| integral(*v)));
            }
            InstKind::InsertValue { value, .. }
                if integral(*value)
                    && func.result(inst).is_some_and(|r| activity.has_shadow(r))
                    && read_from_shadowed(*value) =>
            {
                out.insert(*value);
            }
            // Copied field by field (a tape copied at -O0): the shadow integer goes along.
            InstKind::Store { value, ptr } if integral(*value) && activity.has_shadow(*ptr) && read_from_shadowed(*value) => {
                out.insert(*value);
            }
            _ => {}
        }
    }
    out
}

/// Keeps the shadows computed from nullable shadows null where their base is, and reads a
/// shadow pointer through a nullable shadow only where it is not null (`shadows`).
fn guard_null_shadows(plan: &Plan, p: &mut Function, shadows: &mut HashMap<Value, Value>, made: &[(Inst, Inst)]) {
    if plan.nullable.is_empty() {
        return;
    }
    let entry = p.entry().expect("a body");
    // Zeroed memory read where the base is null: a pointer, or, where a struct value or an
    // integer wider than a pointer is read through a nullable shadow, a scratch slot as wide
    // as the function's widest access (`shadows::scratch_type`, as stores use).
    let wide = made.iter().any(|(orig, _)| {
        matches!(&plan.func.insts[*orig].kind, InstKind::Load { ty, ptr }
            if plan.nullable.contains(*ptr) && ty.natural_layout().is_some_and(|(size, _)| size > 8))
    });
    let null_slot = {
        let mut c = Cursor::at_start(p, entry);
        let ty = if wide { crate::shadows::scratch_type(plan.func) } else { Type::PTR };
        let slot = c.alloca(ty.clone());
        let zero = if ty.is_ptr() { Constant::Null(0) } else { Constant::Zero(ty) };
        let zero = c.constant(zero);
        c.store(zero, slot);
        slot
    };
    // Shadow value -> the select that keeps it null, and each select's wrapped value.
    let mut kept: HashMap<Value, Value> = HashMap::new();
    let mut wrapped: HashMap<Inst, Value> = HashMap::new();
    for &(orig, shadow_inst) in made {
        let base = match &plan.func.insts[orig].kind {
            InstKind::Gep { base, .. } | InstKind::Load { ptr: base, .. } => *base,
            InstKind::Cast { op: zyg_ir::CastOp::IntToPtr, arg } => match plan.activity.address_root(*arg) {
                Some(root) => root,
                None => continue,
            },
            InstKind::Cast { arg, .. } => *arg,
            InstKind::Call { callee: Callee::Direct(name), args, .. } if crate::addresses::is_address_intrinsic(name) => args[0],
            _ => continue,
        };
        let Some(&base_shadow) = shadows.get(&base).filter(|_| plan.nullable.contains(base)) else { continue };
        let b = plan.block_of[orig];
        let at = position(p, b, shadow_inst);
        if matches!(plan.func.insts[orig].kind, InstKind::Load { .. }) {
            let mut c = Cursor { func: p, block: b, at: Some(at) };
            let from = crate::shadows::or_scratch(&mut c, base_shadow, null_slot);
            if let InstKind::Load { ptr, .. } = &mut p.insts[shadow_inst].kind {
                *ptr = from;
            }
            continue;
        }
        let shadow = p.result(shadow_inst).expect("a shadow pointer");
        let mut c = Cursor { func: p, block: b, at: Some(at + 1) };
        let select = crate::shadows::keep_null(&mut c, base_shadow, shadow);
        kept.insert(shadow, select);
        wrapped.insert(p.def_inst(select).expect("a select"), shadow);
    }
    if kept.is_empty() {
        return;
    }
    // Every use of a kept shadow now reads its select (but the select itself).
    let insts: Vec<Inst> = p.inst_order().map(|(_, i)| i).collect();
    for i in insts {
        let own = wrapped.get(&i).copied();
        for operand in p.insts[i].kind.operands_mut() {
            if Some(*operand) != own {
                if let Some(k) = kept.get(operand) {
                    *operand = *k;
                }
            }
        }
    }
    for shadow in shadows.values_mut() {
        if let Some(k) = kept.get(shadow) {
            *shadow = *k;
        }
    }
}

/// The shadow of a pointer computed from an address through an integer (`addresses`):
/// `gep i8, <root>, %v - ptrtoint <root>` emitted at the cursor, whose base the caller then
/// points at the root's shadow; or, for the identity intrinsics, a cast of the argument.
fn address_shadow(plan: &Plan, c: &mut Cursor, inst: Inst, v: Value) -> Option<InstKind> {
    let (root, address) = match &plan.func.insts[inst].kind {
        InstKind::Cast { op: zyg_ir::CastOp::IntToPtr, arg } => (plan.activity.address_root(*arg)?, *arg),
        InstKind::Call { callee: Callee::Direct(name), args, .. } if crate::addresses::is_address_intrinsic(name) => {
            let p = *args.first()?;
            if crate::addresses::is_address_identity(name) {
                return Some(InstKind::Cast { op: zyg_ir::CastOp::BitCast, arg: p });
            }
            (p, c.cast(zyg_ir::CastOp::PtrToInt, v, Type::I64))
        }
        _ => return None,
    };
    let int_ty = c.func.ty(address).clone();
    let base = c.cast(zyg_ir::CastOp::PtrToInt, root, int_ty);
    let offset = c.binary(zyg_ir::BinOp::Sub, address, base);
    Some(InstKind::Gep { source_ty: Type::I8, base: root, indices: vec![offset], inbounds: false })
}

/// A pointer stored into differentiated memory: its shadow goes to the same place in the
/// shadow memory, where a later load of the pointer finds it. A pointer to memory that is
/// not differentiated (a constant table) gets a null shadow there (`shadows`).
///
/// A struct value holding pointers has its shadow struct stored there, but for its floats
/// (whose adjoints or tangents are the memory family's, `rules::access`); one holding no
/// pointer to differentiated memory, zeros.
pub(crate) fn store_pointer_shadows(plan: &Plan, p: &mut Function, shadows: &HashMap<Value, Value>) {
    // Where stores through a null shadow go: room for a pointer, or for the widest access.
    let (mut sink, mut wide_sink) = (None, None);
    for &b in &plan.func.layout {
        for &inst in &plan.func.blocks[b].insts {
            let InstKind::Store { value, ptr } = plan.func.insts[inst].kind else { continue };
            let Some(&ptr_shadow) = shadows.get(&ptr) else { continue };
            let ty = plan.func.ty(value);
            let value_shadow = match (shadows.get(&value), ty) {
                // A pointer's shadow, or a copied integer's (`copied_integers`).
                (Some(s), _) if ty.holds_pointers() || !ty.carries_derivative() => *s,
                (None, Type::Ptr(space)) => p.constant_value(Constant::Null(*space)),
                (None, _) if crate::activity::is_holder(ty) => p.constant_value(Constant::Zero(ty.clone())),
                _ => continue,
            };
            let slot = if ty.is_ptr() { &mut sink } else { &mut wide_sink };
            let sink = *slot.get_or_insert_with(|| {
                let sink_ty = if ty.is_ptr() { Type::PTR } else { crate::shadows::scratch_type(plan.func) };
                let entry = p.entry().expect("a body");
                Cursor::at_start(p, entry).alloca(sink_ty)
            });
            let at = position(p, b, inst) + 1;
            let mut c = Cursor { func: p, block: b, at: Some(at) };
            let to = if plan.nullable.contains(ptr) { crate::shadows::or_scratch(&mut c, ptr_shadow, sink) } else { ptr_shadow };
            c.store_parts(ty, value_shadow, to, &|part| !part.carries_derivative());
        }
    }
}

/// Before each store a null shadow would lose (`shadows::lossy_stores`): stop the program
/// where the destination's shadow is null (and, for a pointer stored, its own is not).
pub(crate) fn check_lossy_stores(plan: &Plan, p: &mut Function, shadows: &HashMap<Value, Value>) {
    for (inst, helper) in &plan.lossy_stores {
        let b = plan.block_of[*inst];
        let at = position(p, b, *inst);
        let mut c = Cursor { func: p, block: b, at: Some(at) };
        let kind = &plan.func.insts[*inst].kind;
        let (dst, value_shadow, bytes) = match kind {
            InstKind::Store { value, ptr } => {
                (*ptr, shadows.get(value).filter(|_| plan.nullable.contains(*value)).copied(), None)
            }
            InstKind::AtomicFAdd { ptr, .. } => (*ptr, None, None),
            _ => {
                let (_, dst, _, bytes) = crate::memory::mem_op(kind).expect("a store or a copy");
                (dst, None, Some(bytes))
            }
        };
        let mut missing = crate::shadows::is_null(&mut c, shadows[&dst]);
        if let Some(value_shadow) = value_shadow {
            // A pointer whose own shadow is null points at constants: nothing is lost.
            let null = crate::shadows::is_null(&mut c, value_shadow);
            let there = c.not(null);
            missing = c.binary(zyg_ir::BinOp::And, missing, there);
        }
        if let Some(bytes) = bytes {
            let none = c.constant(Constant::Zero(plan.func.ty(bytes).clone()));
            let some = c.icmp(zyg_ir::IntPred::Ne, bytes, none);
            missing = c.binary(zyg_ir::BinOp::And, missing, some);
        }
        c.call(helper, Signature::new(vec![Type::I1], Type::Void), vec![missing]);
    }
}

/// Before each call through a pointer no dispatcher knows (`Plan::stops`): stop the
/// program with the helper's message.
pub(crate) fn stop_at_unknown_callees(plan: &Plan, p: &mut Function) {
    for (inst, helper) in &plan.stops {
        let b = plan.block_of[*inst];
        let at = position(p, b, *inst);
        let mut c = Cursor { func: p, block: b, at: Some(at) };
        let yes = c.constant(Constant::int(1, 1));
        c.call(helper, Signature::new(vec![Type::I1], Type::Void), vec![yes]);
    }
}

/// Where `inst` sits in block `b` of the primal now.
pub(crate) fn position(p: &Function, b: Block, inst: Inst) -> usize {
    p.blocks[b].insts.iter().position(|i| *i == inst).expect("instruction in its block")
}

/// A phi of constants at the head of every block that needs a predecessor id: the id of a
/// predecessor is its index in `cfg.preds`.
fn record_predecessors(plan: &Plan, p: &mut Function) -> HashMap<Block, Value> {
    let mut ids = HashMap::new();
    for &b in &plan.func.layout {
        if !plan.layout.fields_of(b).contains(&Field::PredId) {
            continue;
        }
        let mut incoming = Vec::new();
        let bits = crate::tape::pred_id_bits(plan.cfg.preds(b).len());
        for (k, &pred) in plan.cfg.preds(b).iter().enumerate() {
            let id = p.constant_value(Constant::int(bits, k as i128));
            // LLVM wants one phi entry per edge, so a switch with two cases to `b` gets two.
            for _ in 0..edge_count(plan.func, pred, b) {
                incoming.push((pred, id));
            }
        }
        let phi = Cursor::at_start(p, b).emit(InstKind::Phi { incoming }, Type::Int(bits)).expect("phi");
        ids.insert(b, phi);
    }
    ids
}

/// For each counted loop, a count of its header's executions in the current activation
/// (`c = phi [0, preheader], [c + 1, latch]`, incremented at the header's start), and the
/// count where the loop is left: a phi of it in each exit block, itself in a return
/// block inside the loop. Returns the value to record for each (leaving block, header).
fn count_trips(plan: &Plan, p: &mut Function) -> HashMap<(Block, Block), Value> {
    let mut out = HashMap::new();
    for l in plan.loops.loops() {
        let Some(counted) = plan.layout.counted.get(&l.header) else { continue };
        let h = l.header;
        let zero = p.constant_value(Constant::int(64, 0));
        let one = p.constant_value(Constant::int(64, 1));
        let phis = p.blocks[h].insts.iter().filter(|i| matches!(p.insts[**i].kind, InstKind::Phi { .. })).count();
        let count = Cursor { func: p, block: h, at: Some(0) }
            .emit(InstKind::Phi { incoming: vec![(counted.preheader, zero)] }, Type::I64)
            .expect("phi");
        let next = Cursor { func: p, block: h, at: Some(phis + 1) }.binary(zyg_ir::BinOp::Add, count, one);
        let phi = p.def_inst(count).expect("phi inst");
        if let InstKind::Phi { incoming } = &mut p.insts[phi].kind {
            incoming.push((counted.latch, next));
        }
        for &b in &l.exits {
            let incoming: Vec<(Block, Value)> = plan
                .cfg
                .preds(b)
                .iter()
                .flat_map(|&pred| std::iter::repeat_n((pred, next), edge_count(plan.func, pred, b)))
                .collect();
            let at_exit = Cursor::at_start(p, b).emit(InstKind::Phi { incoming }, Type::I64).expect("phi");
            out.insert((b, h), at_exit);
        }
        for &r in plan.returns.iter().filter(|r| l.blocks.contains(r)) {
            out.insert((r, h), next);
        }
    }
    out
}

/// How many CFG edges go from `from` to `to`.
pub fn edge_count(func: &Function, from: Block, to: Block) -> usize {
    let Some(t) = func.terminator(from) else { return 0 };
    match &func.insts[t].kind {
        InstKind::Br { dest } => usize::from(*dest == to),
        InstKind::CondBr { then_dest, else_dest, .. } => usize::from(*then_dest == to) + usize::from(*else_dest == to),
        InstKind::Switch { default, cases, .. } => usize::from(*default == to) + cases.iter().filter(|(_, b)| *b == to).count(),
        _ => 0,
    }
}
