//! Phase "tangent" (forward mode): one function that computes the primal and, beside each
//! active value, its tangent: the directional derivative along the tangents given for the
//! inputs. There is no tape and no reversed CFG: the tangent of an instruction is computed
//! right after it, from its operands' tangents, by the rule family that owns it (each
//! family's `tangent`, beside its `reverse`). Pointers carry shadows exactly as in the
//! primal (the same steps build them: `primal::shadow_instructions` and friends); in
//! forward mode a shadow's memory holds the tangents of the floats in the memory it
//! shadows, instead of their adjoints.
//!
//! The function `f.zyg.fwd.<mask>` takes f's parameters, then for each `dup` parameter its
//! shadow and for each `active` one its tangent (in parameter order), then, when f returns
//! a float or a pointer with a shadow, where to write the result's tangent (or shadow). It
//! returns f's result. Calls to differentiated callees call their own tangent functions
//! the same way, so no call's result changes type.
//!
//! Vector mode (`enzyme_width`, `Spec::width` = N > 1) computes N tangents in one sweep:
//! the primal once, and N *lanes* of shadows and tangents beside it, each built by the same
//! steps and rules as the one lane of width 1 (a family's `tangent` runs once per lane,
//! `Tangent::lane` telling which), except calls of differentiated callees, which pass all
//! lanes to the callee's own width-N tangent function at once (`RuleFamily::all_lanes`).
//! Each shadow or tangent parameter, and the result's slot, then comes N times in a row,
//! lane 0 first. LLVM's SLP vectoriser may pack the lanes' scalar code into vectors.

use crate::builder::Cursor;
use crate::error::TransformError;
use crate::rules::Pullback;
use crate::spec::ArgActivity;
use crate::Plan;
use cranelift_entity::EntityRef;
use std::collections::HashMap;
use zyg_ir::{Block, Callee, Constant, Function, Inst, InstKind, Linkage, Signature, Type, Value};

/// A function's tangent function, by name and signature (see the module comment).
#[derive(Clone, Debug)]
pub struct Tangents {
    pub name: String,
    pub sig: Signature,
    pub args: Vec<ArgActivity>,
    /// Whether the last parameters (one per lane) are where the result's tangent (or
    /// shadow) is written.
    pub result_slot: bool,
    /// How many tangents each value has (vector mode; 1 otherwise).
    pub width: u32,
}

impl Tangents {
    /// The tangent function of `func` for `args` with `width` lanes, named `name`.
    pub fn new(name: String, func: &Function, args: &[ArgActivity], width: u32) -> Tangents {
        let mut sig = func.sig.clone();
        for (p, _) in func.params.iter().zip(args).filter(|(_, a)| **a != ArgActivity::Const) {
            sig.params.extend((0..width).map(|_| func.ty(*p).clone()));
        }
        let result_slot = func.sig.ret.carries_derivative() || func.sig.ret.is_ptr();
        if result_slot {
            sig.params.extend((0..width).map(|_| Type::PTR));
        }
        Tangents { name, sig, args: args.to_vec(), result_slot, width }
    }
}

/// Phase "tangent": the steps below, in order.
pub fn build(plan: &Plan, tangents: &Tangents) -> Result<Function, TransformError> {
    let mut t = Forward::copy(plan, tangents);
    if t.lanes.len() > 1 && plan.activity.shadowed_globals(plan.func).next().is_some() {
        return Err(TransformError::in_function(
            plan.func,
            "vector mode (`enzyme_width`) over a function that uses differentiated global variables is not \
             supported yet: pass the global's memory as a `dup` argument, or make one request per direction",
        ));
    }
    for lane in 0..t.lanes.len() {
        t.lane = lane;
        t.shadow_memory();
        t.returned_shadow_slots();
        let Lane { shadows, .. } = &mut t.lanes[lane];
        crate::primal::shadow_instructions(plan, &mut t.p, shadows);
        crate::primal::store_pointer_shadows(plan, &mut t.p, shadows);
        crate::primal::check_lossy_stores(plan, &mut t.p, shadows);
        crate::primal::stop_at_unknown_callees(plan, &mut t.p);
    }
    t.scratch_for_nullable_shadows();
    for lane in 0..t.lanes.len() {
        t.lane = lane;
        t.tangent_phis();
    }
    t.sweep()?;
    for lane in 0..t.lanes.len() {
        t.lane = lane;
        t.fill_tangent_phis();
        t.free_shadows();
        t.write_result();
    }
    Ok(t.p)
}

