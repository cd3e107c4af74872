//! The arithmetic family: LLVM's floating-point instructions (binary and unary operations,
//! float-to-float casts, `select`), one table per kind of instruction. It is asked last
//! (`rules::FAMILIES`): an instruction no family claims and no table covers is an error.

use super::expr::{c, call, d, r, select, x, E};
use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::error::TransformError;
use crate::tangent::Tangent;
use zyg_ir::{BinOp, CastOp, Inst, InstKind, UnOp};

/// A rule for a two-operand instruction: the adjoints of x(0) and x(1).
pub type BinaryRule = fn() -> [E; 2];
/// A rule for a one-operand instruction.
pub type UnaryRule = fn() -> E;

/// Binary arithmetic: adjoints of (x(0), x(1)).
pub static BINARY: &[(BinOp, BinaryRule)] = &[
    (BinOp::FAdd, || [d(), d()]),
    (BinOp::FSub, || [d(), -d()]),
    (BinOp::FMul, || [d() * x(1), d() * x(0)]),
    // d(x/y)/dy = -x/y² = -r/y, which reuses the result instead of squaring y.
    (BinOp::FDiv, || [d() / x(1), -(d() * r() / x(1))]),
    // frem(x, y) = x - n·y with n = trunc(x/y) exact, which is round((x - r)/y) (as fmod's
    // rule in math.rs: trunc of the rounded quotient can be one too many).
    (BinOp::FRem, || [d(), -(d() * call("round", vec![(x(0) - r()) / x(1)]))]),
];

pub static UNARY: &[(UnOp, UnaryRule)] = &[(UnOp::FNeg, || -d()), (UnOp::Freeze, d)];

/// Float-to-float casts pass the adjoint through; the emitter converts it to the operand's
/// type. Casts to or from integers carry no derivative and have no entry.
pub static CASTS: &[(CastOp, UnaryRule)] = &[(CastOp::FPExt, d), (CastOp::FPTrunc, d)];

/// The adjoint of each operand of `kind` (None: no derivative flows to that operand), or
/// None when the instruction is not differentiated by a table rule.
pub fn adjoints(kind: &InstKind) -> Option<Vec<Option<E>>> {
    Some(match kind {
        InstKind::Binary { op, .. } => {
            let [a, b] = (BINARY.iter().find(|(o, _)| o == op)?.1)();
            vec![Some(a), Some(b)]
        }
        InstKind::Unary { op, .. } => vec![Some((UNARY.iter().find(|(o, _)| o == op)?.1)())],
        InstKind::Cast { op, .. } => vec![Some((CASTS.iter().find(|(o, _)| o == op)?.1)())],
        InstKind::Select { .. } => {
            vec![None, Some(select(x(0), d(), c(0.0))), Some(select(x(0), c(0.0), d()))]
        }
        _ => return None,
    })
}

/// Floating-point instructions by their tables (`adjoints`).
pub struct Arithmetic;

impl RuleFamily for Arithmetic {
    fn name(&self) -> &'static str {
        "arithmetic"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let kind = &cx.func.insts[inst].kind;
        let adjoints = adjoints(kind)
            .ok_or_else(|| TransformError::at(cx.func, inst, format!("zyg cannot differentiate `{}` yet", kind.opcode_name())))?;
        Ok(Some(Choice::Pullback(Pullback::Arithmetic(adjoints))))
    }

    fn only_moves_the_result(&self, _pullback: &Pullback) -> bool {
        true
    }

    fn alphas(&self, needs: &mut Alphas, inst: Inst, pullback: &Pullback) {
        if let Pullback::Arithmetic(adjoints) = pullback {
            super::emit::alphas(needs, inst, adjoints);
        }
    }

    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError> {
        match pullback {
            Pullback::Arithmetic(adjoints) => super::emit::reverse(cx, adjoints),
            _ => Ok(()),
        }
    }

    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        match pullback {
            Pullback::Arithmetic(adjoints) => super::emit::tangent(cx, adjoints),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, primal: impl Fn(f64, f64) -> f64, rule: [E; 2]) {
        for (a, b) in [(1.3, 0.7), (-2.1, 0.45), (5.5, -1.7)] {
            let res = primal(a, b);
            let h = 1e-6;
            let fd = [(primal(a + h, b) - primal(a - h, b)) / (2.0 * h), (primal(a, b + h) - primal(a, b - h)) / (2.0 * h)];
            for i in 0..2 {
                let got = rule[i].eval(&[a, b], res, 1.0);
                assert!((got - fd[i]).abs() < 1e-6 * fd[i].abs().max(1.0), "{name} operand {i}: {got} vs {}", fd[i]);
            }
        }
    }

    #[test]
    fn binary_rules_match_finite_differences() {
        let primal = |op: BinOp| -> fn(f64, f64) -> f64 {
            match op {
                BinOp::FAdd => |a, b| a + b,
                BinOp::FSub => |a, b| a - b,
                BinOp::FMul => |a, b| a * b,
                BinOp::FDiv => |a, b| a / b,
                BinOp::FRem => |a, b| a % b,
                _ => unreachable!(),
            }
        };
        for (op, rule) in BINARY {
            check(op.name(), primal(*op), rule());
        }
    }

    /// frem's quotient where x/y rounds up to an integer: 1 = 9·0.1 + 0.0999..., so
    /// d frem(1, 0.1) / dy is -9 (trunc(1/0.1) would say -10); and y = inf, -0.
    #[test]
    fn frem_counts_the_exact_quotient() {
        let [dx, dy] = (BINARY.iter().find(|(o, _)| *o == BinOp::FRem).unwrap().1)();
        for (a, b, want) in [(1.0, 0.1, -9.0), (5.0, f64::INFINITY, 0.0), (-0.0, 1.0, 0.0), (-7.0, 2.0, 3.0)] {
            let r: f64 = a % b;
            assert_eq!((dx.eval(&[a, b], r, 1.0), dy.eval(&[a, b], r, 1.0)), (1.0, want), "frem({a}, {b})");
        }
    }

    #[test]
    fn select_routes_the_adjoint() {
        let rule = adjoints(&InstKind::Select {
            cond: zyg_ir::Value::from_u32(0),
            then_value: zyg_ir::Value::from_u32(1),
            else_value: zyg_ir::Value::from_u32(2),
        })
        .unwrap();
        let (t, e) = (rule[1].clone().unwrap(), rule[2].clone().unwrap());
        assert_eq!((t.eval(&[1.0, 5.0, 6.0], 5.0, 2.0), e.eval(&[1.0, 5.0, 6.0], 5.0, 2.0)), (2.0, 0.0));
        assert_eq!((t.eval(&[0.0, 5.0, 6.0], 6.0, 2.0), e.eval(&[0.0, 5.0, 6.0], 6.0, 2.0)), (0.0, 2.0));
    }

    #[test]
    fn unary_and_casts() {
        assert_eq!(UNARY[0].1().eval(&[3.0], -3.0, 2.0), -2.0);
        assert_eq!(CASTS[0].1().eval(&[3.0], 3.0, 2.0), 2.0);
    }
}
