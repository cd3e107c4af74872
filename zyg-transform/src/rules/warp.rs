//! The warp family: CUDA's warp shuffles of floats (`__shfl_down_sync`, `__shfl_up_sync`,
//! `__shfl_xor_sync`: `llvm.nvvm.shfl.sync.{down,up,bfly}.f32`) over a whole warp. A shuffle
//! gives lane `L` the value of lane `src(L)`, so its adjoint gives lane `j` the sum of the
//! adjoints of the lanes that read it, itself a shuffle the other way:
//!
//! - `down` by `k` reads `L + k`, or `L` itself past the warp's last lane: lane `j` gets
//!   lane `j - k`'s adjoint (an `up` shuffle, where `j >= k`), and its own where `j + k > 31`;
//! - `up` by `k` reads `L - k`, or `L` itself below lane `k`: lane `j` gets lane `j + k`'s
//!   (a `down` shuffle, where `j + k <= 31`), and its own where `j < k`;
//! - `bfly` (xor) with `m` reads `L ^ m`: lane `j` gets lane `j ^ m`'s, the same shuffle.
//!
//! The adjoint's shuffles run where the primal's ran, in the reversed control flow, so the
//! same lanes meet (the mask is the primal's). A tangent is the same shuffle of the tangent.
//! Refused: `idx` shuffles (a broadcast, whose adjoint is a sum over the warp) and
//! shuffles within parts of a warp (a width other than 32).

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::error::TransformError;
use crate::tangent::Tangent;
use zyg_ir::{BinOp, Callee, Constant, Inst, InstKind, IntPred, Signature, Type, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shuffle {
    Down,
    Up,
    Xor,
}

impl Shuffle {
    fn intrinsic(self) -> &'static str {
        match self {
            Shuffle::Down => "llvm.nvvm.shfl.sync.down.f32",
            Shuffle::Up => "llvm.nvvm.shfl.sync.up.f32",
            Shuffle::Xor => "llvm.nvvm.shfl.sync.bfly.f32",
        }
    }

    /// The clamp operand of a whole-warp shuffle: the last lane for `down` and `bfly`, the
    /// first for `up` (PTX's `c`, with no segment mask).
    fn whole_warp(self) -> i128 {
        match self {
            Shuffle::Up => 0,
            _ => 31,
        }
    }
}

pub struct Warp;

impl RuleFamily for Warp {
    fn name(&self) -> &'static str {
        "warp shuffles"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let InstKind::Call { callee: Callee::Direct(name), args, .. } = &cx.func.insts[inst].kind else { return Ok(None) };
        let Some(rest) = name.strip_prefix("llvm.nvvm.shfl.sync.") else { return Ok(None) };
        let kind = match rest {
            "down.f32" => Shuffle::Down,
            "up.f32" => Shuffle::Up,
            "bfly.f32" => Shuffle::Xor,
            _ => {
                return Err(TransformError::at(
                    cx.func,
                    inst,
                    format!(
                        "the warp shuffle `{name}` on active values is not supported yet: zyg differentiates \
                         `__shfl_down_sync`, `__shfl_up_sync` and `__shfl_xor_sync` of floats (an index shuffle's \
                         adjoint is a sum over the warp; a double goes through integers)"
                    ),
                ))
            }
        };
        let whole = cx.func.constant(args[3]).and_then(|c| c.as_i128()) == Some(kind.whole_warp());
        if !whole {
            return Err(TransformError::at(
                cx.func,
                inst,
                format!(
                    "a warp shuffle within parts of a warp (`{name}` with a width other than 32) is not supported \
                     yet; shuffle over the whole warp"
                ),
            ));
        }
        Ok(Some(Choice::Pullback(Pullback::Shuffle(kind))))
    }

    fn only_moves_the_result(&self, _pullback: &Pullback) -> bool {
        true
    }

    /// The mask and the offset, to shuffle again.
    fn alphas(&self, needs: &mut Alphas, inst: Inst, _pullback: &Pullback) {
        if let InstKind::Call { args, .. } = &needs.func.insts[inst].kind {
            needs.value(args[0]);
            needs.value(args[2]);
        }
    }

    fn reverse(&self, cx: &mut Reverse, pullback: &Pullback) -> Result<(), TransformError> {
        let (Pullback::Shuffle(kind), Some(d)) = (pullback, cx.d) else { return Ok(()) };
        let InstKind::Call { args, .. } = cx.kind().clone() else { return Ok(()) };
        let (mask, k) = (cx.alpha(args[0])?, cx.alpha(args[2])?);
        let mut c = cx.cursor();
        let shuffle = |c: &mut crate::builder::Cursor, kind: Shuffle, v: Value| {
            let clamp = c.i32(kind.whole_warp() as i64);
            let sig = Signature::new(vec![Type::I32, Type::F32, Type::I32, Type::I32], Type::F32);
            c.call(kind.intrinsic(), sig, vec![mask, v, k, clamp]).expect("a float")
        };
        let contribution = match kind {
            Shuffle::Xor => shuffle(&mut c, Shuffle::Xor, d),
            Shuffle::Down | Shuffle::Up => {
                let lane = c.call("llvm.nvvm.read.ptx.sreg.laneid", Signature::new(vec![], Type::I32), vec![]).expect("a lane");
                let zero = c.constant(Constant::Zero(Type::F32));
                let last = c.i32(31);
                let reach = c.binary(BinOp::Add, lane, k);
                // From the lane that read this one, and this lane's own where it read itself.
                let (from, read_other, read_self) = if *kind == Shuffle::Down {
                    (shuffle(&mut c, Shuffle::Up, d), c.icmp(IntPred::Uge, lane, k), c.icmp(IntPred::Ugt, reach, last))
                } else {
                    (shuffle(&mut c, Shuffle::Down, d), c.icmp(IntPred::Ule, reach, last), c.icmp(IntPred::Ult, lane, k))
                };
                let other = c.select(read_other, from, zero);
                let own = c.select(read_self, d, zero);
                c.binary(BinOp::FAdd, other, own)
            }
        };
        cx.accumulate(args[1], contribution);
        Ok(())
    }

    /// The same shuffle of the tangent.
    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Shuffle(kind) = pullback else { return Ok(()) };
        let InstKind::Call { args, .. } = cx.kind().clone() else { return Ok(()) };
        let t = cx.tangent(args[1]);
        let sig = Signature::new(vec![Type::I32, Type::F32, Type::I32, Type::I32], Type::F32);
        let shuffled = cx.cursor().call(kind.intrinsic(), sig, vec![args[0], t, args[2], args[3]]).expect("a float");
        cx.set(shuffled);
        Ok(())
    }
}