/// One lane's shadows and tangents (see the module comment).
#[derive(Default)]
struct Lane {
    /// The shadow of each shadowed pointer.
    shadows: HashMap<Value, Value>,
    /// The tangent of each active value whose tangent has been computed.
    tangents: HashMap<Value, Value>,
    /// The tangent phis, with the primal phi each stands beside.
    phis: Vec<(Inst, Inst)>,
    /// Where the result's tangent goes (a last parameter), when there is one.
    result_slot: Option<Value>,
    /// Where a callee writes its result's tangent or shadow, by call.
    ret_slots: HashMap<Inst, Value>,
}

/// The tangent function being built, and what its steps share.
struct Forward<'p, 'a> {
    plan: &'p Plan<'a>,
    p: Function,
    /// The lanes (one, but in vector mode), and the one the steps work on.
    lanes: Vec<Lane>,
    lane: usize,
    /// Vector mode: what the lanes of a rule compute once (`emit::LaneShare`).
    share: crate::rules::emit::LaneShare,
    /// Zeroed memory read and written where a nullable shadow is null (`shadows`).
    scratch: Option<Value>,
}

impl<'p, 'a> Forward<'p, 'a> {
    /// The copy of the function with the extra parameters: shadows and tangents of the
    /// arguments, in parameter order (each once per lane), then the result's slots.
    fn copy(plan: &'p Plan<'a>, tangents: &Tangents) -> Self {
        let mut p = plan.func.clone();
        p.name = tangents.name.clone();
        p.linkage = Linkage::Internal;
        p.attributes.clear();
        let mut lanes: Vec<Lane> = (0..tangents.width).map(|_| Lane::default()).collect();
        for (param, arg) in plan.func.params.iter().zip(&plan.args) {
            let ty = plan.func.ty(*param).clone();
            for lane in &mut lanes {
                match arg {
                    ArgActivity::Dup => {
                        lane.shadows.insert(*param, p.add_param(ty.clone()));
                    }
                    ArgActivity::Active => {
                        lane.tangents.insert(*param, p.add_param(ty.clone()));
                    }
                    ArgActivity::Const => {}
                }
            }
        }
        for lane in &mut lanes {
            lane.result_slot = tangents.result_slot.then(|| p.add_param(Type::PTR));
        }
        p.sig = tangents.sig.clone();
        Forward { plan, p, lanes, lane: 0, share: Default::default(), scratch: None }
    }

    fn now(&mut self) -> &mut Lane {
        &mut self.lanes[self.lane]
    }

    /// Shadowed stack memory gets zeroed shadow memory of its own, and globals their
    /// shadow globals.
    fn shadow_memory(&mut self) {
        let plan = self.plan;
        let entry = self.p.entry().expect("a function with a body");
        for (_, inst) in plan.func.inst_order() {
            let InstKind::Alloca { ty } = &plan.func.insts[inst].kind else { continue };
            let Some(v) = plan.func.result(inst).filter(|v| plan.activity.has_shadow(*v)) else { continue };
            let mut c = Cursor::at_start(&mut self.p, entry);
            let shadow = c.alloca(ty.clone());
            let zero = c.constant(Constant::Zero(ty.clone()));
            c.store(zero, shadow);
            self.now().shadows.insert(v, shadow);
        }
        crate::primal::global_shadows(plan, &mut self.p, &mut self.lanes[self.lane].shadows);
    }

