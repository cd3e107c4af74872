//! The adjoint: one block per primal block, over the reversed CFG. Each adjoint block runs
//! its primal block's backpropagators in reverse order, reading alphas from the tape, then
//! follows the recorded predecessor. Gradient contributions accumulate into one slot per
//! active value; LLVM's mem2reg turns the slots into the phis that sum them. A float value
//! used only in its own block (most values of straight-line code) needs no slot: its
//! contributions and the read of its adjoint all happen in that block's adjoint, so they are
//! summed in SSA values there. That keeps mem2reg's work (which grows faster than linearly
//! with the slots of one block) to the values that cross blocks.

use crate::builder::Cursor;
use crate::error::TransformError;
use crate::rules::{Node, E};
use crate::stack;
use crate::tape::{Field, Storage};
use crate::{ArgActivity, Plan, Pullback};
use std::collections::{HashMap, HashSet};
use zyg_ir::{
    BinOp, Block, CastOp, Constant, FloatTy, Function, Inst, InstKind, Linkage, Signature, Type, Value,
};

pub fn build(plan: &Plan, name: &str, sig: Signature) -> Result<Function, TransformError> {
    let mut adj = Function::new(name, sig);
    adj.linkage = Linkage::Internal;
    let tape = adj.params[0];
    let dret = adj.params.get(1).copied();
    let entry = adj.create_block(Some("entry".into()));
    let mut blocks = HashMap::new();
    for &b in plan.cfg.reverse_postorder().iter().rev() {
        let label = plan.func.blocks[b].name.as_ref().map(|n| format!("adj.{n}"));
        blocks.insert(b, adj.create_block(label));
    }
    let exit = adj.create_block(Some("exit".into()));
    let mut builder = Adjoint {
        plan,
        adj,
        tape,
        blocks,
        local: block_local_floats(plan),
        pending: HashMap::new(),
        slots: HashMap::new(),
        sinks: HashMap::new(),
        callee_slots: HashMap::new(),
        remaining: HashMap::new(),
        scratch: None,
    };
    builder.create_slots(entry);
    builder.enter(entry, exit);
    for &b in plan.cfg.reverse_postorder() {
        builder.block(b, dret, exit)?;
    }
    builder.finish(exit);
    Ok(builder.adj)
}

struct Adjoint<'p, 'a> {
    plan: &'p Plan<'a>,
    adj: Function,
    tape: Value,
    blocks: HashMap<Block, Block>,
    /// Active float values used only in their own block, non-phi (see the module comment).
    local: HashSet<Value>,
    /// The sum of the contributions so far to a block-local value's adjoint.
    pending: HashMap<Value, Value>,
    /// The adjoint accumulator of each other active primal value.
    slots: HashMap<Value, Value>,
    /// A scratch slot per element type, where the adjoints of masked-off gather and scatter
    /// lanes go (`gather`).
    sinks: HashMap<Type, Value>,
    /// Where a callee's tape is put back for its adjoint.
    callee_slots: HashMap<Inst, Value>,
    /// For each counted loop (by header), how many of its header's executions in the
    /// current activation the adjoint has yet to visit.
    remaining: HashMap<Block, Value>,
    /// Where adjoints meant for a null shadow go (`shadows`), when some shadow may be null.
    scratch: Option<Value>,
}

impl<'p, 'a> Adjoint<'p, 'a> {
    /// One zero-initialised accumulator per active value, in the entry block.
    fn create_slots(&mut self, entry: Block) {
        let func = self.plan.func;
        let actives: Vec<Value> = func
            .params
            .iter()
            .copied()
            .chain(func.inst_order().filter_map(|(_, i)| func.result(i)))
            .filter(|v| self.plan.activity.is_active(*v) && !self.local.contains(v))
            .collect();
        let mut c = Cursor::at_end(&mut self.adj, entry);
        for v in actives {
            let ty = func.ty(v).clone();
            let slot = c.alloca(ty.clone());
            let zero = c.constant(Constant::Zero(ty));
            c.store(zero, slot);
            self.slots.insert(v, slot);
        }
        for (inst, callee) in self.plan.callees.iter().filter(|(_, g)| !g.boxed) {
            self.callee_slots.insert(*inst, c.alloca(callee.tape_ty.clone()));
        }
        let mut headers: Vec<Block> = self.plan.layout.counted.keys().copied().collect();
        headers.sort_unstable();
        for h in headers {
            self.remaining.insert(h, c.alloca(Type::I64));
        }
        if !self.plan.nullable.is_empty() {
            let accessed = func.inst_order().filter_map(|(_, i)| match &func.insts[i].kind {
                InstKind::Load { ty, .. } => Some(ty),
                InstKind::Store { value, .. } => Some(func.ty(*value)),
                _ => None,
            });
            self.scratch = Some(c.alloca(crate::shadows::scratch_type(accessed)));
        }
    }

    /// Where an adjoint goes through the shadow of `ptr`: the shadow, or the scratch slot
    /// where a nullable shadow is null; and whether it was null, for nullable ones.
    fn guarded(&mut self, at: Block, ptr: Value, shadow: Value) -> (Value, Option<Value>) {
        match self.scratch.filter(|_| self.plan.nullable.contains(&ptr)) {
            Some(scratch) => {
                let mut c = Cursor::at_end(&mut self.adj, at);
                let missing = crate::shadows::is_null(&mut c, shadow);
                (crate::shadows::or_scratch(&mut c, shadow, scratch), Some(missing))
            }
            None => (shadow, None),
        }
    }

    /// The adjoint starts where the primal returned.
    fn enter(&mut self, entry: Block, exit: Block) {
        let returns = &self.plan.returns;
        let mut c = Cursor::at_end(&mut self.adj, entry);
        match (returns.len(), self.plan.layout.exit_index) {
            (0, _) => c.br(exit),
            (1, _) | (_, None) => c.br(self.blocks[&returns[0]]),
            (_, Some(index)) => {
                let field = c.field_ptr(&self.plan.layout.tape_ty, self.tape, &[index]);
                let id = c.load(Type::I32, field);
                let cases = returns[1..]
                    .iter()
                    .enumerate()
                    .map(|(k, r)| (Constant::int(32, k as i128 + 1), self.blocks[r]))
                    .collect();
                c.emit(InstKind::Switch { value: id, default: self.blocks[&returns[0]], cases }, Type::Void);
            }
        }
    }

