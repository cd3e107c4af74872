//! Running a function: frames, blocks, phis, and each instruction.

use super::memory::Origin;
use super::value::{constant, field_offsets, layout, signed, Val};
use super::{ops, InterpError, Interpreter, DEPTH_LIMIT};
use crate::entities::{Block, Inst, Value};
use crate::function::{Function, ValueDef};
use crate::inst::{BinOp, Callee, InstKind, UnOp};
use crate::types::Type;
use cranelift_entity::SecondaryMap;
use std::rc::Rc;

/// One activation: its function, the values computed so far, the stack slots it made,
/// and where it is: the next instruction of `block`, entered from `pred`.
struct Frame {
    func: Rc<Function>,
    vals: SecondaryMap<Value, Option<Val>>,
    allocas: Vec<u64>,
    block: Block,
    next: usize,
    /// The call instruction waiting for a callee's result.
    waiting: Option<Inst>,
}

/// Where control goes after an instruction.
enum Flow {
    Next,
    Jump(Block),
    /// A call to a function with a body: a new frame.
    Call(Rc<Function>, Vec<Val>),
    Return(Option<Val>),
}

impl Frame {
    fn new(func: Rc<Function>, args: Vec<Val>) -> Result<Frame, InterpError> {
        check_args(&func, &args)?;
        let block = func.entry().ok_or_else(|| InterpError::Malformed(format!("`{}` has no body", func.name)))?;
        let mut vals = SecondaryMap::with_capacity(func.values.len());
        for (p, a) in func.params.iter().zip(args) {
            vals[*p] = Some(a);
        }
        let next = func.phis(block).count();
        if next > 0 {
            return Err(InterpError::Malformed(format!("phi in the entry of `{}`", func.name)));
        }
        Ok(Frame { func, vals, allocas: Vec::new(), block, next, waiting: None })
    }
}

impl Interpreter {
    /// Runs `func` on `args` to its return. Calls between functions with bodies use a stack
    /// of frames, not Rust's; each frame's stack slots are released when it returns.
    pub(super) fn run(&mut self, func: Rc<Function>, args: Vec<Val>) -> Result<Option<Val>, InterpError> {
        let mut stack = vec![Frame::new(func, args)?];
        let result = self.drive(&mut stack);
        for frame in stack {
            for a in frame.allocas {
                self.memory.release(a, Origin::Alloca)?;
            }
        }
        result
    }

    fn drive(&mut self, stack: &mut Vec<Frame>) -> Result<Option<Val>, InterpError> {
        loop {
            let depth = stack.len();
            let frame = stack.last_mut().expect("a frame");
            let inst = *frame.func.blocks[frame.block].insts.get(frame.next).ok_or_else(|| {
                InterpError::Malformed(format!(
                    "block {} of `{}` has no terminator",
                    frame.func.block_label(frame.block),
                    frame.func.name
                ))
            })?;
            self.tick()?;
            frame.next += 1;
            match self.step(frame, inst)? {
                Flow::Next => {}
                Flow::Jump(to) => self.enter(frame, to)?,
                Flow::Call(func, args) => {
                    if depth >= DEPTH_LIMIT {
                        return Err(InterpError::CallDepth(DEPTH_LIMIT));
                    }
                    frame.waiting = Some(inst);
                    stack.push(Frame::new(func, args)?);
                }
                Flow::Return(v) => {
                    let done = stack.pop().expect("the returning frame");
                    for a in done.allocas {
                        self.memory.release(a, Origin::Alloca)?;
                    }
                    let Some(caller) = stack.last_mut() else { return Ok(v) };
                    let call = caller.waiting.take().expect("a call waits");
                    if let Some(r) = caller.func.result(call) {
                        let v = v.ok_or_else(|| {
                            InterpError::Malformed(format!("a call in `{}` expects a result", caller.func.name))
                        })?;
                        caller.vals[r] = Some(v);
                    }
                }
            }
        }
    }

