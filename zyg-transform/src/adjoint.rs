//! The adjoint: one block per primal block, over the reversed CFG (`reverse_cfg`, which
//! decides the control flow this module emits). Each adjoint block runs its primal block's
//! backpropagators in reverse order, reading alphas from the tape, then goes on to the
//! predecessor the primal came from. Each backpropagator is emitted by its rule family
//! (`rules::RuleFamily::reverse`), through `Reverse`, this builder's context for one
//! instruction. Gradient contributions accumulate into one slot per
//! active value; LLVM's mem2reg turns the slots into the phis that sum them. A float value
//! used only in its own block (most values of straight-line code) needs no slot: its
//! contributions and the read of its adjoint all happen in that block's adjoint, so they are
//! summed in SSA values there. That keeps mem2reg's work (which grows faster than linearly
//! with the slots of one block) to the values that cross blocks.
//!
//! Vector mode (`Plan::width` N > 1) runs N adjoints in one sweep: each lane has its own
//! accumulators, result's adjoint and shadows (the primal recorded each lane's), and each
//! backpropagator runs once per lane, except calls of differentiated callees, whose width-N
//! adjoints take every lane at once (`rules::RuleFamily::all_lanes`).

use crate::builder::Cursor;
use crate::error::TransformError;
use crate::reverse_cfg::{Next, Reversal, ReversedCfg, Start, Taken, Trips};
use crate::stack;
use crate::tape::{Field, Storage};
use crate::{ArgActivity, Plan};
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::SecondaryMap;
use std::collections::{HashMap, HashSet};
use zyg_ir::{BinOp, Block, Constant, Function, Inst, InstKind, Linkage, Signature, Type, Value};

/// Phase "adjoint": emits the adjoint over the reversed CFG `reversed`.
pub fn build(plan: &Plan, reversed: &ReversedCfg, name: &str, sig: Signature) -> Result<Function, TransformError> {
    let mut adj = Function::new(name, sig);
    adj.linkage = Linkage::Internal;
    let tape = adj.params[0];
    // The result's adjoint, one per lane.
    let dret: Vec<Value> = adj.params[1..].to_vec();
    let entry = adj.create_block(Some("entry".into()));
    // Every primal block the adjoint visits has one adjoint block.
    let mut blocks = SecondaryMap::with_default(Block::reserved_value());
    for &b in &reversed.layout {
        let label = plan.func.blocks[b].name.as_ref().map(|n| format!("adj.{n}"));
        blocks[b] = adj.create_block(label);
    }
    let exit = adj.create_block(Some("exit".into()));
    let mut builder = Adjoint {
        plan,
        adj,
        tape,
        blocks,
        local: block_local_values(plan),
        lane: 0,
        pending: (0..plan.width).map(|_| HashMap::new()).collect(),
        slots: (0..plan.width).map(|_| HashMap::new()).collect(),
        sinks: HashMap::new(),
        callee_slots: HashMap::new(),
        remaining: HashMap::new(),
        scratch: None,
        share: Default::default(),
    };
    builder.create_slots(entry, &reversed.counted);
    builder.enter(entry, exit, &reversed.start);
    for &b in &reversed.walk {
        builder.block(b, &reversed.blocks[b], &dret, exit)?;
    }
    builder.finish(exit);
    Ok(builder.adj)
}

struct Adjoint<'p, 'a> {
    plan: &'p Plan<'a>,
    adj: Function,
    tape: Value,
    blocks: SecondaryMap<Block, Block>,
    /// Active float values used only in their own block, non-phi (see the module comment).
    local: HashSet<Value>,
    /// The lane (vector mode) the backpropagators being emitted are for; 0 otherwise.
    lane: usize,
    /// The sum of the contributions so far to a block-local value's adjoint, per lane.
    pending: Vec<HashMap<Value, Value>>,
    /// The adjoint accumulator of each other active primal value, per lane.
    slots: Vec<HashMap<Value, Value>>,
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
    /// Vector mode: what the lanes of a rule compute once (`emit::LaneShare`).
    share: crate::rules::emit::LaneShare,
}