    /// Gathers the parameters' gradients, frees the stacks and returns.
    fn finish(&mut self, exit: Block) {
        let func = self.plan.func;
        let ret_ty = self.adj.sig.ret.clone();
        let tape_ty = self.plan.layout.tape_ty.clone();
        let stacks = self.plan.layout.stacks();
        let mut c = Cursor::at_end(&mut self.adj, exit);
        // Requested parameters that turn out inactive inside keep a zero gradient.
        let mut grads = c.constant(Constant::Zero(ret_ty));
        let requested = func.params.iter().zip(&self.plan.args).filter(|(_, a)| **a == ArgActivity::Active);
        for (k, (p, _)) in requested.enumerate() {
            if let Some(slot) = self.slots.get(p) {
                let g = c.load(func.ty(*p).clone(), *slot);
                grads = c.insert(grads, g, k as u32);
            }
        }
        for index in stacks {
            let header = c.field_ptr(&tape_ty, self.tape, &[index]);
            c.call(&stack::Op::Free.name(&self.plan.namespace), stack::signature(stack::Op::Free), vec![header]);
        }
        c.ret(Some(grads));
    }

    fn block(&mut self, b: Block, dret: Option<Value>, exit: Block) -> Result<(), TransformError> {
        let func = self.plan.func;
        let ab = self.blocks[&b];
        let term = func.terminator(b);
        if let Some(InstKind::Ret { value: Some(v) }) = term.map(|t| &func.insts[t].kind) {
            if let Some(d) = dret {
                self.accumulate(ab, *v, d);
            }
        }
        let body: Vec<Inst> = func.blocks[b].insts.iter().copied().filter(|i| Some(*i) != term).collect();
        for &inst in body.iter().rev() {
            if self.plan.pullbacks.contains_key(&inst) && !matches!(func.insts[inst].kind, InstKind::Phi { .. }) {
                self.backprop(b, inst)?;
            }
        }
        // Phis read their adjoints together (they are parallel copies), then route them.
        let mut phi_adjoints = Vec::new();
        for phi in func.phis(b) {
            let v = func.result(phi).expect("phi result");
            if self.plan.activity.is_active(v) {
                phi_adjoints.push((phi, self.take(ab, v)));
            }
        }
        let preds = self.plan.cfg.preds(b).to_vec();
        // Leaving a counted loop backwards: its header's executions, to count down.
        let trips: Vec<Block> =
            self.plan.layout.fields_of(b).iter().filter_map(|f| if let Field::Trips(h) = f { Some(*h) } else { None }).collect();
        for h in trips {
            let count = self.fetch(ab, b, Field::Trips(h))?;
            Cursor::at_end(&mut self.adj, ab).store(count, self.remaining[&h]);
        }
        for l in self.plan.loops.loops().iter().filter(|l| l.exits.contains(&b)) {
            if let Some(trips) = self.plan.recompute.trips.get(&l.header) {
                let count = self.trip_count(ab, trips)?;
                Cursor::at_end(&mut self.adj, ab).store(count, self.remaining[&l.header]);
            }
        }
        let pred_id = match self.plan.layout.counted.get(&b) {
            Some(counted) => Some(self.count_down(ab, b, *counted)),
            None => (preds.len() > 1).then(|| self.fetch(ab, b, Field::PredId)).transpose()?,
        };
        self.pop(ab, b);
        match preds.len() {
            0 => Cursor::at_end(&mut self.adj, ab).br(exit),
            1 => {
                self.route_phis(ab, &phi_adjoints, preds[0]);
                Cursor::at_end(&mut self.adj, ab).br(self.blocks[&preds[0]]);
            }
            _ => {
                let mut cases = Vec::new();
                let bits = crate::tape::pred_id_bits(preds.len());
                for (k, &p) in preds.iter().enumerate() {
                    let edge = self.adj.create_block(None);
                    self.route_phis(edge, &phi_adjoints, p);
                    Cursor::at_end(&mut self.adj, edge).br(self.blocks[&p]);
                    cases.push((Constant::int(bits, k as i128), edge));
                }
                let default = cases[0].1;
                let kind = InstKind::Switch { value: pred_id.expect("pred id"), default, cases: cases.split_off(1) };
                Cursor::at_end(&mut self.adj, ab).emit(kind, Type::Void);
            }
        }
        Ok(())
    }

    /// How many times a loop's header ran, from its start and bound (`TripCount`).
    fn trip_count(&mut self, at: Block, trips: &crate::recompute::TripCount) -> Result<Value, TransformError> {
        let start = self.alpha(at, trips.start)?;
        let bound = self.alpha(at, trips.bound)?;
        let mut c = Cursor::at_end(&mut self.adj, at);
        let span = c.binary(BinOp::Sub, bound, start);
        let step = c.constant(trips.step.clone());
        let count = c.binary(BinOp::UDiv, span, step);
        Ok(c.zext_to_i64(count))
    }

    /// A counted loop's header: one execution fewer to visit; the preheader's index among
    /// the predecessors when that was the first, the latch's otherwise.
    fn count_down(&mut self, at: Block, header: Block, counted: crate::tape::Counted) -> Value {
        let preds = self.plan.cfg.preds(header);
        let index = |b: Block| preds.iter().position(|p| *p == b).expect("a predecessor") as i64;
        let (first, again) = (index(counted.preheader), index(counted.latch));
        let slot = self.remaining[&header];
        let mut c = Cursor::at_end(&mut self.adj, at);
        let left = c.load(Type::I64, slot);
        let one = c.i64(1);
        let left = c.binary(BinOp::Sub, left, one);
        c.store(left, slot);
        let zero = c.i64(0);
        let done = c.icmp(zyg_ir::IntPred::Eq, left, zero);
        let bits = crate::tape::pred_id_bits(preds.len());
        let (first, again) = (c.constant(Constant::int(bits, first.into())), c.constant(Constant::int(bits, again.into())));
        c.select(done, first, again)
    }

    /// Adds each phi's adjoint to the value it took from predecessor `pred`.
    fn route_phis(&mut self, at: Block, phi_adjoints: &[(Inst, Value)], pred: Block) {
        for (phi, d) in phi_adjoints {
            let InstKind::Phi { incoming } = &self.plan.func.insts[*phi].kind else { continue };
            if let Some((_, v)) = incoming.iter().find(|(b, _)| *b == pred) {
                self.accumulate(at, *v, *d);
            }
        }
    }