    /// A differentiated callee that returns a pointer writes its shadow into a slot of ours.
    fn returned_shadow_slots(&mut self) {
        let plan = self.plan;
        let entry = self.p.entry().expect("a function with a body");
        for (inst, pullback) in crate::rules::chosen(&plan.pullbacks) {
            let Pullback::Forward(callee) = pullback else { continue };
            if !callee.result_slot {
                continue;
            }
            // The result's tangent (a float, a vector, a struct of floats) or its shadow.
            let ty = plan.func.result(inst).map(|v| plan.func.ty(v)).filter(|t| t.carries_derivative());
            let slot = Cursor::at_start(&mut self.p, entry).alloca(ty.cloned().unwrap_or(Type::PTR));
            self.now().ret_slots.insert(inst, slot);
            if plan.func.result(inst).is_some_and(|v| plan.func.ty(v).is_ptr() && plan.activity.has_shadow(v)) {
                crate::primal::read_returned_shadow(plan, &mut self.p, inst, slot, &mut self.lanes[self.lane].shadows);
            }
        }
    }

    fn scratch_for_nullable_shadows(&mut self) {
        if self.plan.nullable.is_empty() {
            return;
        }
        let ty = crate::shadows::scratch_type(self.plan.func);
        let entry = self.p.entry().expect("a body");
        let mut c = Cursor::at_start(&mut self.p, entry);
        let scratch = c.alloca(ty.clone());
        let zero = c.constant(Constant::Zero(ty));
        c.store(zero, scratch);
        self.scratch = Some(scratch);
    }

    /// A tangent phi beside each active float phi, its incoming tangents filled in once
    /// every tangent is known (`fill_tangent_phis`).
    fn tangent_phis(&mut self) {
        let plan = self.plan;
        for &b in plan.cfg.reverse_postorder() {
            for phi in plan.func.phis(b) {
                let Some(v) =
                    plan.func.result(phi).filter(|v| plan.activity.is_active(*v) && plan.func.ty(*v).carries_derivative())
                else {
                    continue;
                };
                let InstKind::Phi { incoming } = &plan.func.insts[phi].kind else { continue };
                let kind = InstKind::Phi { incoming: incoming.clone() };
                let t = Cursor::at_start(&mut self.p, b).emit(kind, plan.func.ty(v).clone()).expect("a phi's value");
                let phi_inst = self.p.def_inst(t).expect("an instruction");
                let lane = self.now();
                lane.tangents.insert(v, t);
                lane.phis.push((phi, phi_inst));
            }
        }
    }

    /// Each active instruction's tangent, by its family, emitted after the instruction and
    /// whatever the earlier steps put right after it (its shadow), before the next
    /// instruction of the original function.
    fn sweep(&mut self) -> Result<(), TransformError> {
        let plan = self.plan;
        let original = plan.func.insts.len();
        for &b in plan.cfg.reverse_postorder() {
            let insts = std::mem::take(&mut self.p.blocks[b].insts);
            let mut pending: Option<Inst> = None;
            for inst in insts {
                if inst.index() < original {
                    if let Some(done) = pending.take() {
                        self.tangent_of(b, done)?;
                    }
                    if plan.pullbacks[inst].is_some() {
                        pending = Some(inst);
                    }
                }
                self.p.blocks[b].insts.push(inst);
            }
            if let Some(done) = pending {
                // Only a terminator ends a block, and no terminator has a tangent.
                return Err(TransformError::at(plan.func, done, "internal error: a block ends without a terminator"));
            }
        }
        Ok(())
    }