    /// Goes to `block`, evaluating its phis for the edge from the current block: all read
    /// before any is set.
    fn enter(&mut self, frame: &mut Frame, block: Block) -> Result<(), InterpError> {
        let func = Rc::clone(&frame.func);
        let from = frame.block;
        let mut values = Vec::new();
        for phi in func.phis(block) {
            self.tick()?;
            let InstKind::Phi { incoming } = &func.insts[phi].kind else { unreachable!("phis() gives phis") };
            let (_, v) = incoming.iter().find(|(b, _)| *b == from).ok_or_else(|| {
                InterpError::Malformed(format!(
                    "phi in {} of `{}` has no value for {}",
                    func.block_label(block),
                    func.name,
                    func.block_label(from)
                ))
            })?;
            values.push((func.result(phi), self.get(frame, *v)?));
        }
        frame.next = values.len();
        frame.block = block;
        for (result, v) in values {
            if let Some(r) = result {
                frame.vals[r] = Some(v);
            }
        }
        Ok(())
    }

    fn tick(&mut self) -> Result<(), InterpError> {
        self.steps += 1;
        if self.steps > self.step_limit {
            return Err(InterpError::StepLimit(self.step_limit));
        }
        Ok(())
    }

    fn get(&mut self, frame: &Frame, v: Value) -> Result<Val, InterpError> {
        match &frame.func.values[v].def {
            ValueDef::Const(c) => constant(c, &mut |name| self.address_of(name)),
            ValueDef::Param(_) | ValueDef::Inst(_) => frame.vals[v]
                .clone()
                .ok_or_else(|| InterpError::Malformed(format!("{v} used before it is defined in `{}`", frame.func.name))),
            ValueDef::Pending => Err(InterpError::Malformed(format!("{v} is never defined in `{}`", frame.func.name))),
        }
    }

    fn ptr(&mut self, frame: &Frame, v: Value) -> Result<u64, InterpError> {
        let p = self.get(frame, v)?;
        p.as_ptr().ok_or_else(|| InterpError::Malformed(format!("{p:?} used as a pointer")))
    }

