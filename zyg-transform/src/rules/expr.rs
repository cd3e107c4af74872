//! The small expression language derivative rules are written in: the adjoint of each
//! operand as an expression of the operands (`x(i)`), the primal result (`r`) and the
//! result's adjoint (`d`). The transform emits these as zyg-ir; tests evaluate them.

use std::ops::{Add, Div, Mul, Neg, Sub};
use std::rc::Rc;
use zyg_ir::FloatPred;

/// A rule expression; cheap to clone.
#[derive(Clone, Debug)]
pub struct E(pub Rc<Node>);

#[derive(Debug)]
pub enum Node {
    /// The adjoint of the instruction's result.
    D,
    /// Operand `i` of the primal instruction.
    Arg(usize),
    /// The primal result.
    Res,
    Const(f64),
    Add(E, E),
    Sub(E, E),
    Mul(E, E),
    Div(E, E),
    Neg(E),
    /// A math function by its family name (`cos`, `pow`, `powi`, `trunc`, ...).
    Call(&'static str, Vec<E>),
    /// `cond ? a : b`, where `cond` is an `i1` expression.
    Select(E, E, E),
    Cmp(FloatPred, E, E),
    /// Both / either of two `i1` expressions (rules' edge-point conditions).
    And(E, E),
    Or(E, E),
    /// An integer operand converted to the working float type (`sitofp`).
    IntToFloat(E),
    /// An integer operand plus a constant (`n - 1` for `powi`).
    IntAdd(E, i64),
}

impl E {
    fn new(n: Node) -> E {
        E(Rc::new(n))
    }