    /// The instruction's tangent in every lane: its family's `tangent` once per lane, or
    /// once for all (`RuleFamily::all_lanes`).
    fn tangent_of(&mut self, block: Block, inst: Inst) -> Result<(), TransformError> {
        let plan = self.plan;
        let Some(pullback) = plan.pullbacks[inst].as_ref() else { return Ok(()) };
        let result = plan.func.result(inst).filter(|v| plan.activity.is_active(*v));
        let family = pullback.family();
        let lanes = if family.all_lanes(pullback) { 1 } else { self.lanes.len() };
        for lane in 0..lanes {
            self.lane = lane;
            let mut cx = Tangent { builder: self, block, inst, result };
            family.tangent(&mut cx, pullback)?;
        }
        self.lane = 0;
        Ok(())
    }

    fn fill_tangent_phis(&mut self) {
        for (phi, tangent_phi) in std::mem::take(&mut self.now().phis) {
            let InstKind::Phi { incoming } = self.plan.func.insts[phi].kind.clone() else { continue };
            let incoming = incoming.into_iter().map(|(b, v)| (b, self.tangent(v))).collect();
            self.p.insts[tangent_phi].kind = InstKind::Phi { incoming };
        }
    }

    /// Memory freed by the program has its shadow freed with it. The shadow pointer is read
    /// from shadow memory like any: where a call zyg does not differentiate (a `std::string`
    /// member) gave the program's pointer a new value, the shadow still holds the one it
    /// mirrored before, which for a short string is the shadow of its own inline buffer, on
    /// the stack. Such a pointer is not freed (`off_the_stack`); a heap one that went stale
    /// is a shadow zyg allocated and never freed, so freeing it is right.
    fn free_shadows(&mut self) {
        let plan = self.plan;
        for (b, inst) in plan.func.inst_order() {
            let InstKind::Call { callee: Callee::Direct(name), args, .. } = &plan.func.insts[inst].kind else { continue };
            let freed = plan.conventions.frees(name);
            let Some(shadow) = args.first().filter(|_| freed).and_then(|p| self.lanes[self.lane].shadows.get(p)).copied() else {
                continue;
            };
            // Every shadow comes from `calloc` or `aligned_alloc` (`memcalls::shadow_allocation`),
            // whatever allocated the memory (`operator new`, a custom allocator), so `free`
            // releases it, not the program's deallocator (valgrind: "mismatched free").
            let at = crate::primal::position(&self.p, b, inst) + 1;
            let mut c = Cursor { func: &mut self.p, block: b, at: Some(at) };
            let shadow = if plan.thread_private.is_some() { shadow } else { off_the_stack(&mut c, shadow) };
            c.free(shadow);
        }
    }

    /// Before each `ret`, the result's tangent (or shadow) goes to the result's slot.
    fn write_result(&mut self) {
        let Some(slot) = self.now().result_slot else { return };
        for &b in &self.plan.func.layout {
            let Some(term) = self.plan.func.terminator(b) else { continue };
            let InstKind::Ret { value: Some(v) } = self.plan.func.insts[term].kind else { continue };
            let out = if self.plan.func.ty(v).is_ptr() { self.shadow_or_null(v) } else { self.tangent(v) };
            Cursor::before_terminator(&mut self.p, b).store(out, slot);
        }
    }

    /// The tangent of `v`: zero where it carries none (inactive, a constant).
    fn tangent(&mut self, v: Value) -> Value {
        match self.lanes[self.lane].tangents.get(&v) {
            Some(t) => *t,
            None => {
                let ty = self.p.ty(v).clone();
                self.p.constant_value(Constant::Zero(ty))
            }
        }
    }

    fn shadow_or_null(&mut self, v: Value) -> Value {
        match self.lanes[self.lane].shadows.get(&v) {
            Some(s) => *s,
            None => {
                let space = if let Type::Ptr(space) = self.p.ty(v) { *space } else { 0 };
                self.p.constant_value(Constant::Null(space))
            }
        }
    }
}

/// What a family's `tangent` sees: the instruction, its operands' tangents and shadows, and
/// a cursor after the instruction.
pub struct Tangent<'x, 'p, 'a> {
    builder: &'x mut Forward<'p, 'a>,
    block: Block,
    pub inst: Inst,
    /// The instruction's result, when it is active.
    pub result: Option<Value>,
}