    fn backprop(&mut self, b: Block, inst: Inst) -> Result<(), TransformError> {
        let func = self.plan.func;
        let ab = self.blocks[&b];
        // The result's adjoint, for instructions with an active result.
        let result = func.result(inst).filter(|v| self.plan.activity.is_active(*v));
        let d = result.map(|v| self.take(ab, v));
        match &self.plan.pullbacks[&inst] {
            Pullback::Load => {
                let (InstKind::Load { ptr, .. }, Some(v), Some(d)) = (&func.insts[inst].kind, result, d) else {
                    return Ok(());
                };
                let ty = func.ty(v).clone();
                let shadow = self.shadow(ab, b, *ptr)?;
                let (shadow, _) = self.guarded(ab, *ptr, shadow);
                let shared = self.plan.thread_private.as_ref().is_some_and(|private| !private.contains(ptr));
                let mut c = Cursor::at_end(&mut self.adj, ab);
                if shared {
                    c.atomic_add_into(shadow, &ty, d);
                } else {
                    c.add_into(shadow, &ty, d);
                }
            }
            Pullback::Store => {
                let InstKind::Store { value, ptr } = &func.insts[inst].kind else { return Ok(()) };
                let ty = func.ty(*value).clone();
                if ty.holds_only_addresses() {
                    // A pointer's shadow slot holds the shadow pointer, not an adjoint.
                    return Ok(());
                }
                // The store overwrote the memory: its adjoint so far goes to the stored value,
                // and what was there before gets none of it.
                let shadow = self.shadow(ab, b, *ptr)?;
                let (shadow, missing) = self.guarded(ab, *ptr, shadow);
                let mut c = Cursor::at_end(&mut self.adj, ab);
                if !ty.carries_derivative() {
                    // An integer overwrote whatever floats were there.
                    let zero = c.constant(Constant::Zero(ty));
                    c.store(zero, shadow);
                    return Ok(());
                }
                let mut d = c.take_from(shadow, &ty);
                if let Some(missing) = missing {
                    // Memory that is not differentiated holds no adjoint.
                    let zero = c.constant(Constant::Zero(ty));
                    d = c.select(missing, zero, d);
                }
                self.accumulate(ab, *value, d);
            }
            Pullback::Custom(rule) => {
                let rule = rule.clone();
                self.custom(ab, b, inst, &rule, d)?;
            }
            Pullback::MemSet | Pullback::MemCopy(_) => {
                let (_, dst, src, bytes) = crate::memory::mem_op(&func.insts[inst].kind).expect("a memory call");
                let bytes = self.alpha(ab, bytes)?;
                let dst_shadow = self.shadow(ab, b, dst)?;
                let src_shadow = match self.plan.pullbacks[&inst] {
                    Pullback::MemCopy(_) if self.plan.activity.has_shadow(src) => Some(self.shadow(ab, b, src)?),
                    _ => None,
                };
                let mut c = Cursor::at_end(&mut self.adj, ab);
                let mut bytes = c.zext_to_i64(bytes);
                // A null shadow (memory that is not differentiated): at the destination,
                // nothing to move or clear; at the source, the copy only overwrote, so the
                // destination's adjoint is cleared and goes nowhere.
                let none = c.i64(0);
                let dst_null = self.plan.nullable.contains(&dst).then(|| crate::shadows::is_null(&mut c, dst_shadow));
                let src_null = src_shadow.filter(|_| self.plan.nullable.contains(&src)).map(|s| crate::shadows::is_null(&mut c, s));
                if let Some(src_null) = src_null {
                    let clear = match dst_null {
                        Some(dst_null) => {
                            let dst_there = c.not(dst_null);
                            c.binary(BinOp::And, src_null, dst_there)
                        }
                        None => src_null,
                    };
                    let cleared = c.select(clear, bytes, none);
                    let zero = c.constant(Constant::int(8, 0));
                    let volatile = c.constant(Constant::bool(false));
                    let sig = Signature::new(vec![Type::PTR, Type::I8, Type::I64, Type::I1], Type::Void);
                    let target = generic_pointer(&mut c, dst_shadow);
                    c.call("llvm.memset.p0.i64", sig, vec![target, zero, cleared, volatile]);
                }
                if let Some(missing) = dst_null.into_iter().chain(src_null).reduce(|a, b| c.binary(BinOp::Or, a, b)) {
                    bytes = c.select(missing, none, bytes);
                }
                // The helpers take generic pointers; a shared-memory shadow converts to one.
                let dst_shadow = generic_pointer(&mut c, dst_shadow);
                let src_shadow = src_shadow.map(|s| generic_pointer(&mut c, s));
                match (&self.plan.pullbacks[&inst], src_shadow) {
                    (Pullback::MemCopy(crate::memory::CopyPlan::Floats(elem)), Some(src_shadow)) => {
                        let name = crate::memory::copy_adjoint_name(&self.plan.namespace, *elem);
                        c.call(&name, crate::memory::copy_adjoint_signature(), vec![dst_shadow, src_shadow, bytes]);
                    }
                    // Mixed fields: only the float fields' adjoints move (and are zeroed).
                    (Pullback::MemCopy(crate::memory::CopyPlan::Fields(_)), Some(src_shadow)) => {
                        let name = crate::memory::field_adjoint_name(&self.plan.namespace, self.plan.copy_layouts[&inst]);
                        c.call(&name, crate::memory::copy_adjoint_signature(), vec![dst_shadow, src_shadow, bytes]);
                    }
                    // Overwritten by a memset or by a copy of constant memory: no adjoint
                    // flows past it.
                    _ => {
                        let zero = c.constant(Constant::int(8, 0));
                        let volatile = c.constant(Constant::bool(false));
                        let sig = Signature::new(vec![Type::PTR, Type::I8, Type::I64, Type::I1], Type::Void);
                        c.call("llvm.memset.p0.i64", sig, vec![dst_shadow, zero, bytes, volatile]);
                    }
                }
            }
            Pullback::Realloc(elem) => {
                let elem = *elem;
                let InstKind::Call { args, .. } = &func.insts[inst].kind else { return Ok(()) };
                let (old, bytes) = (args[0], args[1]);
                let memory = func.result(inst).expect("realloc returns its memory");
                let old_shadow = match func.constant(old) {
                    Some(Constant::Null(_)) => self.adj.constant_value(Constant::Null(0)),
                    _ => self.shadow(ab, b, old)?,
                };
                let new_shadow = self.shadow(ab, b, memory)?;
                let bytes = self.alpha(ab, bytes)?;
                let name = crate::memory::realloc_adjoint_name(&self.plan.namespace, elem);
                let sig = crate::memory::realloc_adjoint_signature();
                Cursor::at_end(&mut self.adj, ab).call(&name, sig, vec![old_shadow, new_shadow, bytes]);
            }
            Pullback::Allocation => {
                // Going back past the allocation: its shadow is no longer needed.
                let memory = func.result(inst).expect("an allocation returns its memory");
                let shadow = self.shadow(ab, b, memory)?;
                let free = Signature::new(vec![Type::PTR], Type::Void);
                Cursor::at_end(&mut self.adj, ab).call("free", free, vec![shadow]);
            }
            Pullback::Aggregate => {
                let d = d.expect("aggregate instructions are visited for an active result");
                self.aggregate(ab, inst, d);
            }
            Pullback::Lanes => {
                let d = d.expect("lane instructions are visited for an active result");
                self.lanes(ab, inst, d)?;
            }
            Pullback::ReduceFAdd => {
                let d = d.expect("a reduction is visited for an active result");
                let InstKind::Call { args, .. } = &func.insts[inst].kind else { return Ok(()) };
                let (start, vec) = (args[0], args[1]);
                self.accumulate(ab, start, d);
                if let Type::Vector(n, _) = func.ty(vec).clone() {
                    let spread = splat(&mut Cursor::at_end(&mut self.adj, ab), d, n);
                    self.accumulate(ab, vec, spread);
                }
            }
            Pullback::Barrier => {
                let InstKind::Call { callee, sig, args } = func.insts[inst].kind.clone() else { return Ok(()) };
                let args = args.iter().map(|a| self.alpha(ab, *a)).collect::<Result<Vec<_>, _>>()?;
                let kind = InstKind::Call { callee, sig: sig.clone(), args };
                Cursor::at_end(&mut self.adj, ab).emit(kind, sig.ret.clone());
            }
            Pullback::MaskedLoad => {
                let d = d.expect("a masked load is visited for an active result");
                let InstKind::Call { args, .. } = &func.insts[inst].kind else { return Ok(()) };
                let (ptr, mask, passthru) = (args[0], args[1], args[2]);
                let ty = func.ty(passthru).clone();
                let mask = self.alpha(ab, mask)?;
                if self.plan.activity.has_shadow(ptr) {
                    let shadow = self.shadow(ab, b, ptr)?;
                    let mut c = Cursor::at_end(&mut self.adj, ab);
                    let zero = c.constant(Constant::Zero(ty.clone()));
                    let old = masked_load(&mut c, shadow, mask, zero);
                    let new = c.binary(BinOp::FAdd, old, d);
                    masked_store(&mut c, new, shadow, mask);
                }
                let mut c = Cursor::at_end(&mut self.adj, ab);
                let zero = c.constant(Constant::Zero(ty));
                let rest = c.select(mask, zero, d);
                self.accumulate(ab, passthru, rest);
            }
            Pullback::MaskedStore => {
                let InstKind::Call { args, .. } = &func.insts[inst].kind else { return Ok(()) };
                let (value, ptr, mask) = (args[0], args[1], args[2]);
                let ty = func.ty(value).clone();
                let mask = self.alpha(ab, mask)?;
                let shadow = self.shadow(ab, b, ptr)?;
                let mut c = Cursor::at_end(&mut self.adj, ab);
                let zero = c.constant(Constant::Zero(ty));
                let d = masked_load(&mut c, shadow, mask, zero);
                masked_store(&mut c, zero, shadow, mask);
                self.accumulate(ab, value, d);
            }
            Pullback::Gather => {
                let InstKind::Call { args, .. } = &func.insts[inst].kind else { return Ok(()) };
                let (ptrs, mask, passthru) = (args[0], args[1], args[2]);
                // A gather of integers from differentiated memory: nothing flows.
                let Some(d) = d else { return Ok(()) };
                let mask = self.alpha(ab, mask)?;
                let shadows = if self.plan.activity.has_shadow(ptrs) { Some(self.shadow(ab, b, ptrs)?) } else { None };
                let elem = lane_type(func.ty(passthru));
                let sink = self.sink(&elem);
                let atomic = self.plan.thread_private.is_some();
                let rest = crate::gather::gather_adjoint(&mut Cursor::at_end(&mut self.adj, ab), shadows, mask, d, sink, atomic);
                self.accumulate(ab, passthru, rest);
            }
            Pullback::Scatter => {
                let InstKind::Call { args, .. } = &func.insts[inst].kind else { return Ok(()) };
                let (value, ptrs, mask) = (args[0], args[1], args[2]);
                let ty = func.ty(value).clone();
                let mask = self.alpha(ab, mask)?;
                let shadows = self.shadow(ab, b, ptrs)?;
                let sink = self.sink(&lane_type(&ty));
                let mut c = Cursor::at_end(&mut self.adj, ab);
                if let Some(dvalue) = crate::gather::scatter_adjoint(&mut c, &ty, shadows, mask, sink) {
                    self.accumulate(ab, value, dvalue);
                }
            }
            Pullback::ReduceFMul => {
                let d = d.expect("a reduction is visited for an active result");
                let InstKind::Call { args, .. } = &func.insts[inst].kind else { return Ok(()) };
                let (start, vec) = (self.alpha(ab, args[0])?, self.alpha(ab, args[1])?);
                let (dstart, dvec) = crate::gather::reduce_fmul_adjoint(&mut Cursor::at_end(&mut self.adj, ab), start, vec, d);
                self.accumulate(ab, args[0], dstart);
                self.accumulate(ab, args[1], dvec);
            }
            Pullback::ReduceMinMax => {
                let d = d.expect("a reduction is visited for an active result");
                let InstKind::Call { args, .. } = &func.insts[inst].kind else { return Ok(()) };
                let vec = args[0];
                let Type::Vector(n, elem) = func.ty(vec).clone() else { return Ok(()) };
                let (lanes, best) = (self.alpha(ab, vec)?, self.alpha(ab, result.expect("active result"))?);
                let mut c = Cursor::at_end(&mut self.adj, ab);
                let zero = c.constant(Constant::Zero((*elem).clone()));
                let mut dvec = c.constant(Constant::Zero(func.ty(vec).clone()));
                let mut found = c.constant(Constant::bool(false));
                // Lane by lane, so that a tie gives the adjoint to one lane only.
                for lane in 0..n {
                    let i = c.i32(i64::from(lane));
                    let x = c.extract_element(lanes, i);
                    let hit = c.fcmp(zyg_ir::FloatPred::Oeq, x, best);
                    let not_found = c.not(found);
                    let take = c.binary(BinOp::And, hit, not_found);
                    let part = c.select(take, d, zero);
                    dvec = c.insert_element(dvec, part, i);
                    found = c.binary(BinOp::Or, found, hit);
                }
                self.accumulate(ab, vec, dvec);
            }
            Pullback::Rule(adjoints) => {
                let (v, d) = (result.expect("rule on an active result"), d.expect("active result"));
                let operands = crate::rule_operands(&func.insts[inst].kind);
                let ty = func.ty(v).clone();
                if ty.float_elem().is_none() {
                    return Err(TransformError::at(func, inst, "aggregate values are not differentiated yet"));
                }
                for (j, adjoint) in adjoints.iter().enumerate() {
                    let Some(e) = adjoint else { continue };
                    if !self.plan.activity.is_active(operands[j]) {
                        continue;
                    }
                    let env = Env { d, operands: &operands, result: v, ty: ty.clone(), inst };
                    let contribution = self.expr(ab, e, &env)?;
                    self.accumulate(ab, operands[j], contribution);
                }
            }
            Pullback::Callee(callee) => {
                let tape = self.fetch(ab, b, Field::CalleeTape(inst))?;
                let InstKind::Call { args, .. } = &func.insts[inst].kind else { unreachable!("callee pullback on a call") };
                let args = args.clone();
                let mut c = Cursor::at_end(&mut self.adj, ab);
                // An inline tape goes back into a slot for the callee; a boxed one is its own.
                let slot = match self.callee_slots.get(&inst) {
                    Some(slot) => {
                        c.store(tape, *slot);
                        *slot
                    }
                    None => tape,
                };
                let sig = callee.adjoint_sig.clone();
                let mut adjoint_args = vec![slot];
                if let Some(dret_ty) = sig.params.get(1) {
                    let zero = Constant::Zero(dret_ty.clone());
                    adjoint_args.push(d.unwrap_or_else(|| c.constant(zero)));
                }
                let grads = c.call(&callee.adjoint, sig, adjoint_args).expect("adjoint returns gradients");
                if callee.boxed {
                    c.call("free", Signature::new(vec![Type::PTR], Type::Void), vec![slot]);
                }
                let mut k = 0;
                for (a, arg) in args.iter().zip(&callee.args) {
                    if *arg == ArgActivity::Active {
                        let g = Cursor::at_end(&mut self.adj, ab).extract(grads, k);
                        self.accumulate(ab, *a, g);
                        k += 1;
                    }
                }
            }
            Pullback::Phi => {}
        }
        Ok(())
    }

