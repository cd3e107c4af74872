//! Table rules (`expr`) in the adjoint and the tangent sweep: the alphas an instruction's
//! rule reads, the code that computes each operand's contribution to the adjoint, and the
//! code that computes the result's tangent from the same rules (each is linear in the
//! result's adjoint `d`, so putting an operand's tangent in place of `d` gives that
//! operand's part of the tangent). Shared by the families whose rules are expressions:
//! arithmetic (`instructions`) and math calls (`math`).

use super::expr::{Node, E};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::builder::Cursor;
use crate::error::TransformError;
use crate::tangent::Tangent;
use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::SecondaryMap;
use std::collections::HashMap;
use zyg_ir::{BinOp, Block, Callee, CastOp, Constant, FloatTy, Function, Inst, InstKind, Signature, Type, Value};

/// The operands a rule's `x(i)` refers to: call arguments for calls, operands otherwise.
pub fn rule_operands(kind: &InstKind) -> Vec<Value> {
    match kind {
        InstKind::Call { args, .. } => args.clone(),
        _ => kind.operands(),
    }
}

/// The primal values (alphas) an active instruction's rule reads: the operands and result
/// the adjoints of its active operands use.
pub fn alphas(needs: &mut Alphas, inst: Inst, adjoints: &[Option<E>]) {
    let func = needs.func;
    let result = func.result(inst).expect("a rule's instruction has a result");
    let operands = rule_operands(&func.insts[inst].kind);
    let (mut indices, mut uses_result) = (Vec::new(), false);
    for (j, adjoint) in adjoints.iter().enumerate() {
        if let Some(e) = adjoint {
            if operands.get(j).is_some_and(|v| needs.activity.is_active(*v)) {
                e.needs(&mut indices, &mut uses_result);
            }
        }
    }
    indices.into_iter().filter_map(|i| operands.get(i).copied()).for_each(|v| needs.value(v));
    if uses_result {
        needs.value(result);
    }
    // A math call of the rule that the primal computes already is read, not called again.
    let ty = func.ty(result).clone();
    let calls = needs.calls;
    for (j, adjoint) in adjoints.iter().enumerate() {
        let Some(e) = adjoint.as_ref().filter(|_| operands.get(j).is_some_and(|v| needs.activity.is_active(*v))) else {
            continue;
        };
        e.visit_calls(&mut |name, xs| {
            if let Some(v) = calls.find(func, inst, name, xs, &operands, &ty, true) {
                needs.value(v);
            }
        });
    }
}