impl<'p, 'a> Tangent<'_, 'p, 'a> {
    pub fn plan(&self) -> &'p Plan<'a> {
        self.builder.plan
    }

    /// The original function.
    pub fn func(&self) -> &'a Function {
        self.builder.plan.func
    }

    /// The original instruction.
    pub fn kind(&self) -> &'a InstKind {
        &self.func().insts[self.inst].kind
    }

    /// Where the tangent code goes: after the instruction (and its shadow).
    pub fn cursor(&mut self) -> Cursor<'_> {
        Cursor::at_end(&mut self.builder.p, self.block)
    }

    pub fn constant(&mut self, c: Constant) -> Value {
        self.builder.p.constant_value(c)
    }

    /// The tangent of `v` (zero where it has none).
    pub fn tangent(&mut self, v: Value) -> Value {
        self.builder.tangent(v)
    }

    /// Sets the tangent of the instruction's result.
    pub fn set(&mut self, tangent: Value) {
        if let Some(v) = self.result {
            self.builder.now().tangents.insert(v, tangent);
        }
    }

    /// How many lanes there are (vector mode's width).
    pub fn width(&self) -> usize {
        self.builder.lanes.len()
    }

    /// What the lanes of this function's rules share (vector mode).
    pub fn lane_share(&mut self) -> &mut crate::rules::emit::LaneShare {
        &mut self.builder.share
    }

    /// Works on lane `lane` from here on (for a family that handles all lanes at once).
    pub fn set_lane(&mut self, lane: usize) {
        self.builder.lane = lane;
    }

    /// The shadow of pointer `ptr`, and whether it is null where it may be (`shadows`):
    /// accesses then go to a zeroed scratch slot.
    pub fn shadow(&mut self, ptr: Value) -> Result<(Value, Option<Value>), TransformError> {
        let Some(shadow) = self.builder.lanes[self.builder.lane].shadows.get(&ptr).copied() else {
            return Err(TransformError::at(
                self.func(),
                self.inst,
                "internal error: a pointer to differentiated memory has no shadow",
            ));
        };
        match self.builder.scratch.filter(|_| self.builder.plan.nullable.contains(ptr)) {
            Some(scratch) => {
                let mut c = self.cursor();
                let missing = crate::shadows::is_null(&mut c, shadow);
                Ok((crate::shadows::or_scratch(&mut c, shadow, scratch), Some(missing)))
            }
            None => Ok((shadow, None)),
        }
    }

    /// The shadow of pointer `ptr`, if it has one.
    pub fn shadow_if_any(&self, ptr: Value) -> Option<Value> {
        self.builder.lanes[self.builder.lane].shadows.get(&ptr).copied()
    }

    /// Where the call's callee writes its result's tangent or shadow.
    pub fn ret_slot(&self) -> Option<Value> {
        self.builder.lanes[self.builder.lane].ret_slots.get(&self.inst).copied()
    }

    /// The tangent function being built.
    pub fn generated(&mut self) -> &mut Function {
        &mut self.builder.p
    }

    /// The copy of the instruction in the tangent function, to rewrite (a call to a
    /// differentiated callee becomes a call to its tangent function).
    pub fn copied_kind(&mut self) -> &mut InstKind {
        &mut self.builder.p.insts[self.inst].kind
    }
}

/// `p`, or null where `p` points into the stack (at or above the stack pointer: the thread's
/// frames, this one's and its callers'). Freeing null does nothing, in C and in C++.
fn off_the_stack(c: &mut Cursor<'_>, p: Value) -> Value {
    let sp = c.call("llvm.stacksave.p0", Signature::new(vec![], Type::PTR), vec![]).expect("stacksave returns");
    let on_stack = c.icmp(zyg_ir::IntPred::Uge, p, sp);
    let null = c.constant(Constant::Null(0));
    c.select(on_stack, null, p)
}
