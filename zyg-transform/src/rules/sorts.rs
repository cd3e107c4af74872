//! The sort family: `qsort(base, n, size, cmp)` and `qsort_r` on differentiated memory. A
//! sort is a permutation of whole elements, so its derivative is that permutation: the
//! adjoint of the element sorted to position k goes back to the position it came from.
//!
//! zyg does not call the library's sort. The primal first computes the permutation
//! (`sort_permutation`: a stable merge sort of the indices 0..n, comparing the elements
//! through the program's comparator, which sees the elements where they are), then moves
//! the elements by it (`permute`), and moves each lane's shadow memory by the same
//! permutation, byte for byte, as swapping the elements would have moved it: adjoints (or
//! tangents) with their floats, shadow pointers with their pointers. No type analysis of
//! the elements is needed for that, whatever they hold. The permutation goes on the tape;
//! the adjoint moves the shadow back by its inverse (`unpermute`) and frees it. Forward mode
//! permutes the tangents and frees it at once.
//!
//! Ties: the comparator's order of equal elements is the order they had (a stable sort),
//! which is one of the orders `qsort` may give (C leaves it unspecified); each input
//! element's derivative is then that of the position it was sorted to. The comparator is
//! taken to be inactive: it compares, and writes nothing zyg differentiates.

use super::{Choice, Classify, Pullback, RuleFamily};
use crate::adjoint::Reverse;
use crate::alphas::Alphas;
use crate::builder::Cursor;
use crate::error::TransformError;
use crate::tangent::Tangent;
use crate::Plan;
use std::collections::HashMap;
use zyg_ir::{Callee, Constant, Function, Inst, InstKind, Linkage, Signature, Type, Value};

/// Which sort, by where its comparator and the comparator's context are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SortKind {
    /// `qsort(base, n, size, cmp)`, `cmp(a, b)`.
    Plain,
    /// glibc's and musl's `qsort_r(base, n, size, cmp, arg)`, `cmp(a, b, arg)`.
    ContextLast,
    /// BSD's and macOS's `qsort_r(base, n, size, arg, cmp)`, `cmp(arg, a, b)`.
    ContextFirst,
}

impl SortKind {
    /// The (comparator, context) arguments of the call.
    fn comparator_and_context(self) -> (usize, Option<usize>) {
        match self {
            SortKind::Plain => (3, None),
            SortKind::ContextLast => (3, Some(4)),
            SortKind::ContextFirst => (4, Some(3)),
        }
    }

    /// How the helper calls the comparator on elements `%ea` and `%eb`.
    fn comparison(self) -> &'static str {
        match self {
            SortKind::Plain => "call i32 %cmp(ptr %ea, ptr %eb)",
            SortKind::ContextLast => "call i32 %cmp(ptr %ea, ptr %eb, ptr %context)",
            SortKind::ContextFirst => "call i32 %cmp(ptr %context, ptr %ea, ptr %eb)",
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            SortKind::Plain => "",
            SortKind::ContextLast => "_r",
            SortKind::ContextFirst => "_r_context_first",
        }
    }
}

pub struct Sorts;