/// A math call's key in `PrimalCalls`: its block, its family's canonical name, its
/// arguments.
type CallKey = (Block, &'static str, Vec<Value>);

/// The primal's calls of math functions (`math::family`), indexed once per function so
/// that a rule can find one that already computes a call it needs (`find`).
pub struct PrimalCalls {
    /// By block, the family's canonical name and the arguments: the results, in the
    /// block's order, with their places in it.
    calls: HashMap<CallKey, Vec<(usize, Value)>>,
    /// Each instruction's block and place in it.
    place: SecondaryMap<Inst, (Block, usize)>,
}

impl PrimalCalls {
    pub fn index(func: &Function) -> PrimalCalls {
        let mut calls: HashMap<CallKey, Vec<(usize, Value)>> = HashMap::new();
        let mut place = SecondaryMap::with_default((Block::reserved_value(), 0));
        for &b in &func.layout {
            for (k, &inst) in func.blocks[b].insts.iter().enumerate() {
                place[inst] = (b, k);
                let InstKind::Call { callee: Callee::Direct(callee), args, .. } = &func.insts[inst].kind else { continue };
                let (Some(rule), Some(result)) = (super::math::family(callee), func.result(inst)) else { continue };
                calls.entry((b, rule.names[0], args.clone())).or_default().push((k, result));
            }
        }
        PrimalCalls { calls, place }
    }

    /// A call in the primal that already computes the rule's `name(xs)` (any spelling of
    /// the math function, in the result's type `ty`), where each of `xs` is an operand of
    /// the rule's instruction `inst`: the rule reads it instead of calling the function
    /// again (sin's rule reads the primal's cos of the same angle, as a rotation computes
    /// both). It must be in `inst`'s block, and, unless `later_too` (the adjoint, which
    /// reads the whole block's record), before `inst`.
    #[allow(clippy::too_many_arguments)]
    fn find(
        &self,
        func: &Function,
        inst: Inst,
        name: &str,
        xs: &[E],
        operands: &[Value],
        ty: &Type,
        later_too: bool,
    ) -> Option<Value> {
        let args: Vec<Value> = xs
            .iter()
            .map(|x| match &*x.0 {
                Node::Arg(i) => operands.get(*i).copied(),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let (b, at) = self.place[inst];
        let rule = super::math::family(name)?;
        let found = self.calls.get(&(b, rule.names[0], args))?;
        found.iter().take_while(|(k, _)| later_too || *k < at).map(|(_, v)| *v).find(|v| func.ty(*v) == ty)
    }
}

/// Each active operand's contribution, `adjoints[j]` computed in the result's type.
pub fn reverse(cx: &mut Reverse, adjoints: &[Option<E>]) -> Result<(), TransformError> {
    let (v, d) = (cx.result.expect("rule on an active result"), cx.d.expect("active result"));
    let func = cx.func();
    let operands = rule_operands(cx.kind());
    let ty = func.ty(v).clone();
    if ty.float_elem().is_none() {
        return Err(TransformError::at(func, cx.inst, "aggregate values are not differentiated yet"));
    }
    for (j, adjoint) in adjoints.iter().enumerate() {
        let Some(e) = adjoint else { continue };
        if !cx.plan().activity.is_active(operands[j]) {
            continue;
        }
        let env = Env { d, operands: &operands, result: v, ty: ty.clone(), inst: cx.inst, primals: Default::default() };
        let contribution = expr(cx, e, &env)?;
        cx.accumulate(operands[j], contribution);
    }
    Ok(())
}

/// Forward mode: the result's tangent, the sum over the active operands of their rules with
/// the operand's tangent in place of the result's adjoint.
pub fn tangent(cx: &mut Tangent, adjoints: &[Option<E>]) -> Result<(), TransformError> {
    let Some(v) = cx.result else { return Ok(()) };
    let func = cx.func();
    let operands = rule_operands(cx.kind());
    let ty = func.ty(v).clone();
    if ty.float_elem().is_none() {
        return Err(TransformError::at(func, cx.inst, "aggregate values are not differentiated yet"));
    }
    let mut sum = None;
    for (j, adjoint) in adjoints.iter().enumerate() {
        let Some(e) = adjoint else { continue };
        if !cx.plan().activity.is_active(operands[j]) {
            continue;
        }
        let d = cx.tangent(operands[j]);
        let env = Env { d, operands: &operands, result: v, ty: ty.clone(), inst: cx.inst, primals: Default::default() };
        let part = expr(cx, e, &env)?;
        let mut c = cx.cursor();
        let part = c.convert_float(part, &ty);
        sum = Some(match sum {
            Some(s) => c.binary(BinOp::FAdd, s, part),
            None => part,
        });
    }
    let t = match sum {
        Some(t) => t,
        None => cx.constant(Constant::Zero(ty)),
    };
    cx.set(t);
    Ok(())
}

/// Where a rule expression is emitted: the adjoint (`Reverse`, which reads primal values
/// from the tape or rebuilds them) or the tangent function (`Tangent`, where they are at
/// hand).
trait Site {
    fn func(&self) -> &Function;
    /// The primal's math calls (`PrimalCalls`).
    fn primal_calls(&self) -> &PrimalCalls;
    /// The prefix of generated names, which zyg's own math helpers carry (`digamma`).
    fn namespace(&self) -> &str;
    /// Whether primal values defined after the instruction in its block can be read (the
    /// adjoint, which reads the block's record); the tangent sweep reads only earlier ones.
    fn reads_later(&self) -> bool;
    /// The value of primal value `v` where the code goes.
    fn primal(&mut self, v: Value) -> Result<Value, TransformError>;
    fn cursor(&mut self) -> Cursor<'_>;
    fn constant(&mut self, c: Constant) -> Value;
    /// The instruction whose rule is emitted.
    fn inst(&self) -> Inst;
    /// Vector mode's lanes (1 otherwise).
    fn width(&self) -> usize;
    /// What the lanes of this builder's rules share (`LaneShare`).
    fn lane_share(&mut self) -> &mut LaneShare;
    /// Whether the expression is emitted once per lane of vector mode, so that what does not
    /// read `d` is computed once for all lanes (`shared`, `share`, `reciprocal`).
    fn has_lanes(&self) -> bool {
        self.width() > 1
    }
    /// With lanes: the value a part of the expression that does not read `d` already has
    /// here (the first lane's), by the part's node...
    fn shared(&mut self, node: &E) -> Option<Value> {
        let key = (self.inst(), std::rc::Rc::as_ptr(&node.0) as usize);
        self.lane_share().parts.get(&key).copied()
    }
    /// ...recorded by the first lane.
    fn share(&mut self, node: &E, v: Value) {
        let key = (self.inst(), std::rc::Rc::as_ptr(&node.0) as usize);
        self.lane_share().parts.insert(key, v);
    }
    /// With lanes: `1 / v` for a divisor every lane of this instruction's rule divides by,
    /// computed once (with the first lane's code, before the others'), so that N lanes cost
    /// one division and N products instead of N divisions (within an ulp of them).
    fn reciprocal(&mut self, v: Value) -> Value {
        let key = (self.inst(), v);
        if let Some(r) = self.lane_share().reciprocals.get(&key) {
            return *r;
        }
        let r = {
            let mut c = self.cursor();
            let one = c.constant(Constant::float_like(&c.func.ty(v).clone(), 1.0).expect("a float divisor"));
            c.binary(BinOp::FDiv, one, v)
        };
        self.lane_share().reciprocals.insert(key, r);
        r
    }
}

/// Vector mode: what the lanes of one instruction's rule compute once for all (the
/// adjoint's and the tangent sweep's builders each keep one): the parts that do not read
/// `d`, by instruction and the part's expression node (the same tree in every lane), and
/// the reciprocals of divisors, by instruction and divisor.
#[derive(Default)]
pub struct LaneShare {
    parts: std::collections::HashMap<(Inst, usize), Value>,
    reciprocals: std::collections::HashMap<(Inst, Value), Value>,
}

/// Whether `e` reads the result's adjoint or the operand's tangent (`d`), which differs by
/// lane in vector mode.
fn uses_d(e: &E) -> bool {
    match &*e.0 {
        Node::D => true,
        Node::Arg(_) | Node::Res | Node::Const(_) => false,
        Node::Add(a, b) | Node::Sub(a, b) | Node::Mul(a, b) | Node::Div(a, b) | Node::And(a, b) | Node::Or(a, b) => {
            uses_d(a) || uses_d(b)
        }
        Node::Cmp(_, a, b) => uses_d(a) || uses_d(b),
        Node::Neg(a) | Node::IntToFloat(a) | Node::IntAdd(a, _) => uses_d(a),
        Node::Call(_, args) => args.iter().any(uses_d),
        Node::Select(c, a, b) => uses_d(c) || uses_d(a) || uses_d(b),
    }
}

impl Site for Reverse<'_, '_, '_> {
    fn func(&self) -> &Function {
        Reverse::func(self)
    }
    fn primal_calls(&self) -> &PrimalCalls {
        &self.plan().primal_calls
    }
    fn namespace(&self) -> &str {
        &self.plan().namespace
    }
    fn reads_later(&self) -> bool {
        true
    }
    fn primal(&mut self, v: Value) -> Result<Value, TransformError> {
        self.alpha(v)
    }
    fn cursor(&mut self) -> Cursor<'_> {
        Reverse::cursor(self)
    }
    fn constant(&mut self, c: Constant) -> Value {
        Reverse::constant(self, c)
    }
    fn inst(&self) -> Inst {
        self.inst
    }
    fn width(&self) -> usize {
        Reverse::width(self)
    }
    fn lane_share(&mut self) -> &mut LaneShare {
        Reverse::lane_share(self)
    }
}

impl Site for Tangent<'_, '_, '_> {
    fn func(&self) -> &Function {
        Tangent::func(self)
    }
    fn primal_calls(&self) -> &PrimalCalls {
        &self.plan().primal_calls
    }
    fn namespace(&self) -> &str {
        &self.plan().namespace
    }
    fn reads_later(&self) -> bool {
        false
    }
    fn primal(&mut self, v: Value) -> Result<Value, TransformError> {
        Ok(v)
    }
    fn cursor(&mut self) -> Cursor<'_> {
        Tangent::cursor(self)
    }
    fn constant(&mut self, c: Constant) -> Value {
        Tangent::constant(self, c)
    }
    fn inst(&self) -> Inst {
        self.inst
    }
    fn width(&self) -> usize {
        Tangent::width(self)
    }
    fn lane_share(&mut self) -> &mut LaneShare {
        Tangent::lane_share(self)
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
    /// The primal values read so far, each read once per expression: in the adjoint each
    /// read is a load from the tape, and two loads of one float, one of them inspected as
    /// bits (`is_float_zero`), become an integer load and a float made from its bits once
    /// LLVM's instcombine has seen them, which a derivative of this adjoint (a nested
    /// request) would have to refuse.
    primals: std::cell::RefCell<std::collections::HashMap<Value, Value>>,
}