impl<'p, 'a> Adjoint<'p, 'a> {
    /// One zero-initialised accumulator per active value, in the entry block.
    fn create_slots(&mut self, entry: Block, counted: &[Block]) {
        let func = self.plan.func;
        let actives: Vec<Value> = func
            .params
            .iter()
            .copied()
            .chain(func.inst_order().filter_map(|(_, i)| func.result(i)))
            .filter(|v| self.plan.activity.is_active(*v) && !self.local.contains(v))
            .collect();
        let mut c = Cursor::at_end(&mut self.adj, entry);
        for slots in &mut self.slots {
            for &v in &actives {
                let ty = func.ty(v).clone();
                let slot = c.alloca(ty.clone());
                let zero = c.constant(empty_sum(ty));
                c.store(zero, slot);
                slots.insert(v, slot);
            }
        }
        for (inst, callee) in self.plan.callees.iter().filter(|(_, g)| !g.boxed) {
            self.callee_slots.insert(*inst, c.alloca(callee.tape_ty.clone()));
        }
        for &h in counted {
            self.remaining.insert(h, c.alloca(Type::I64));
        }
        if !self.plan.nullable.is_empty() {
            self.scratch = Some(c.alloca(crate::shadows::scratch_type(func)));
        }
    }

    /// Where an adjoint goes through the shadow of `ptr`: the shadow, or the scratch slot
    /// where a nullable shadow is null; and whether it was null, for nullable ones.
    fn guarded(&mut self, at: Block, ptr: Value, shadow: Value) -> (Value, Option<Value>) {
        match self.scratch.filter(|_| self.plan.nullable.contains(ptr)) {
            Some(scratch) => {
                let mut c = Cursor::at_end(&mut self.adj, at);
                let missing = crate::shadows::is_null(&mut c, shadow);
                (crate::shadows::or_scratch(&mut c, shadow, scratch), Some(missing))
            }
            None => (shadow, None),
        }
    }