impl RuleFamily for Sorts {
    fn name(&self) -> &'static str {
        "sorts"
    }

    fn classify(&self, cx: &Classify, inst: Inst) -> Result<Option<Choice>, TransformError> {
        let func = cx.func;
        let InstKind::Call { callee: Callee::Direct(name), args, .. } = &func.insts[inst].kind else { return Ok(None) };
        let kind = match (&**name, args.len()) {
            ("qsort", 4) => SortKind::Plain,
            ("qsort_r", 5) => {
                // A function's address is a global that is not a variable (zyg reads every
                // variable; a function only where it is called).
                let is_function = |v: Value| match func.constant(v) {
                    Some(Constant::Global(g, _)) => !cx.module.globals.contains_key(g),
                    _ => false,
                };
                match (is_function(args[3]), is_function(args[4])) {
                    (true, false) => SortKind::ContextLast,
                    (false, true) => SortKind::ContextFirst,
                    _ => {
                        return Err(TransformError::at(
                            func,
                            inst,
                            "cannot tell which argument of this `qsort_r` is the comparator (glibc passes it 4th, \
                             BSD and macOS 5th); pass the comparator function itself, by name",
                        ))
                    }
                }
            }
            _ => return Ok(None),
        };
        // A sort of memory that is not differentiated moves no derivative.
        if !cx.activity.has_shadow(args[0]) {
            return Ok(None);
        }
        if [args[1], args[2]].iter().any(|a| *func.ty(*a) != Type::I64) {
            return Err(TransformError::at(
                func,
                inst,
                format!(
                    "this `{name}`'s element count and size are not 64-bit integers; zyg differentiates sorts only \
                     where `size_t` has 64 bits"
                ),
            ));
        }
        Ok(Some(Choice::Pullback(Pullback::Sort(kind))))
    }

    /// The permutation (the tape the primal's sort wrote), the count and size, the shadows.
    fn alphas(&self, needs: &mut Alphas, inst: Inst, _pullback: &Pullback) {
        let InstKind::Call { args, .. } = &needs.func.insts[inst].kind else { return };
        needs.callee_tape(inst, Type::PTR);
        needs.value(args[1]);
        needs.value(args[2]);
        needs.shadow(args[0]);
    }

    /// Each lane's shadow goes back to where its elements came from; then the permutation
    /// is freed, once.
    fn reverse(&self, cx: &mut Reverse, _pullback: &Pullback) -> Result<(), TransformError> {
        let InstKind::Call { args, .. } = cx.kind() else { return Ok(()) };
        let (base, n, size) = (args[0], args[1], args[2]);
        let permutation = cx.callee_tape()?;
        let (n, size) = (cx.alpha(n)?, cx.alpha(size)?);
        let name = unpermute_name(&cx.plan().namespace);
        for lane in 0..cx.width() {
            cx.set_lane(lane);
            let shadow = cx.shadow(base)?;
            cx.cursor().call(&name, permute_signature(), vec![shadow, n, size, permutation]);
        }
        cx.set_lane(0);
        cx.cursor().free(permutation);
        Ok(())
    }

    /// The sort becomes the permutation's computation and the elements' move; each lane's
    /// tangents move by the same permutation, which is then freed.
    fn tangent(&self, cx: &mut Tangent, pullback: &Pullback) -> Result<(), TransformError> {
        let Pullback::Sort(kind) = pullback else { return Ok(()) };
        let InstKind::Call { args, .. } = cx.kind() else { return Ok(()) };
        let (base, n, size) = (args[0], args[1], args[2]);
        let namespace = cx.plan().namespace.clone();
        let (b, inst) = (cx.plan().block_of[cx.inst], cx.inst);
        let at = crate::primal::position(cx.generated(), b, inst);
        let mut c = Cursor { func: cx.generated(), block: b, at: Some(at) };
        let permutation = sort_in_place(&mut c, &namespace, *kind, args);
        *cx.copied_kind() = permute_call(&namespace, base, n, size, permutation);
        for lane in 0..cx.width() {
            cx.set_lane(lane);
            if let Some(shadow) = cx.shadow_if_any(base) {
                cx.cursor().call(&permute_name(&namespace), permute_signature(), vec![shadow, n, size, permutation]);
            }
        }
        cx.set_lane(0);
        cx.cursor().free(permutation);
        Ok(())
    }

    fn all_lanes(&self, _pullback: &Pullback) -> bool {
        true
    }
}

/// Before the sort's call: the permutation that sorts its elements (`sort_permutation`).
fn sort_in_place(c: &mut Cursor, namespace: &str, kind: SortKind, args: &[Value]) -> Value {
    let (comparator, context) = kind.comparator_and_context();
    let context = match context {
        Some(i) => args[i],
        None => c.constant(Constant::Null(0)),
    };
    let call_args = vec![args[0], args[1], args[2], args[comparator], context];
    c.call(&sort_permutation_name(namespace, kind), sort_permutation_signature(), call_args).expect("a permutation")
}

/// `permute(base, n, size, permutation)`, the call the sort becomes.
fn permute_call(namespace: &str, base: Value, n: Value, size: Value, permutation: Value) -> InstKind {
    let callee = Callee::Direct(permute_name(namespace).into());
    InstKind::Call { callee, sig: permute_signature(), args: vec![base, n, size, permutation], unwind: None }
}

/// In the primal (reverse mode): each sort computes its permutation first and becomes the
/// move of its elements by it; each lane's shadow moves the same way. Returns each sort's
/// permutation, which goes on the tape as a callee's tape does.
pub fn forward(plan: &Plan, p: &mut Function, lanes: &[HashMap<Value, Value>]) -> HashMap<Inst, Value> {
    let mut permutations = HashMap::new();
    for (inst, pullback) in super::chosen(&plan.pullbacks) {
        let Pullback::Sort(kind) = pullback else { continue };
        let InstKind::Call { args, .. } = p.insts[inst].kind.clone() else { continue };
        let (base, n, size) = (args[0], args[1], args[2]);
        let b = plan.block_of[inst];
        let at = crate::primal::position(p, b, inst);
        let mut c = Cursor { func: p, block: b, at: Some(at) };
        let permutation = sort_in_place(&mut c, &plan.namespace, *kind, &args);
        p.insts[inst].kind = permute_call(&plan.namespace, base, n, size, permutation);
        let after = crate::primal::position(p, b, inst) + 1;
        let mut c = Cursor { func: p, block: b, at: Some(after) };
        for shadows in lanes {
            let args = vec![shadows[&base], n, size, permutation];
            c.call(&permute_name(&plan.namespace), permute_signature(), args);
        }
        permutations.insert(inst, permutation);
    }
    permutations
}