/// The value of primal value `v` where the expression goes, read once (`Env::primals`).
fn primal<S: Site>(cx: &mut S, env: &Env, v: Value) -> Result<Value, TransformError> {
    if let Some(p) = env.primals.borrow().get(&v) {
        return Ok(*p);
    }
    let p = cx.primal(v)?;
    env.primals.borrow_mut().insert(v, p);
    Ok(p)
}

/// Emits a rule expression.
fn expr<S: Site>(cx: &mut S, e: &E, env: &Env) -> Result<Value, TransformError> {
    if cx.has_lanes() && !matches!(&*e.0, Node::D | Node::Arg(_) | Node::Res | Node::Const(_)) && !uses_d(e) {
        if let Some(v) = cx.shared(e) {
            return Ok(v);
        }
        let v = node(cx, e, env)?;
        cx.share(e, v);
        return Ok(v);
    }
    node(cx, e, env)
}

/// Emits one node of a rule expression.
fn node<S: Site>(cx: &mut S, e: &E, env: &Env) -> Result<Value, TransformError> {
    let float = env.ty.clone();
    let sub = |cx: &mut S, e: &E| -> Result<Value, TransformError> { expr(cx, e, env) };
    Ok(match &*e.0 {
        Node::D => env.d,
        Node::Arg(i) => primal(cx, env, env.operands[*i])?,
        Node::Res => primal(cx, env, env.result)?,
        Node::Const(x) => {
            let c = Constant::float_like(&float, *x).expect("a float working type");
            cx.constant(c)
        }
        Node::Add(a, b) | Node::Sub(a, b) | Node::Mul(a, b) | Node::Div(a, b) => {
            let op = match &*e.0 {
                Node::Add(..) => BinOp::FAdd,
                Node::Sub(..) => BinOp::FSub,
                Node::Mul(..) => BinOp::FMul,
                _ => BinOp::FDiv,
            };
            let shared_divisor = op == BinOp::FDiv && cx.has_lanes() && !uses_d(b);
            let (a, b) = (sub(cx, a)?, sub(cx, b)?);
            let (a, b) = {
                let mut c = cx.cursor();
                (c.convert_float(a, &float), c.convert_float(b, &float))
            };
            // A divisor the same in every lane of vector mode: one reciprocal for all.
            if shared_divisor {
                let r = cx.reciprocal(b);
                cx.cursor().binary(BinOp::FMul, a, r)
            } else {
                cx.cursor().binary(op, a, b)
            }
        }
        Node::Neg(a) => {
            let a = sub(cx, a)?;
            cx.cursor().fneg(a)
        }
        Node::Call(name, xs) => {
            let func = cx.func();
            if let Some(v) = cx.primal_calls().find(func, env.inst, name, xs, env.operands, &float, cx.reads_later()) {
                return primal(cx, env, v);
            }
            let args = xs.iter().map(|a| sub(cx, a)).collect::<Result<Vec<_>, _>>()?;
            let namespace = cx.namespace().to_string();
            math_call(&mut cx.cursor(), &namespace, name, args, &float).ok_or_else(|| {
                TransformError::at(cx.func(), env.inst, format!("internal error: no call of `{name}` for {float}"))
            })?
        }
        Node::Select(cond, a, b) => {
            let (cond, a, b) = (sub(cx, cond)?, sub(cx, a)?, sub(cx, b)?);
            let mut c = cx.cursor();
            let (a, b) = (c.convert_float(a, &float), c.convert_float(b, &float));
            c.select(cond, a, b)
        }
        // `x == 0` as a test of the bits: an `fcmp` on an adjoint makes LLVM's Float2Int
        // pass walk the whole adjoint computation behind it, once per comparison (on a
        // 25,000-instruction straight-line gradient, 2.3 s of a 3.4 s -O2 run).
        Node::Cmp(zyg_ir::FloatPred::Oeq, a, b) if matches!(&*b.0, Node::Const(z) if *z == 0.0) => {
            let a = sub(cx, a)?;
            cx.cursor().is_float_zero(a)
        }
        Node::Cmp(pred, a, b) => {
            let (a, b) = (sub(cx, a)?, sub(cx, b)?);
            cx.cursor().fcmp(*pred, a, b)
        }
        Node::And(a, b) | Node::Or(a, b) => {
            let op = if matches!(&*e.0, Node::And(..)) { BinOp::And } else { BinOp::Or };
            let (a, b) = (sub(cx, a)?, sub(cx, b)?);
            cx.cursor().binary(op, a, b)
        }
        Node::IntToFloat(a) => {
            let a = sub(cx, a)?;
            let mut c = cx.cursor();
            match (&float, c.func.ty(a).clone()) {
                // A vector rule's scalar integer operand (`llvm.powi.v4f64.i32`'s exponent).
                (Type::Vector(n, elem), Type::Int(_)) => {
                    let scalar = c.cast(CastOp::SIToFP, a, (**elem).clone());
                    super::vectors::splat(&mut c, scalar, *n)
                }
                _ => c.cast(CastOp::SIToFP, a, float),
            }
        }
        Node::IntAdd(a, k) => {
            let a = sub(cx, a)?;
            let mut c = cx.cursor();
            let Type::Int(bits) = *c.func.ty(a) else {
                return Err(TransformError::in_function(cx.func(), "integer rule operand is not an integer"));
            };
            let k = c.constant(Constant::int(bits, i128::from(*k)));
            c.binary(BinOp::Add, a, k)
        }
    })
}