    /// Runs one instruction that is not a phi.
    fn step(&mut self, frame: &mut Frame, inst: Inst) -> Result<Flow, InterpError> {
        let func = Rc::clone(&frame.func);
        let data = &func.insts[inst];
        let ty = || data.result.map(|r| func.ty(r).clone()).unwrap_or(Type::Void);
        let result = match &data.kind {
            InstKind::Binary { op, args: [a, b] } => Some(ops::binary(*op, &self.get(frame, *a)?, &self.get(frame, *b)?)?),
            InstKind::Unary { op: UnOp::FNeg, arg } => Some(ops::fneg(&self.get(frame, *arg)?)?),
            InstKind::Unary { op: UnOp::Freeze, arg } => Some(self.get(frame, *arg)?),
            InstKind::Cast { op, arg } => Some(ops::cast(*op, &self.get(frame, *arg)?, func.ty(*arg), &ty())?),
            InstKind::FCmp { pred, args: [a, b] } => Some(ops::fcmp(*pred, &self.get(frame, *a)?, &self.get(frame, *b)?)?),
            InstKind::ICmp { pred, args: [a, b] } => Some(ops::icmp(*pred, &self.get(frame, *a)?, &self.get(frame, *b)?)?),
            InstKind::Select { cond, then_value, else_value } => {
                let (c, t, e) = (self.get(frame, *cond)?, self.get(frame, *then_value)?, self.get(frame, *else_value)?);
                Some(select(&c, t, e)?)
            }
            InstKind::Phi { .. } => {
                return Err(InterpError::Malformed(format!("phi after other instructions in `{}`", func.name)))
            }
            InstKind::Call { callee, args, sig, .. } => return self.step_call(frame, data.result, callee, args, &sig.ret),
            InstKind::Alloca { ty } => Some(self.alloca(frame, ty)?),
            InstKind::Load { ty, ptr } => {
                let addr = self.ptr(frame, *ptr)?;
                Some(self.load(addr, ty)?)
            }
            InstKind::Store { value, ptr } => {
                let (v, addr) = (self.get(frame, *value)?, self.ptr(frame, *ptr)?);
                self.store(addr, &v, func.ty(*value))?;
                None
            }
            InstKind::AtomicFAdd { ptr, value, .. } => Some(self.atomic_fadd(frame, *ptr, *value)?),
            InstKind::AtomicRmw { .. } | InstKind::CmpXchg { .. } => {
                return Err(InterpError::Unsupported("integer atomics".into()))
            }
            InstKind::Gep { source_ty, base, indices, .. } => {
                let base = self.get(frame, *base)?;
                let indices = indices.iter().map(|i| self.get(frame, *i)).collect::<Result<Vec<_>, _>>()?;
                Some(gep(source_ty, &base, &indices)?)
            }
            InstKind::ExtractValue { agg, indices } => Some(extract_value(self.get(frame, *agg)?, indices)?),
            InstKind::InsertValue { agg, value, indices } => {
                let (mut a, v) = (self.get(frame, *agg)?, self.get(frame, *value)?);
                *field_mut(&mut a, indices)? = v;
                Some(a)
            }
            InstKind::ExtractElement { vec, index } => {
                let (v, i) = (self.get(frame, *vec)?, self.get(frame, *index)?);
                Some(lanes(&v)?.get(lane_index(&i)?).cloned().ok_or_else(|| lane_range(&i))?)
            }
            InstKind::InsertElement { vec, value, index } => {
                let (v, x, i) = (self.get(frame, *vec)?, self.get(frame, *value)?, self.get(frame, *index)?);
                Some(insert_element(v, x, &i)?)
            }
            InstKind::ShuffleVector { a, b, mask } => {
                let (a, b) = (self.get(frame, *a)?, self.get(frame, *b)?);
                Some(shuffle(lanes(&a)?, lanes(&b)?, mask)?)
            }
            InstKind::Br { dest } => return Ok(Flow::Jump(*dest)),
            InstKind::CondBr { cond, then_dest, else_dest } => {
                let c = self.get(frame, *cond)?;
                return Ok(Flow::Jump(if truth(&c)? { *then_dest } else { *else_dest }));
            }
            InstKind::Switch { value, default, cases } => {
                return Ok(Flow::Jump(self.switch_target(frame, *value, *default, cases)?))
            }
            InstKind::Ret { value } => return Ok(Flow::Return(value.map(|v| self.get(frame, v)).transpose()?)),
            InstKind::Unreachable => return Err(InterpError::Unreachable(func.name.clone())),
            // Calls never unwind here, so no handler runs.
            InstKind::LandingPad { .. } | InstKind::Resume { .. } => {
                return Err(InterpError::Unsupported("exception handling".into()))
            }
        };
        if let (Some(r), Some(v)) = (data.result, result) {
            frame.vals[r] = Some(v);
        }
        Ok(Flow::Next)
    }

    /// A call: a new frame for a function with a body, else the external function's result
    /// (stored here).
    fn step_call(
        &mut self,
        frame: &mut Frame,
        result: Option<Value>,
        callee: &Callee,
        args: &[Value],
        ret: &Type,
    ) -> Result<Flow, InterpError> {
        let args = args.iter().map(|a| self.get(frame, *a)).collect::<Result<Vec<_>, _>>()?;
        let name = match callee {
            Callee::Direct(name) => name.to_string(),
            Callee::Indirect(v) => {
                let addr = self.ptr(frame, *v)?;
                self.function_at(addr)?
            }
        };
        if let Some(f) = self.functions.get(&name) {
            return Ok(Flow::Call(Rc::clone(f), args));
        }
        let out = self.external(&name, &args, Some(ret))?;
        match (result, out) {
            (Some(_), None) => {
                Err(InterpError::Malformed(format!("a call in `{}` expects a result and got none", frame.func.name)))
            }
            (Some(r), Some(v)) => {
                frame.vals[r] = Some(v);
                Ok(Flow::Next)
            }
            (None, _) => Ok(Flow::Next),
        }
    }