pub fn sort_permutation_name(namespace: &str, kind: SortKind) -> String {
    format!("__{namespace}_sort_permutation{}", kind.suffix())
}

/// `(base, n, size, comparator, context) -> permutation`.
fn sort_permutation_signature() -> Signature {
    Signature::new(vec![Type::PTR, Type::I64, Type::I64, Type::PTR, Type::PTR], Type::PTR)
}

pub fn permute_name(namespace: &str) -> String {
    format!("__{namespace}_permute")
}

pub fn unpermute_name(namespace: &str) -> String {
    format!("__{namespace}_unpermute")
}

/// `(base, n, size, permutation)`.
fn permute_signature() -> Signature {
    Signature::new(vec![Type::PTR, Type::I64, Type::I64, Type::PTR], Type::Void)
}

/// `sort_permutation(base, n, size, cmp, context)`: heap memory holding the indices 0..n in
/// the order that sorts the elements, by a bottom-up merge sort (stable: a right element
/// goes first only when the comparator says it is smaller). The elements do not move.
/// Written in zyg's text form, loop variables in stack slots (LLVM promotes them).
pub fn sort_permutation(namespace: &str, kind: SortKind) -> Function {
    let text = r#"define internal ptr @NAME(ptr %base, i64 %n, i64 %size, ptr %cmp, ptr %context) {
entry:
  %from = alloca ptr
  %to = alloca ptr
  %i = alloca i64
  %width = alloca i64
  %lo = alloca i64
  %a = alloca i64
  %b = alloca i64
  %k = alloca i64
  %bytes = mul i64 %n, 8
  %first = call ptr @malloc(i64 %bytes)
  %second = call ptr @malloc(i64 %bytes)
  store ptr %first, ptr %from
  store ptr %second, ptr %to
  store i64 0, ptr %i
  br label %fill
fill:
  %fi = load i64, ptr %i
  %fmore = icmp ult i64 %fi, %n
  br i1 %fmore, label %fill_body, label %passes
fill_body:
  %fslot = getelementptr i64, ptr %first, i64 %fi
  store i64 %fi, ptr %fslot
  %fnext = add i64 %fi, 1
  store i64 %fnext, ptr %i
  br label %fill
passes:
  store i64 1, ptr %width
  br label %pass
pass:
  %w = load i64, ptr %width
  %pmore = icmp ult i64 %w, %n
  br i1 %pmore, label %pass_start, label %done
pass_start:
  store i64 0, ptr %lo
  br label %run
run:
  %l = load i64, ptr %lo
  %rmore = icmp ult i64 %l, %n
  br i1 %rmore, label %run_start, label %pass_end
run_start:
  %m0 = add i64 %l, %w
  %mbig = icmp ugt i64 %m0, %n
  %mid = select i1 %mbig, i64 %n, i64 %m0
  %h0 = add i64 %m0, %w
  %hbig = icmp ugt i64 %h0, %n
  %hi = select i1 %hbig, i64 %n, i64 %h0
  store i64 %l, ptr %a
  store i64 %mid, ptr %b
  store i64 %l, ptr %k
  br label %merge
merge:
  %kk = load i64, ptr %k
  %mmore = icmp ult i64 %kk, %hi
  br i1 %mmore, label %merge_body, label %run_end
merge_body:
  %aa = load i64, ptr %a
  %bb = load i64, ptr %b
  %src = load ptr, ptr %from
  %dst = load ptr, ptr %to
  %left_done = icmp uge i64 %aa, %mid
  br i1 %left_done, label %take_right, label %check_right
check_right:
  %right_done = icmp uge i64 %bb, %hi
  br i1 %right_done, label %take_left, label %compare
compare:
  %ap = getelementptr i64, ptr %src, i64 %aa
  %ai = load i64, ptr %ap
  %bp = getelementptr i64, ptr %src, i64 %bb
  %bi = load i64, ptr %bp
  %aoff = mul i64 %ai, %size
  %boff = mul i64 %bi, %size
  %ea = getelementptr i8, ptr %base, i64 %aoff
  %eb = getelementptr i8, ptr %base, i64 %boff
  %order = COMPARISON
  %right_first = icmp sgt i32 %order, 0
  br i1 %right_first, label %take_right, label %take_left
take_left:
  %lp = getelementptr i64, ptr %src, i64 %aa
  %lv = load i64, ptr %lp
  %lq = getelementptr i64, ptr %dst, i64 %kk
  store i64 %lv, ptr %lq
  %anext = add i64 %aa, 1
  store i64 %anext, ptr %a
  br label %merge_next
take_right:
  %rp = getelementptr i64, ptr %src, i64 %bb
  %rv = load i64, ptr %rp
  %rq = getelementptr i64, ptr %dst, i64 %kk
  store i64 %rv, ptr %rq
  %bnext = add i64 %bb, 1
  store i64 %bnext, ptr %b
  br label %merge_next
merge_next:
  %knext = add i64 %kk, 1
  store i64 %knext, ptr %k
  br label %merge
run_end:
  store i64 %hi, ptr %lo
  br label %run
pass_end:
  %f = load ptr, ptr %from
  %t = load ptr, ptr %to
  store ptr %t, ptr %from
  store ptr %f, ptr %to
  %w2 = mul i64 %w, 2
  store i64 %w2, ptr %width
  br label %pass
done:
  %sorted = load ptr, ptr %from
  %spare = load ptr, ptr %to
  call void @free(ptr %spare)
  ret ptr %sorted
}"#;
    let text = text.replace("NAME", &sort_permutation_name(namespace, kind)).replace("COMPARISON", kind.comparison());
    helper_from_text(&text)
}