    /// A registered derivative: the reverse gets the arguments (each pointer followed by its
    /// shadow), the result's adjoint and the tape, and returns every float argument's adjoint.
    fn custom(
        &mut self,
        at: Block,
        b: Block,
        inst: Inst,
        rule: &crate::custom::CustomRule,
        d: Option<Value>,
    ) -> Result<(), TransformError> {
        let func = self.plan.func;
        let InstKind::Call { args, sig, .. } = func.insts[inst].kind.clone() else { return Ok(()) };
        let mut reverse_args = Vec::new();
        for &a in &args {
            reverse_args.push(self.alpha(at, a)?);
            if func.ty(a).is_ptr() {
                let shadow = if self.plan.activity.has_shadow(a) {
                    self.shadow(at, b, a)?
                } else {
                    self.adj.constant_value(Constant::Null(0))
                };
                reverse_args.push(shadow);
            }
        }
        if sig.ret.is_float() {
            let zero = Constant::Zero(sig.ret.clone());
            reverse_args.push(d.unwrap_or_else(|| self.adj.constant_value(zero)));
        }
        if rule.has_tape() {
            reverse_args.push(self.fetch(at, b, Field::CalleeTape(inst))?);
        }
        let (reverse, reverse_sig) = rule.reverse();
        let mut c = Cursor::at_end(&mut self.adj, at);
        let Some(grads) = c.call(reverse, reverse_sig.clone(), reverse_args) else { return Ok(()) };
        let floats: Vec<Value> = args.iter().copied().filter(|a| func.ty(*a).is_float()).collect();
        match reverse_sig.ret.clone() {
            Type::Struct(fields) => {
                for (k, a) in floats.iter().enumerate().take(fields.len()) {
                    let g = Cursor::at_end(&mut self.adj, at).extract(grads, k as u32);
                    self.accumulate(at, *a, g);
                }
            }
            _ => {
                if let Some(a) = floats.first() {
                    self.accumulate(at, *a, grads);
                }
            }
        }
        Ok(())
    }