    fn alloca(&mut self, frame: &mut Frame, ty: &Type) -> Result<Val, InterpError> {
        let (size, align) = layout(ty)?;
        let addr = self.memory.allocate(size, align, Origin::Alloca)?;
        frame.allocas.push(addr);
        Ok(Val::Ptr(addr))
    }

    /// `atomicrmw fadd`: a plain add (one thread); the result is the old value.
    fn atomic_fadd(&mut self, frame: &Frame, ptr: Value, value: Value) -> Result<Val, InterpError> {
        let (addr, v, vty) = (self.ptr(frame, ptr)?, self.get(frame, value)?, frame.func.ty(value));
        let old = self.load(addr, vty)?;
        self.store(addr, &ops::binary(BinOp::FAdd, &old, &v)?, vty)?;
        Ok(old)
    }

    /// The block a `switch` on `value` goes to.
    fn switch_target(
        &mut self,
        frame: &Frame,
        value: Value,
        default: Block,
        cases: &[(crate::Constant, Block)],
    ) -> Result<Block, InterpError> {
        let v = self.get(frame, value)?.as_u128();
        let hit = cases.iter().find(|(c, _)| matches!(c, crate::Constant::Int { value, .. } if Some(*value) == v));
        Ok(hit.map_or(default, |(_, b)| *b))
    }
}

fn check_args(func: &Function, args: &[Val]) -> Result<(), InterpError> {
    let bad = |message: String| Err(InterpError::BadArguments { function: func.name.clone(), message });
    if args.len() != func.sig.params.len() {
        return bad(format!("{} arguments, expected {}", args.len(), func.sig.params.len()));
    }
    for (i, (a, t)) in args.iter().zip(&func.sig.params).enumerate() {
        if !a.has_type(t) {
            return bad(format!("argument {i} {a:?}, expected a {t}"));
        }
    }
    Ok(())
}

fn truth(c: &Val) -> Result<bool, InterpError> {
    match c {
        Val::Int { bits: 1, value } => Ok(*value != 0),
        _ => Err(InterpError::Malformed(format!("{c:?} used as a condition"))),
    }
}

fn select(c: &Val, t: Val, e: Val) -> Result<Val, InterpError> {
    match (c, t, e) {
        (Val::Vector(cs), Val::Vector(ts), Val::Vector(es)) if cs.len() == ts.len() && ts.len() == es.len() => {
            let lanes = cs.iter().zip(ts.into_iter().zip(es)).map(|(c, (t, e))| Ok(if truth(c)? { t } else { e }));
            Ok(Val::Vector(lanes.collect::<Result<_, InterpError>>()?))
        }
        (c, t, e) => Ok(if truth(c)? { t } else { e }),
    }
}

fn lanes(v: &Val) -> Result<&[Val], InterpError> {
    match v {
        Val::Vector(lanes) => Ok(lanes),
        _ => Err(InterpError::Malformed(format!("{v:?} used as a vector"))),
    }
}

fn lane_index(i: &Val) -> Result<usize, InterpError> {
    i.as_u128().and_then(|i| usize::try_from(i).ok()).ok_or_else(|| lane_range(i))
}

fn lane_range(i: &Val) -> InterpError {
    InterpError::Malformed(format!("lane {i:?} out of range"))
}

fn insert_element(mut v: Val, x: Val, i: &Val) -> Result<Val, InterpError> {
    let Val::Vector(lanes) = &mut v else { return Err(InterpError::Malformed(format!("insertelement into {v:?}"))) };
    *lanes.get_mut(lane_index(i)?).ok_or_else(|| lane_range(i))? = x;
    Ok(v)
}