/// Calls a math function of family `name` in type `ty` (a float or a vector of floats):
/// an LLVM intrinsic where LLVM has one that every backend lowers
/// (`math::LLVM_INTRINSICS`), zyg's own helper for the functions the C library lacks
/// (`digamma`, named in `namespace`), the C library's function otherwise; for a vector
/// without an intrinsic (`cosh` for a vectorised `sinh`), the function lane by lane. None
/// for a type that is not a float or float vector.
pub fn math_call(c: &mut Cursor, namespace: &str, name: &str, args: Vec<Value>, ty: &Type) -> Option<Value> {
    let elem = ty.float_elem()?;
    let suffix = ty.mangled()?;
    let params: Vec<Type> = args.iter().map(|a| c.func.ty(*a).clone()).collect();
    let callee = if name == "powi" {
        format!("llvm.powi.{suffix}.{}", params[1])
    } else if super::math::LLVM_INTRINSICS.contains(&name) {
        format!("llvm.{name}.{suffix}")
    } else if let Type::Vector(n, scalar) = ty {
        let args: Vec<Value> = args.into_iter().map(|a| c.convert_float(a, ty)).collect();
        let mut out = c.constant(Constant::Poison(ty.clone()));
        for lane in 0..*n {
            let i = c.i32(i64::from(lane));
            let lanes: Vec<Value> = args.iter().map(|a| c.extract_element(*a, i)).collect();
            let y = math_call(c, namespace, name, lanes, scalar)?;
            out = c.insert_element(out, y, i);
        }
        return Some(out);
    } else if name == super::digamma::NAME {
        super::digamma::helper_name(namespace, elem)
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