    /// The adjoints of extractelement (into one lane), insertelement (one lane out, the
    /// rest through) and shufflevector (each output lane back to the lane it came from).
    fn lanes(&mut self, at: Block, inst: Inst, d: Value) -> Result<(), TransformError> {
        let func = self.plan.func;
        match func.insts[inst].kind.clone() {
            InstKind::ExtractElement { vec, index } => {
                let index = self.alpha(at, index)?;
                let mut c = Cursor::at_end(&mut self.adj, at);
                let zero = c.constant(Constant::Zero(func.ty(vec).clone()));
                let spread = c.insert_element(zero, d, index);
                self.accumulate(at, vec, spread);
            }
            InstKind::InsertElement { vec, value, index } => {
                let index = self.alpha(at, index)?;
                let elem = func.ty(value).clone();
                let mut c = Cursor::at_end(&mut self.adj, at);
                let lane = c.extract_element(d, index);
                let zero = c.constant(Constant::Zero(elem));
                let rest = c.insert_element(d, zero, index);
                self.accumulate(at, value, lane);
                self.accumulate(at, vec, rest);
            }
            InstKind::ShuffleVector { a, b, mask } => {
                let Type::Vector(n, _) = func.ty(a).clone() else { return Ok(()) };
                let ty = func.ty(a).clone();
                let mut c = Cursor::at_end(&mut self.adj, at);
                let zero = c.constant(Constant::Zero(ty));
                let (mut da, mut db) = (zero, zero);
                for (k, &m) in mask.iter().enumerate().filter(|(_, m)| **m >= 0) {
                    let k = c.i32(k as i64);
                    let part = c.extract_element(d, k);
                    let (target, lane) = if (m as u32) < n { (&mut da, m) } else { (&mut db, m - n as i32) };
                    let lane = c.i32(i64::from(lane));
                    let old = c.extract_element(*target, lane);
                    let sum = c.binary(BinOp::FAdd, old, part);
                    *target = c.insert_element(*target, sum, lane);
                }
                self.accumulate(at, a, da);
                self.accumulate(at, b, db);
            }
            _ => {}
        }
        Ok(())
    }