    /// The adjoint starts where the primal returned (`start`).
    fn enter(&mut self, entry: Block, exit: Block, start: &Start) {
        let mut c = Cursor::at_end(&mut self.adj, entry);
        match start {
            Start::Exit => c.br(exit),
            Start::Block(r) => c.br(self.blocks[*r]),
            Start::Recorded { field: index, returns } => {
                let field = c.field_ptr(&self.plan.layout.tape_ty, self.tape, &[*index]);
                let id = c.load(Type::I32, field);
                let cases =
                    returns[1..].iter().enumerate().map(|(k, r)| (Constant::int(32, k as i128 + 1), self.blocks[*r])).collect();
                c.emit(InstKind::Switch { value: id, default: self.blocks[returns[0]], cases }, Type::Void);
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
        // Requested parameters that turn out inactive inside keep a zero gradient. In
        // vector mode each parameter's gradients come one per lane, in a row.
        let mut grads = c.constant(Constant::Zero(ret_ty));
        let requested = func.params.iter().zip(&self.plan.args).filter(|(_, a)| **a == ArgActivity::Active);
        let lanes = self.slots.len();
        for (k, (p, _)) in requested.enumerate() {
            for (lane, slots) in self.slots.iter().enumerate() {
                if let Some(slot) = slots.get(p) {
                    let ty = func.ty(*p).clone();
                    let g = c.load(ty.clone(), *slot);
                    // A sum that started at -0.0 (`empty_sum`) and got nothing is +0.0 here.
                    let positive = c.constant(Constant::Zero(ty));
                    let g = c.binary(BinOp::FAdd, g, positive);
                    grads = c.insert(grads, g, (k * lanes + lane) as u32);
                }
            }
        }
        for index in stacks {
            let header = c.field_ptr(&tape_ty, self.tape, &[index]);
            c.call(&stack::Op::Free.name(&self.plan.namespace), stack::signature(stack::Op::Free), vec![header]);
        }
        c.ret(Some(grads));
    }

    /// The adjoint block of primal block `b`: its backpropagators, then how it continues
    /// (`reversal`).
    fn block(&mut self, b: Block, reversal: &Reversal, dret: &[Value], exit: Block) -> Result<(), TransformError> {
        let func = self.plan.func;
        let ab = self.blocks[b];
        let term = func.terminator(b);
        if let Some(InstKind::Ret { value: Some(v) }) = term.map(|t| &func.insts[t].kind) {
            for (lane, d) in dret.iter().enumerate() {
                self.lane = lane;
                self.accumulate(ab, *v, *d);
            }
        }
        let body: Vec<Inst> = func.blocks[b].insts.iter().copied().filter(|i| Some(*i) != term).collect();
        for &inst in body.iter().rev() {
            let Some(pullback) = self.plan.pullbacks[inst].as_ref() else { continue };
            if matches!(func.insts[inst].kind, InstKind::Phi { .. }) {
                continue;
            }
            if pullback.family().all_lanes(pullback) {
                self.backprop(b, inst, None)?;
            } else {
                for lane in 0..self.slots.len() {
                    self.backprop(b, inst, Some(lane))?;
                }
            }
        }
        // Phis read their adjoints together (they are parallel copies), then route them;
        // each lane's (`phi_adjoints[lane]`).
        let mut phi_adjoints = vec![Vec::new(); self.slots.len()];
        for (lane, adjoints) in phi_adjoints.iter_mut().enumerate() {
            self.lane = lane;
            for phi in func.phis(b) {
                let v = func.result(phi).expect("phi result");
                if self.plan.activity.is_active(v) {
                    adjoints.push((phi, self.take(ab, v)));
                }
            }
        }
        self.leave(ab, b, reversal, &phi_adjoints, exit)
    }

    /// The end of `b`'s adjoint block `ab`: entering counted loops backwards, finding the
    /// predecessor taken, popping `b`'s record and branching there (`reverse_cfg`).
    fn leave(
        &mut self,
        ab: Block,
        b: Block,
        reversal: &Reversal,
        phi_adjoints: &[Vec<(Inst, Value)>],
        exit: Block,
    ) -> Result<(), TransformError> {
        // Leaving a counted loop backwards: its header's executions, to count down.
        let plan = self.plan;
        for entry in &reversal.loop_entries {
            let h = entry.header;
            let count = match entry.trips {
                Trips::Recorded => self.fetch(ab, b, Field::Trips(h))?,
                Trips::Computed => self.trip_count(ab, &plan.recompute.trips[&h])?,
            };
            Cursor::at_end(&mut self.adj, ab).store(count, self.remaining[&h]);
        }
        let pred_id = match &reversal.next {
            Next::Branch { preds, taken: Taken::Counted { first, again } } => {
                Some(self.count_down(ab, b, *first, *again, preds.len()))
            }
            Next::Branch { taken: Taken::Recorded, .. } => Some(self.fetch(ab, b, Field::PredId)?),
            Next::Exit | Next::Pred(_) => None,
        };
        self.pop(ab, b);
        match &reversal.next {
            Next::Exit => Cursor::at_end(&mut self.adj, ab).br(exit),
            Next::Pred(p) => {
                self.route_phis(ab, phi_adjoints, *p);
                Cursor::at_end(&mut self.adj, ab).br(self.blocks[*p]);
            }
            Next::Branch { preds, .. } => {
                let mut cases = Vec::new();
                let bits = crate::tape::pred_id_bits(preds.len());
                for (k, &p) in preds.iter().enumerate() {
                    let edge = self.adj.create_block(None);
                    self.route_phis(edge, phi_adjoints, p);
                    Cursor::at_end(&mut self.adj, edge).br(self.blocks[p]);
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

    /// A counted loop's header (with `preds` predecessors): one execution fewer to visit;
    /// the preheader's index `first` when that was the first, the latch's `again` otherwise.
    fn count_down(&mut self, at: Block, header: Block, first: usize, again: usize, preds: usize) -> Value {
        let (first, again) = (first as i64, again as i64);
        let slot = self.remaining[&header];
        let mut c = Cursor::at_end(&mut self.adj, at);
        let left = c.load(Type::I64, slot);
        let one = c.i64(1);
        let left = c.binary(BinOp::Sub, left, one);
        c.store(left, slot);
        let zero = c.i64(0);
        let done = c.icmp(zyg_ir::IntPred::Eq, left, zero);
        let bits = crate::tape::pred_id_bits(preds);
        let (first, again) = (c.constant(Constant::int(bits, first.into())), c.constant(Constant::int(bits, again.into())));
        c.select(done, first, again)
    }

    /// Adds each phi's adjoint to the value it took from predecessor `pred`, in each lane.
    fn route_phis(&mut self, at: Block, phi_adjoints: &[Vec<(Inst, Value)>], pred: Block) {
        for (lane, adjoints) in phi_adjoints.iter().enumerate() {
            self.lane = lane;
            for (phi, d) in adjoints {
                let InstKind::Phi { incoming } = &self.plan.func.insts[*phi].kind else { continue };
                if let Some((_, v)) = incoming.iter().find(|(b, _)| *b == pred) {
                    self.accumulate(at, *v, *d);
                }
            }
        }
    }

    /// Runs the pullback of `inst` (primal block `b`): its family emits it
    /// (`rules::RuleFamily::reverse`), given the result's adjoint when the result is active:
    /// for one `lane`, or (`None`) for a family that handles every lane in one call.
    fn backprop(&mut self, b: Block, inst: Inst, lane: Option<usize>) -> Result<(), TransformError> {
        let plan = self.plan;
        let at = self.blocks[b];
        let result = plan.func.result(inst).filter(|v| plan.activity.is_active(*v));
        let lanes = match lane {
            Some(lane) => lane..lane + 1,
            None => 0..self.slots.len(),
        };
        let mut ds = vec![None; self.slots.len()];
        for lane in lanes.clone() {
            self.lane = lane;
            ds[lane] = result.map(|v| self.take(at, v));
        }
        self.lane = lanes.start;
        let pullback = plan.pullbacks[inst].as_ref().expect("a chosen pullback");
        let d = ds[lanes.start];
        let mut cx = Reverse { builder: self, block: b, at, inst, result, d, ds };
        pullback.family().reverse(&mut cx, pullback)
    }

    /// Reads and clears the adjoint of `v` (cleared because a value in a loop is a new
    /// value on every iteration).
    fn take(&mut self, at: Block, v: Value) -> Value {
        let ty = self.plan.func.ty(v).clone();
        if self.local.contains(&v) {
            return match self.pending[self.lane].remove(&v) {
                Some(d) => d,
                None => Cursor::at_end(&mut self.adj, at).constant(empty_sum(ty)),
            };
        }
        let slot = self.slots[self.lane][&v];
        let mut c = Cursor::at_end(&mut self.adj, at);
        let d = c.load(ty.clone(), slot);
        let zero = c.constant(empty_sum(ty));
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
            let sum = match self.pending[self.lane].get(&v) {
                Some(&old) => c.sum(old, contribution, &ty),
                None => c.convert_float(contribution, &ty),
            };
            self.pending[self.lane].insert(v, sum);
            return;
        }
        let Some(&slot) = self.slots[self.lane].get(&v) else { return };
        let ty = self.plan.func.ty(v).clone();
        Cursor::at_end(&mut self.adj, at).add_into(slot, &ty, contribution);
    }

    /// `adjoint(v).indices += contribution` for an active aggregate `v`: one field of its
    /// accumulator, without touching the others (an aggregate of N fields taken apart by N
    /// `extractvalue`s costs N additions, not N²).
    fn accumulate_field(&mut self, at: Block, v: Value, indices: &[u32], contribution: Value) {
        let ty = self.plan.func.ty(v).clone();
        let field_ty = indices.iter().try_fold(&ty, |t, &i| t.field(i)).cloned().expect("extractvalue indices in range");
        let mut c = Cursor::at_end(&mut self.adj, at);
        if self.local.contains(&v) {
            let agg = match self.pending[self.lane].get(&v) {
                Some(&old) => old,
                None => c.constant(empty_sum(ty.clone())),
            };
            let old = c.emit(InstKind::ExtractValue { agg, indices: indices.to_vec() }, field_ty.clone()).expect("a field");
            let new = c.sum(old, contribution, &field_ty);
            let sum = c.emit(InstKind::InsertValue { agg, value: new, indices: indices.to_vec() }, ty).expect("an aggregate");
            self.pending[self.lane].insert(v, sum);
            return;
        }
        let Some(&slot) = self.slots[self.lane].get(&v) else { return };
        let place = c.field_ptr(&ty, slot, indices);
        c.add_into(place, &field_ty, contribution);
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
                c.call(&stack::Op::Top.name(&self.plan.namespace), stack::signature(stack::Op::Top), vec![place, size])
                    .expect("top returns")
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
        let mut kind = func.insts[inst].kind.clone().without_unwind();
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
        let home = self
            .plan
            .layout
            .field_home(func, &self.plan.block_of, field)
            .ok_or_else(|| TransformError::in_function(func, format!("internal error: {field:?} is not on the tape")))?;
        self.fetch(at, home, field)
    }

    /// The shadow of a pointer in the current lane: tape memory for a stack array, else
    /// from the tape.
    fn shadow(&mut self, at: Block, _block: Block, ptr: Value) -> Result<Value, TransformError> {
        if let Some(indices) = self.plan.layout.shadow_memory.get(&ptr) {
            let tape_ty = self.plan.layout.tape_ty.clone();
            let index = indices[self.lane];
            return Ok(Cursor::at_end(&mut self.adj, at).field_ptr(&tape_ty, self.tape, &[index]));
        }
        if let Some(global @ Constant::Global(..)) = self.plan.func.constant(ptr) {
            let mut c = Cursor::at_end(&mut self.adj, at);
            return Ok(crate::helpers::global_shadow(self.plan.module, &mut c, global).expect("a global"));
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
            if rebuilt != base_shadow && self.plan.nullable.contains(base) {
                return Ok(crate::shadows::keep_null(&mut Cursor::at_end(&mut self.adj, at), base_shadow, rebuilt));
            }
            return Ok(rebuilt);
        }
        self.fetch_field(at, Field::Shadow(ptr, self.lane as u32))
    }
}

/// One instruction's place in the adjoint, what its family's `reverse`
/// (`rules::RuleFamily`) emits with: the adjoint block the code goes into, the result's
/// adjoint, and the reads (alphas, shadows, the callee's tape) and contributions of the
/// builder.
pub struct Reverse<'x, 'p, 'a> {
    builder: &'x mut Adjoint<'p, 'a>,
    /// The primal block of the instruction.
    block: Block,
    /// The adjoint block the code goes into.
    pub at: Block,
    pub inst: Inst,
    /// The instruction's result, when it is active, and its adjoint (read and cleared) in
    /// the current lane.
    pub result: Option<Value>,
    pub d: Option<Value>,
    /// Every lane's adjoint of the result (vector mode), for families that handle all lanes
    /// in one call (`set_lane`).
    ds: Vec<Option<Value>>,
}

impl<'p, 'a> Reverse<'_, 'p, 'a> {
    pub fn plan(&self) -> &'p Plan<'a> {
        self.builder.plan
    }

    /// The primal function.
    pub fn func(&self) -> &'a Function {
        self.builder.plan.func
    }

    /// The primal instruction.
    pub fn kind(&self) -> &'a InstKind {
        &self.func().insts[self.inst].kind
    }

    /// Where the next adjoint instruction goes.
    pub fn cursor(&mut self) -> Cursor<'_> {
        Cursor::at_end(&mut self.builder.adj, self.at)
    }