    /// Calls `f` with the function name and arguments of each call in the expression.
    pub fn visit_calls(&self, f: &mut impl FnMut(&'static str, &[E])) {
        match &*self.0 {
            Node::D | Node::Const(_) | Node::Arg(_) | Node::Res => {}
            Node::Add(a, b) | Node::Sub(a, b) | Node::Mul(a, b) | Node::Div(a, b) | Node::And(a, b) | Node::Or(a, b) => {
                a.visit_calls(f);
                b.visit_calls(f);
            }
            Node::Cmp(_, a, b) => {
                a.visit_calls(f);
                b.visit_calls(f);
            }
            Node::Neg(a) | Node::IntToFloat(a) | Node::IntAdd(a, _) => a.visit_calls(f),
            Node::Call(name, xs) => {
                f(name, xs);
                xs.iter().for_each(|x| x.visit_calls(f));
            }
            Node::Select(c, a, b) => {
                c.visit_calls(f);
                a.visit_calls(f);
                b.visit_calls(f);
            }
        }
    }

    /// Operand indices and whether the result is read: the primal values ("alphas") the
    /// backpropagator needs at run time.
    pub fn needs(&self, operands: &mut Vec<usize>, result: &mut bool) {
        match &*self.0 {
            Node::D | Node::Const(_) => {}
            Node::Arg(i) => {
                if !operands.contains(i) {
                    operands.push(*i)
                }
            }
            Node::Res => *result = true,
            Node::Add(a, b)
            | Node::Sub(a, b)
            | Node::Mul(a, b)
            | Node::Div(a, b)
            | Node::Cmp(_, a, b)
            | Node::And(a, b)
            | Node::Or(a, b) => {
                a.needs(operands, result);
                b.needs(operands, result);
            }
            Node::Neg(a) | Node::IntToFloat(a) | Node::IntAdd(a, _) => a.needs(operands, result),
            Node::Call(_, args) => args.iter().for_each(|a| a.needs(operands, result)),
            Node::Select(c, a, b) => {
                c.needs(operands, result);
                a.needs(operands, result);
                b.needs(operands, result);
            }
        }
    }

    /// Evaluates the expression in f64 (booleans are 1.0 and 0.0), for rule tests.
    pub fn eval(&self, args: &[f64], r: f64, d: f64) -> f64 {
        let ev = |e: &E| e.eval(args, r, d);
        match &*self.0 {
            Node::D => d,
            Node::Arg(i) => args[*i],
            Node::Res => r,
            Node::Const(c) => *c,
            Node::Add(a, b) => ev(a) + ev(b),
            Node::Sub(a, b) => ev(a) - ev(b),
            Node::Mul(a, b) => ev(a) * ev(b),
            Node::Div(a, b) => ev(a) / ev(b),
            Node::Neg(a) => -ev(a),
            Node::Call(name, xs) => {
                let vals: Vec<f64> = xs.iter().map(ev).collect();
                super::math::eval_primal(name, &vals).unwrap_or(f64::NAN)
            }
            Node::Select(c, a, b) => {
                if ev(c) != 0.0 {
                    ev(a)
                } else {
                    ev(b)
                }
            }
            Node::Cmp(pred, a, b) => f64::from(compare(*pred, ev(a), ev(b)) as u8),
            Node::And(a, b) => f64::from((ev(a) != 0.0 && ev(b) != 0.0) as u8),
            Node::Or(a, b) => f64::from((ev(a) != 0.0 || ev(b) != 0.0) as u8),
            Node::IntToFloat(a) => ev(a),
            Node::IntAdd(a, k) => ev(a) + *k as f64,
        }
    }
}

/// IEEE comparison with LLVM's predicate meaning (ordered / unordered).
pub fn compare(pred: FloatPred, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match pred {
        FloatPred::False => false,
        FloatPred::True => true,
        FloatPred::Oeq => !unordered && a == b,
        FloatPred::Ogt => !unordered && a > b,
        FloatPred::Oge => !unordered && a >= b,
        FloatPred::Olt => !unordered && a < b,
        FloatPred::Ole => !unordered && a <= b,
        FloatPred::One => !unordered && a != b,
        FloatPred::Ord => !unordered,
        FloatPred::Uno => unordered,
        FloatPred::Ueq => unordered || a == b,
        FloatPred::Ugt => unordered || a > b,
        FloatPred::Uge => unordered || a >= b,
        FloatPred::Ult => unordered || a < b,
        FloatPred::Ule => unordered || a <= b,
        FloatPred::Une => unordered || a != b,
    }
}

// Constructors used by the rule tables.

pub fn d() -> E {
    E::new(Node::D)
}
pub fn x(i: usize) -> E {
    E::new(Node::Arg(i))
}
pub fn r() -> E {
    E::new(Node::Res)
}
pub fn c(v: f64) -> E {
    E::new(Node::Const(v))
}
pub fn call(name: &'static str, args: Vec<E>) -> E {
    E::new(Node::Call(name, args))
}
pub fn select(cond: E, a: E, b: E) -> E {
    E::new(Node::Select(cond, a, b))
}
pub fn cmp(pred: FloatPred, a: E, b: E) -> E {
    E::new(Node::Cmp(pred, a, b))
}
pub fn and(a: E, b: E) -> E {
    E::new(Node::And(a, b))
}
pub fn or(a: E, b: E) -> E {
    E::new(Node::Or(a, b))
}
pub fn int_to_float(a: E) -> E {
    E::new(Node::IntToFloat(a))
}
pub fn int_add(a: E, k: i64) -> E {
    E::new(Node::IntAdd(a, k))
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $node:ident) => {
        impl $trait for E {
            type Output = E;
            fn $method(self, rhs: E) -> E {
                E::new(Node::$node(self, rhs))
            }
        }
        impl $trait<f64> for E {
            type Output = E;
            fn $method(self, rhs: f64) -> E {
                E::new(Node::$node(self, c(rhs)))
            }
        }
    };
}
binary_operator!(Add, add, Add);
binary_operator!(Sub, sub, Sub);
binary_operator!(Mul, mul, Mul);
binary_operator!(Div, div, Div);

impl Neg for E {
    type Output = E;
    fn neg(self) -> E {
        E::new(Node::Neg(self))
    }
}