    /// Reads and clears the adjoint of `v` (cleared because a value in a loop is a new
    /// value on every iteration).
    fn take(&mut self, at: Block, v: Value) -> Value {
        let ty = self.plan.func.ty(v).clone();
        if self.local.contains(&v) {
            return match self.pending.remove(&v) {
                Some(d) => d,
                None => Cursor::at_end(&mut self.adj, at).constant(Constant::Zero(ty)),
            };
        }
        let slot = self.slots[&v];
        let mut c = Cursor::at_end(&mut self.adj, at);
        let d = c.load(ty.clone(), slot);
        let zero = c.constant(Constant::Zero(ty));
        c.store(zero, slot);
        d
    }

    /// The scratch slot for lanes of type `ty` (zeroed at the start of the adjoint).
    fn sink(&mut self, ty: &Type) -> Value {
        if let Some(&slot) = self.sinks.get(ty) {
            return slot;
        }
        let entry = self.adj.entry().expect("the adjoint has an entry block");
        let mut c = Cursor::at_start(&mut self.adj, entry);
        let slot = c.alloca(ty.clone());
        let zero = c.constant(Constant::Zero(ty.clone()));
        c.store(zero, slot);
        self.sinks.insert(ty.clone(), slot);
        slot
    }

    /// `adjoint(v) += contribution` when `v` is active.
    fn accumulate(&mut self, at: Block, v: Value, contribution: Value) {
        if self.local.contains(&v) {
            let ty = self.plan.func.ty(v).clone();
            let mut c = Cursor::at_end(&mut self.adj, at);
            let contribution = c.convert_float(contribution, &ty);
            let sum = match self.pending.get(&v) {
                Some(&old) => c.binary(BinOp::FAdd, old, contribution),
                None => contribution,
            };
            self.pending.insert(v, sum);
            return;
        }
        let Some(&slot) = self.slots.get(&v) else { return };
        let ty = self.plan.func.ty(v).clone();
        Cursor::at_end(&mut self.adj, at).add_into(slot, &ty, contribution);
    }

    /// `extractvalue`/`insertvalue`: the adjoint of a field goes to that field of the
    /// aggregate's adjoint, and back.
    fn aggregate(&mut self, at: Block, inst: Inst, d: Value) {
        let func = self.plan.func;
        match func.insts[inst].kind.clone() {
            InstKind::ExtractValue { agg, indices } => {
                let Some(&slot) = self.slots.get(&agg) else { return };
                let agg_ty = func.ty(agg).clone();
                let field_ty = func.ty(func.result(inst).expect("extractvalue result")).clone();
                let mut c = Cursor::at_end(&mut self.adj, at);
                let place = c.field_ptr(&agg_ty, slot, &indices);
                c.add_into(place, &field_ty, d);
            }
            InstKind::InsertValue { agg, value, indices } => {
                let mut c = Cursor::at_end(&mut self.adj, at);
                let mut part = d;
                for &i in &indices {
                    part = c.extract(part, i);
                }
                let zero = c.constant(Constant::Zero(func.ty(value).clone()));
                let rest = c.emit(InstKind::InsertValue { agg: d, value: zero, indices }, func.ty(agg).clone());
                let rest = rest.expect("insertvalue result");
                self.accumulate(at, value, part);
                self.accumulate(at, agg, rest);
            }
            _ => {}
        }
    }

    /// Reads `field` from the newest record holding block `home`'s fields.
    fn fetch(&mut self, at: Block, home: Block, field: Field) -> Result<Value, TransformError> {
        let layout = &self.plan.layout;
        let (Some((_, record)), Some(&index)) = (layout.record_of(home), layout.home.get(&(home, field))) else {
            return Err(TransformError::in_function(self.plan.func, format!("internal error: {field:?} is not on the tape")));
        };
        let ty = record.ty.field(index).cloned().expect("record field");
        let mut c = Cursor::at_end(&mut self.adj, at);
        let place = c.field_ptr(&layout.tape_ty, self.tape, &[record.tape_index]);
        let record_ptr = match record.storage {
            Storage::Once => place,
            Storage::Stack => {
                let size = c.size_of(&record.ty);
                c.call(&stack::Op::Top.name(&self.plan.namespace), stack::signature(stack::Op::Top), vec![place, size]).expect("top returns")
            }
        };
        let ptr = c.field_ptr(&record.ty, record_ptr, &[index]);
        Ok(c.load(ty, ptr))
    }

    fn pop(&mut self, at: Block, b: Block) {
        let Some(record) = self.plan.layout.records.get(&b) else { return };
        if record.storage == Storage::Stack {
            let mut c = Cursor::at_end(&mut self.adj, at);
            let header = c.field_ptr(&self.plan.layout.tape_ty, self.tape, &[record.tape_index]);
            let size = c.size_of(&record.ty);
            c.call(&stack::Op::Pop.name(&self.plan.namespace), stack::signature(stack::Op::Pop), vec![header, size]);
        }
    }

    /// A primal value in the adjoint: constants are rebuilt, everything else comes from the tape.
    fn alpha(&mut self, at: Block, v: Value) -> Result<Value, TransformError> {
        let func = self.plan.func;
        if let Some(c) = func.constant(v) {
            return Ok(self.adj.constant_value(c.clone()));
        }
        if self.plan.recompute.values.contains(&v) {
            return self.rebuild(at, v);
        }
        self.fetch_field(at, Field::Value(v))
    }

    /// A value the adjoint rebuilds (`recompute`): an induction variable from the loop's
    /// iteration number, anything else by its own instruction on rebuilt operands.
    fn rebuild(&mut self, at: Block, v: Value) -> Result<Value, TransformError> {
        let func = self.plan.func;
        if let Some(iv) = self.plan.recompute.inductions.get(&v).cloned() {
            let start = self.alpha(at, iv.start)?;
            let iteration = self.iteration(at, iv.header);
            return Ok(crate::recompute::induction_value(&mut Cursor::at_end(&mut self.adj, at), &iv, start, iteration));
        }
        let inst = func.def_inst(v).expect("rebuilt values are instructions");
        let mut kind = func.insts[inst].kind.clone();
        for operand in kind.operands_mut() {
            *operand = self.alpha(at, *operand)?;
        }
        Ok(Cursor::at_end(&mut self.adj, at).emit(kind, func.ty(v).clone()).expect("a value"))
    }