/// `permute(base, n, size, permutation)`: element k of the result is element
/// `permutation[k]` of `base` (`inverse`: element `permutation[k]` of the result is element
/// k), through a buffer; nothing where `base` is null (a shadow of memory that is not
/// differentiated).
fn permutation_helper(name: &str, inverse: bool) -> Function {
    let text = r#"define internal void @NAME(ptr %base, i64 %n, i64 %size, ptr %perm) {
entry:
  %k = alloca i64
  %none = icmp eq ptr %base, null
  br i1 %none, label %done, label %start
start:
  %bytes = mul i64 %n, %size
  %buffer = call ptr @malloc(i64 %bytes)
  store i64 0, ptr %k
  br label %loop
loop:
  %kk = load i64, ptr %k
  %more = icmp ult i64 %kk, %n
  br i1 %more, label %body, label %copy_back
body:
  %pp = getelementptr i64, ptr %perm, i64 %kk
  %pk = load i64, ptr %pp
  %at_k = mul i64 %kk, %size
  %at_pk = mul i64 %pk, %size
  %target = getelementptr i8, ptr %buffer, i64 TARGET
  %source = getelementptr i8, ptr %base, i64 SOURCE
  call void @llvm.memcpy.p0.p0.i64(ptr %target, ptr %source, i64 %size, i1 false)
  %knext = add i64 %kk, 1
  store i64 %knext, ptr %k
  br label %loop
copy_back:
  call void @llvm.memcpy.p0.p0.i64(ptr %base, ptr %buffer, i64 %bytes, i1 false)
  call void @free(ptr %buffer)
  br label %done
done:
  ret void
}"#;
    let (target, source) = if inverse { ("%at_pk", "%at_k") } else { ("%at_k", "%at_pk") };
    let text = text.replace("NAME", name).replace("TARGET", target).replace("SOURCE", source);
    let mut f = helper_from_text(&text);
    f.attributes = vec!["nounwind".into()];
    f
}

pub fn permute(namespace: &str) -> Function {
    permutation_helper(&permute_name(namespace), false)
}

pub fn unpermute(namespace: &str) -> Function {
    permutation_helper(&unpermute_name(namespace), true)
}

fn helper_from_text(text: &str) -> Function {
    let module = zyg_ir::text::parse_module(text).expect("zyg's sort helpers parse");
    let mut f = module.functions.into_iter().next().expect("one function");
    f.linkage = Linkage::Internal;
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_parse_and_verify() {
        for kind in [SortKind::Plain, SortKind::ContextLast, SortKind::ContextFirst] {
            let f = sort_permutation("zyg", kind);
            zyg_ir::verify::verify(&f).unwrap_or_else(|e| panic!("{kind:?}: {e:?}"));
        }
        for f in [permute("zyg"), unpermute("zyg")] {
            zyg_ir::verify::verify(&f).unwrap_or_else(|e| panic!("{}: {e:?}", f.name));
        }
    }
}