fn shuffle(a: &[Val], b: &[Val], mask: &[i32]) -> Result<Val, InterpError> {
    let zero = || a.first().map(Val::zero_like).ok_or_else(|| InterpError::Malformed("an empty vector".into()));
    let out = mask.iter().map(|m| match usize::try_from(*m) {
        Ok(i) if i < a.len() => Ok(a[i].clone()),
        Ok(i) if i < a.len() + b.len() => Ok(b[i - a.len()].clone()),
        Ok(_) => Err(InterpError::Malformed(format!("shufflevector lane {m} out of range"))),
        Err(_) => zero(),
    });
    Ok(Val::Vector(out.collect::<Result<_, _>>()?))
}

fn extract_value(mut agg: Val, indices: &[u32]) -> Result<Val, InterpError> {
    Ok(std::mem::replace(field_mut(&mut agg, indices)?, Val::Ptr(0)))
}

/// The field of an aggregate that `indices` name.
fn field_mut<'v>(agg: &'v mut Val, indices: &[u32]) -> Result<&'v mut Val, InterpError> {
    let mut v = agg;
    for &i in indices {
        v = match v {
            Val::Agg(fields) => {
                fields.get_mut(i as usize).ok_or_else(|| InterpError::Malformed(format!("field {i} out of range")))?
            }
            other => return Err(InterpError::Malformed(format!("field {i} of {other:?}"))),
        };
    }
    Ok(v)
}

/// `getelementptr`: the first index steps over whole `source_ty`s, the others into it.
/// With a vector base or vector indices, lane by lane.
fn gep(source_ty: &Type, base: &Val, indices: &[Val]) -> Result<Val, InterpError> {
    let width = std::iter::once(base).chain(indices).find_map(|v| match v {
        Val::Vector(lanes) => Some(lanes.len()),
        _ => None,
    });
    let lane = |v: &Val, i: usize| match v {
        Val::Vector(lanes) => lanes[i].clone(),
        scalar => scalar.clone(),
    };
    match width {
        None => gep_scalar(source_ty, base, indices),
        Some(n) => Ok(Val::Vector(
            (0..n)
                .map(|i| gep_scalar(source_ty, &lane(base, i), &indices.iter().map(|x| lane(x, i)).collect::<Vec<_>>()))
                .collect::<Result<_, _>>()?,
        )),
    }
}

fn gep_scalar(source_ty: &Type, base: &Val, indices: &[Val]) -> Result<Val, InterpError> {
    let mut addr = base.as_ptr().ok_or_else(|| InterpError::Malformed(format!("getelementptr from {base:?}")))?;
    let index = |v: &Val| match v {
        Val::Int { bits, value } => Ok(signed(*bits, *value) as i64 as u64),
        _ => Err(InterpError::Malformed(format!("getelementptr index {v:?}"))),
    };
    let mut ty = source_ty.clone();
    for (k, i) in indices.iter().enumerate() {
        let i = index(i)?;
        if k == 0 {
            addr = addr.wrapping_add(i.wrapping_mul(layout(&ty)?.0));
            continue;
        }
        ty = match &ty {
            Type::Struct(fields) => {
                let offset = *field_offsets(fields)?
                    .get(i as usize)
                    .ok_or_else(|| InterpError::Malformed(format!("struct field {i} out of range")))?;
                addr = addr.wrapping_add(offset);
                fields[i as usize].clone()
            }
            Type::Array(_, e) | Type::Vector(_, e) => {
                addr = addr.wrapping_add(i.wrapping_mul(layout(e)?.0));
                (**e).clone()
            }
            other => return Err(InterpError::Malformed(format!("getelementptr into {other}"))),
        };
    }
    Ok(Val::Ptr(addr))
}