    /// Which iteration of the counted loop headed by `header` the adjoint is in (0 first).
    fn iteration(&mut self, at: Block, header: Block) -> Value {
        let slot = self.remaining[&header];
        let mut c = Cursor::at_end(&mut self.adj, at);
        let left = c.load(Type::I64, slot);
        let one = c.i64(1);
        c.binary(BinOp::Sub, left, one)
    }

    /// A field from the record of the block that defines its value.
    fn fetch_field(&mut self, at: Block, field: Field) -> Result<Value, TransformError> {
        let func = self.plan.func;
        let home = self.plan.layout.field_home(func, &self.plan.block_of, field).ok_or_else(|| {
            TransformError::in_function(func, format!("internal error: {field:?} is not on the tape"))
        })?;
        self.fetch(at, home, field)
    }

    /// The shadow of a pointer: tape memory for a stack array, else from the tape.
    fn shadow(&mut self, at: Block, _block: Block, ptr: Value) -> Result<Value, TransformError> {
        if let Some(&index) = self.plan.layout.shadow_memory.get(&ptr) {
            let tape_ty = self.plan.layout.tape_ty.clone();
            return Ok(Cursor::at_end(&mut self.adj, at).field_ptr(&tape_ty, self.tape, &[index]));
        }
        if let Some(shadow) = self.plan.func.constant(ptr).and_then(crate::shadow_global) {
            return Ok(self.adj.constant_value(shadow));
        }
        if self.plan.recompute.shadows.contains(&ptr) {
            let func = self.plan.func;
            let base = self.plan.recompute.shadow_base(func, ptr).expect("a rebuilt shadow has a base");
            let base_shadow = self.shadow(at, _block, base)?;
            let rebuilt = if let Some(iv) = self.plan.recompute.inductions.get(&ptr).cloned() {
                let iteration = self.iteration(at, iv.header);
                let mut c = Cursor::at_end(&mut self.adj, at);
                crate::recompute::induction_value(&mut c, &iv, base_shadow, iteration)
            } else {
                let inst = func.def_inst(ptr).expect("rebuilt shadows are instructions");
                match func.insts[inst].kind.clone() {
                    InstKind::Gep { source_ty, indices, inbounds, .. } => {
                        let indices = indices.iter().map(|i| self.alpha(at, *i)).collect::<Result<Vec<_>, _>>()?;
                        let kind = InstKind::Gep { source_ty, base: base_shadow, indices, inbounds };
                        Cursor::at_end(&mut self.adj, at).emit(kind, func.ty(ptr).clone()).expect("a pointer")
                    }
                    _ => base_shadow,
                }
            };
            // Computed from a shadow that may be null, it stays null where that one is.
            if rebuilt != base_shadow && self.plan.nullable.contains(&base) {
                return Ok(crate::shadows::keep_null(&mut Cursor::at_end(&mut self.adj, at), base_shadow, rebuilt));
            }
            return Ok(rebuilt);
        }
        self.fetch_field(at, Field::Shadow(ptr))
    }

    /// Emits a rule expression.
    fn expr(&mut self, at: Block, e: &E, env: &Env) -> Result<Value, TransformError> {
        let float = env.ty.clone();
        let sub = |this: &mut Self, e: &E| -> Result<Value, TransformError> { this.expr(at, e, env) };
        let arith = |this: &mut Self, op: BinOp, a: Value, b: Value| {
            let mut c = Cursor::at_end(&mut this.adj, at);
            let (a, b) = (c.convert_float(a, &float), c.convert_float(b, &float));
            c.binary(op, a, b)
        };
        Ok(match &*e.0 {
            Node::D => env.d,
            Node::Arg(i) => self.alpha(at, env.operands[*i])?,
            Node::Res => self.alpha(at, env.result)?,
            Node::Const(x) => {
                let c = Constant::float_like(&float, *x).expect("a float working type");
                self.adj.constant_value(c)
            }
            Node::Add(a, b) | Node::Sub(a, b) | Node::Mul(a, b) | Node::Div(a, b) => {
                let op = match &*e.0 {
                    Node::Add(..) => BinOp::FAdd,
                    Node::Sub(..) => BinOp::FSub,
                    Node::Mul(..) => BinOp::FMul,
                    _ => BinOp::FDiv,
                };
                let (a, b) = (sub(self, a)?, sub(self, b)?);
                arith(self, op, a, b)
            }
            Node::Neg(a) => {
                let a = sub(self, a)?;
                Cursor::at_end(&mut self.adj, at).fneg(a)
            }
            Node::Call(name, args) => {
                let args = args.iter().map(|a| sub(self, a)).collect::<Result<Vec<_>, _>>()?;
                math_call(&mut Cursor::at_end(&mut self.adj, at), name, args, &float).ok_or_else(|| {
                    TransformError::at(self.plan.func, env.inst, format!("internal error: no call of `{name}` for {float}"))
                })?
            }
            Node::Select(cond, a, b) => {
                let (cond, a, b) = (sub(self, cond)?, sub(self, a)?, sub(self, b)?);
                let mut c = Cursor::at_end(&mut self.adj, at);
                let (a, b) = (c.convert_float(a, &float), c.convert_float(b, &float));
                c.select(cond, a, b)
            }
            // `x == 0` as a test of the bits: an `fcmp` on an adjoint makes LLVM's Float2Int
            // pass walk the whole adjoint computation behind it, once per comparison (on a
            // 25,000-instruction straight-line gradient, 2.3 s of a 3.4 s -O2 run).
            Node::Cmp(zyg_ir::FloatPred::Oeq, a, b) if matches!(&*b.0, Node::Const(z) if *z == 0.0) => {
                let a = sub(self, a)?;
                Cursor::at_end(&mut self.adj, at).is_float_zero(a)
            }
            Node::Cmp(pred, a, b) => {
                let (a, b) = (sub(self, a)?, sub(self, b)?);
                Cursor::at_end(&mut self.adj, at).fcmp(*pred, a, b)
            }
            Node::And(a, b) | Node::Or(a, b) => {
                let op = if matches!(&*e.0, Node::And(..)) { BinOp::And } else { BinOp::Or };
                let (a, b) = (sub(self, a)?, sub(self, b)?);
                Cursor::at_end(&mut self.adj, at).binary(op, a, b)
            }
            Node::IntToFloat(a) => {
                let a = sub(self, a)?;
                let mut c = Cursor::at_end(&mut self.adj, at);
                match (&float, c.func.ty(a).clone()) {
                    // A vector rule's scalar integer operand (`llvm.powi.v4f64.i32`'s exponent).
                    (Type::Vector(n, elem), Type::Int(_)) => {
                        let scalar = c.cast(CastOp::SIToFP, a, (**elem).clone());
                        splat(&mut c, scalar, *n)
                    }
                    _ => c.cast(CastOp::SIToFP, a, float),
                }
            }
            Node::IntAdd(a, k) => {
                let a = sub(self, a)?;
                let Type::Int(bits) = *self.adj.ty(a) else {
                    return Err(TransformError::in_function(self.plan.func, "integer rule operand is not an integer"));
                };
                let k = self.adj.constant_value(Constant::int(bits, i128::from(*k)));
                Cursor::at_end(&mut self.adj, at).binary(BinOp::Add, a, k)
            }
        })
    }
}