    pub fn constant(&mut self, c: Constant) -> Value {
        self.builder.adj.constant_value(c)
    }

    /// A primal value: rebuilt, or read from the tape (it must be among the family's
    /// alphas).
    pub fn alpha(&mut self, v: Value) -> Result<Value, TransformError> {
        self.builder.alpha(self.at, v)
    }

    /// The shadow of pointer `ptr` (among the family's alphas).
    pub fn shadow(&mut self, ptr: Value) -> Result<Value, TransformError> {
        self.builder.shadow(self.at, self.block, ptr)
    }

    /// Where an adjoint goes through `shadow`, the shadow of `ptr`: itself, or a scratch
    /// slot where a nullable shadow is null; and whether it was null, for nullable ones.
    pub fn guarded(&mut self, ptr: Value, shadow: Value) -> (Value, Option<Value>) {
        self.builder.guarded(self.at, ptr, shadow)
    }

    /// `adjoint(v) += contribution` when `v` is active.
    pub fn accumulate(&mut self, v: Value, contribution: Value) {
        self.builder.accumulate(self.at, v, contribution)
    }

    /// `adjoint(v).indices += contribution` for an active aggregate `v`.
    pub fn accumulate_field(&mut self, v: Value, indices: &[u32], contribution: Value) {
        self.builder.accumulate_field(self.at, v, indices, contribution)
    }