struct Env<'o> {
    d: Value,
    operands: &'o [Value],
    result: Value,
    /// The working type: the instruction's float or vector-of-float type.
    ty: Type,
    /// The instruction, for messages.
    inst: Inst,
}

/// The active float (or float vector) results whose every use is a non-phi instruction of
/// their own block: their adjoint is complete when the backward walk of that block reaches
/// their definition, so it can live in SSA values (the walk emits straight-line code into
/// one adjoint block).
fn block_local_floats(plan: &Plan) -> HashSet<Value> {
    let func = plan.func;
    let mut home: HashMap<Value, Block> = HashMap::new();
    for (b, i) in func.inst_order() {
        if let Some(v) = func.result(i) {
            if plan.activity.is_active(v) && func.ty(v).float_elem().is_some() {
                home.insert(v, b);
            }
        }
    }
    let mut local: HashSet<Value> = home.keys().copied().collect();
    for (b, i) in func.inst_order() {
        let is_phi = matches!(func.insts[i].kind, InstKind::Phi { .. });
        for v in func.insts[i].kind.operands() {
            if home.get(&v).is_some_and(|h| is_phi || *h != b) {
                local.remove(&v);
            }
        }
    }
    local
}

/// Calls a math function of family `name` in type `ty` (a float or a vector of floats):
/// an LLVM intrinsic where LLVM has one that every backend lowers, the C library's function
/// otherwise; for a vector without an intrinsic (`cosh` for a vectorised `sinh`), the C
/// library's function lane by lane. None for a type that is not a float or float vector.
fn math_call(c: &mut Cursor, name: &str, args: Vec<Value>, ty: &Type) -> Option<Value> {
    const INTRINSICS: &[&str] = &[
        "sqrt", "sin", "cos", "exp", "exp2", "log", "log2", "log10", "pow", "fabs", "copysign", "floor", "ceil",
        "trunc", "round", "fma",
    ];
    let elem = ty.float_elem()?;
    let suffix = ty.mangled()?;
    let params: Vec<Type> = args.iter().map(|a| c.func.ty(*a).clone()).collect();
    let callee = if name == "powi" {
        format!("llvm.powi.{suffix}.{}", params[1])
    } else if INTRINSICS.contains(&name) {
        format!("llvm.{name}.{suffix}")
    } else if let Type::Vector(n, scalar) = ty {
        let args: Vec<Value> = args.into_iter().map(|a| c.convert_float(a, ty)).collect();
        let mut out = c.constant(Constant::Poison(ty.clone()));
        for lane in 0..*n {
            let i = c.i32(i64::from(lane));
            let lanes: Vec<Value> = args.iter().map(|a| c.extract_element(*a, i)).collect();
            let y = math_call(c, name, lanes, scalar)?;
            out = c.insert_element(out, y, i);
        }
        return Some(out);
    } else {
        let libm_suffix = match elem {
            FloatTy::F32 => "f",
            FloatTy::F64 => "",
            FloatTy::X86Fp80 => "l",
        };
        format!("{name}{libm_suffix}")
    };
    let args = args.into_iter().map(|a| c.convert_float(a, ty)).collect();
    let params = params.into_iter().map(|t| if t.float_elem().is_some() { ty.clone() } else { t }).collect();
    c.call(&callee, Signature::new(params, ty.clone()), args)
}

/// The type of one lane of a vector type.
fn lane_type(ty: &Type) -> Type {
    match ty {
        Type::Vector(_, elem) => (**elem).clone(),
        other => other.clone(),
    }
}

/// A vector of `n` copies of `scalar`.
fn splat(c: &mut Cursor, scalar: Value, n: u32) -> Value {
    let ty = Type::Vector(n, c.func.ty(scalar).clone().into());
    let mut v = c.constant(Constant::Poison(ty));
    for lane in 0..n {
        let i = c.i32(i64::from(lane));
        v = c.insert_element(v, scalar, i);
    }
    v
}

/// `llvm.masked.load(ptr, mask, passthru)` of the passthru's vector type.
fn masked_load(c: &mut Cursor, ptr: Value, mask: Value, passthru: Value) -> Value {
    let ty = c.func.ty(passthru).clone();
    let sig = Signature::new(vec![Type::PTR, c.func.ty(mask).clone(), ty.clone()], ty.clone());
    let name = format!("llvm.masked.load.{}.p0", ty.mangled().expect("a float vector"));
    c.call(&name, sig, vec![ptr, mask, passthru]).expect("a vector")
}

/// `llvm.masked.store(value, ptr, mask)`.
fn masked_store(c: &mut Cursor, value: Value, ptr: Value, mask: Value) {
    let ty = c.func.ty(value).clone();
    let sig = Signature::new(vec![ty.clone(), Type::PTR, c.func.ty(mask).clone()], Type::Void);
    let name = format!("llvm.masked.store.{}.p0", ty.mangled().expect("a float vector"));
    c.call(&name, sig, vec![value, ptr, mask]);
}

/// `ptr` as a pointer in the default address space (an `addrspacecast` from another one).
fn generic_pointer(c: &mut Cursor, ptr: Value) -> Value {
    match c.func.ty(ptr) {
        Type::Ptr(0) => ptr,
        _ => c.cast(CastOp::AddrSpaceCast, ptr, Type::PTR),
    }
}