    /// Vector mode's lanes (1 otherwise).
    pub fn width(&self) -> usize {
        self.builder.slots.len()
    }

    /// What the lanes of this function's rules share (vector mode).
    pub fn lane_share(&mut self) -> &mut crate::rules::emit::LaneShare {
        &mut self.builder.share
    }

    /// Vector mode, for a family handling every lane in one call (`RuleFamily::all_lanes`):
    /// the shadows, adjoints and accumulators of `lane` from now on.
    pub fn set_lane(&mut self, lane: usize) {
        self.builder.lane = lane;
        self.d = self.ds[lane];
    }

    /// The tape the call's callee (or custom derivative) wrote, from the tape.
    pub fn callee_tape(&mut self) -> Result<Value, TransformError> {
        self.builder.fetch(self.at, self.block, Field::CalleeTape(self.inst))
    }

    /// Where the call's callee's tape is put back for its adjoint, unless it is boxed.
    pub fn callee_slot(&self) -> Option<Value> {
        self.builder.callee_slots.get(&self.inst).copied()
    }

    /// The scratch slot for masked-off lanes of type `ty`.
    pub fn sink(&mut self, ty: &Type) -> Value {
        self.builder.sink(ty)
    }
}

/// The value an accumulator of type `ty` starts from: -0.0 for floats and float vectors,
/// which is the identity of addition (`-0.0 + x` is `x` for every `x`, where `+0.0 + -0.0`
/// is `+0.0`), so that LLVM folds the first contribution's addition away; zero otherwise.
/// Gradients handed back are made `+0.0` where nothing was added (`finish`).
pub fn empty_sum(ty: Type) -> Constant {
    crate::builder::Cleared::Private.constant(&ty)
}

/// The active float, float vector and aggregate results whose every use is a non-phi
/// instruction of their own block: their adjoint is complete when the backward walk of that block reaches
/// their definition, so it can live in SSA values (the walk emits straight-line code into
/// one adjoint block).
fn block_local_values(plan: &Plan) -> HashSet<Value> {
    let func = plan.func;
    let mut home: HashMap<Value, Block> = HashMap::new();
    for (b, i) in func.inst_order() {
        if let Some(v) = func.result(i) {
            let ty = func.ty(v);
            if plan.activity.is_active(v)
                && (ty.float_elem().is_some() || matches!(ty, Type::Struct(_) | Type::Array(..)) && ty.carries_derivative())
            {
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
