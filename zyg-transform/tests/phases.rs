//! The transform's output run by zyg-ir's interpreter: for each function, the generated
//! primal computes what the original does, the primal's tape fed to the adjoint gives the
//! gradient entry's derivatives, and those match central finite differences of the original
//! (`dup` shadows included). Every generated function verifies.
//!
//! To add a case: write the function in the text form (loops in LLVM's canonical shape: a
//! preheader, one latch, LCSSA phis at the exits), give each parameter an `ArgActivity` and
//! a few points, and call `check`.

mod common;

use zyg_ir::interp::{layout, Interpreter, Val};
use zyg_ir::{Function, InstKind, Type};
use zyg_transform::ArgActivity::{self, Active, Const, Dup};
use zyg_transform::{stack, Differentiator, Spec};

/// An argument at one point: a float, a buffer of doubles, or an integer.
#[derive(Clone, Debug)]
enum Arg {
    F(f64),
    Buf(Vec<f64>),
    I(i64),
}
use Arg::{Buf, F, I};

/// A function to differentiate, how each parameter takes part, and the adjoints seeded into
/// the shadows of `dup` buffers (index of the argument, one seed per element): the objective
/// is the function's result (if a float) plus each seed times its element's final value.
struct Case {
    text: &'static str,
    func: &'static str,
    args: Vec<ArgActivity>,
    seeds: Vec<(usize, Vec<f64>)>,
}

/// The transform's output and an interpreter of it and the original module.
struct Setup {
    interp: Interpreter,
    /// The original function's parameter types.
    params: Vec<Type>,
    grad: String,
    primal: Function,
    adjoint: Function,
    tape_bytes: u64,
}

fn setup(case: &Case) -> Setup {
    let m = common::module_of(case.text);
    let mut d = Differentiator::new(&m, "zyg");
    let g = d.gradient(&Spec::new(case.func, case.args.clone())).unwrap_or_else(|e| panic!("{e}"));
    let output = d.finish();
    let out = output.functions;
    for f in &out {
        zyg_ir::verify(f).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    }
    let find = |name: &str| out.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no {name}")).clone();
    let entry = find(&g.name);
    let mask = g.name.rsplit('.').next().expect("a mask").to_string();
    // The gradient entry keeps the primal's tape in its first alloca.
    let tape_ty = entry
        .insts
        .values()
        .find_map(|i| match &i.kind {
            InstKind::Alloca { ty } => Some(ty.clone()),
            _ => None,
        })
        .expect("the tape's alloca");
    let mut interp = Interpreter::new(m.functions.iter().chain(&out));
    for g in &output.globals {
        interp.define_global(&g.name, &g.ty).unwrap();
    }
    Setup {
        interp,
        params: m.function(case.func).expect("the function").sig.params.clone(),
        grad: g.name,
        primal: find(&format!("{}.zyg.primal.{mask}", case.func)),
        adjoint: find(&format!("{}.zyg.adjoint.{mask}", case.func)),
        tape_bytes: layout(&tape_ty).unwrap().0.max(1),
    }
}

fn len(a: &Arg) -> usize {
    match a {
        Buf(xs) => xs.len(),
        _ => 1,
    }
}

fn seeds(case: &Case, index: usize, n: usize) -> Vec<f64> {
    case.seeds.iter().find(|(i, _)| *i == index).map_or(vec![0.0; n], |(_, s)| s.clone())
}

/// One point's arguments in the interpreter: fresh buffers, and a seeded shadow beside
/// each `dup` one.
struct Prepared {
    vals: Vec<Val>,
    bufs: Vec<Option<u64>>,
    shadows: Vec<Option<u64>>,
}

impl Prepared {
    fn new(s: &mut Setup, case: &Case, args: &[Arg]) -> Prepared {
        let it = &mut s.interp;
        let (mut vals, mut bufs, mut shadows) = (Vec::new(), Vec::new(), Vec::new());
        for (i, (a, ty)) in args.iter().zip(&s.params).enumerate() {
            let (v, buf) = match (a, ty) {
                (F(x), _) => (Val::f64(*x), None),
                (I(n), Type::Int(bits)) => (Val::int(*bits, i128::from(*n)), None),
                (Buf(xs), _) => {
                    let p = it.alloc_f64s(xs).unwrap();
                    (p.clone(), p.as_ptr())
                }
                (a, ty) => panic!("{a:?} for a {ty}"),
            };
            vals.push(v);
            bufs.push(buf);
            shadows.push((case.args[i] == Dup).then(|| it.alloc_f64s(&seeds(case, i, len(a))).unwrap().as_ptr().expect("a pointer")));
        }
        Prepared { vals, bufs, shadows }
    }

    /// The gradient entry's arguments: each `dup` argument followed by its shadow.
    fn interleaved(&self) -> Vec<Val> {
        let mut out = Vec::new();
        for (v, shadow) in self.vals.iter().zip(&self.shadows) {
            out.push(v.clone());
            out.extend(shadow.map(Val::Ptr));
        }
        out
    }

    /// The primal's arguments: the function's, then the shadows, then the tape.
    fn primal(&self, tape: u64) -> Vec<Val> {
        let mut out = self.vals.clone();
        out.extend(self.shadows.iter().flatten().map(|s| Val::Ptr(*s)));
        out.push(Val::Ptr(tape));
        out
    }

    fn read(&self, it: &Interpreter, which: &[Option<u64>], args: &[Arg]) -> Vec<Vec<f64>> {
        args.iter().zip(which).map(|(a, b)| b.map_or(Vec::new(), |p| it.read_f64s(p, len(a)).unwrap())).collect()
    }
}

/// The original function's result and its buffers' final contents.
fn original(s: &mut Setup, case: &Case, args: &[Arg]) -> (Option<Val>, Vec<Vec<f64>>) {
    let p = Prepared::new(s, case, args);
    let result = s.interp.call(case.func, &p.vals).unwrap_or_else(|e| panic!("{}: {e}", case.func));
    (result, p.read(&s.interp, &p.bufs, args))
}

/// The objective: the result plus the seeded buffers' final values.
fn objective(s: &mut Setup, case: &Case, args: &[Arg]) -> f64 {
    let (result, bufs) = original(s, case, args);
    let mut j = result.and_then(|v| v.as_f64()).unwrap_or(0.0);
    for (i, buf) in bufs.iter().enumerate() {
        j += seeds(case, i, buf.len()).iter().zip(buf).map(|(s, x)| s * x).sum::<f64>();
    }
    j
}

/// Central finite differences of the objective for each active float and `dup` buffer.
fn finite_differences(s: &mut Setup, case: &Case, args: &[Arg]) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    for (i, act) in case.args.iter().enumerate() {
        let mut grads = Vec::new();
        for k in 0..if *act == Const { 0 } else { len(&args[i]) } {
            let x = match &args[i] {
                F(x) => *x,
                Buf(xs) => xs[k],
                I(_) => unreachable!("integers are const"),
            };
            let h = 1e-6 * x.abs().max(1.0);
            let at = |d: f64| {
                let mut a = args.to_vec();
                match &mut a[i] {
                    F(x) => *x += d,
                    Buf(xs) => xs[k] += d,
                    I(_) => {}
                }
                a
            };
            let (plus, minus) = (at(h), at(-h));
            grads.push((objective(s, case, &plus) - objective(s, case, &minus)) / (2.0 * h));
        }
        out.push(grads);
    }
    out
}

/// Derivatives from a run: the adjoint's result (one per active float), then each `dup`
/// shadow's contents, in parameter order.
fn derivatives(it: &Interpreter, case: &Case, args: &[Arg], grads: Option<Val>, p: &Prepared) -> Vec<Vec<f64>> {
    let grads = grads.expect("a gradient struct");
    let mut active = grads.elements().expect("a struct").iter().map(|v| v.as_f64().expect("a float"));
    let shadows = p.read(it, &p.shadows, args);
    case.args
        .iter()
        .zip(shadows)
        .map(|(act, shadow)| match act {
            Active => vec![active.next().expect("one gradient per active argument")],
            Dup => shadow,
            Const => Vec::new(),
        })
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

fn assert_close(what: &str, got: &[Vec<f64>], want: &[Vec<f64>], tol: f64) {
    let ok = got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| g.len() == w.len() && g.iter().zip(w).all(|(a, b)| close(*a, *b, tol)));
    assert!(ok, "{what}:\n  got  {got:?}\n  want {want:?}");
}

/// The primal alone gives the original's result and memory, and a tape that the adjoint
/// (seeded 1) turns into derivatives; those are returned.
fn split_run(s: &mut Setup, case: &Case, args: &[Arg], at: &str) -> Vec<Vec<f64>> {
    let (want_result, want_bufs) = original(s, case, args);
    let p = Prepared::new(s, case, args);
    let it = &mut s.interp;
    let tape = it.alloc(s.tape_bytes).unwrap();
    let primal_args = p.primal(tape);
    assert_eq!(primal_args.len(), s.primal.sig.params.len(), "{at}: the primal's parameters");
    let result = it.call(&s.primal.name, &primal_args).unwrap_or_else(|e| panic!("{at}: primal: {e}"));
    assert_eq!(result, want_result, "{at}: the primal's result");
    assert_eq!(p.read(it, &p.bufs, args), want_bufs, "{at}: the primal's memory");
    let mut adjoint_args = vec![Val::Ptr(tape)];
    if s.adjoint.sig.params.len() == 2 {
        adjoint_args.push(Val::f64(1.0));
    }
    let grads = it.call(&s.adjoint.name, &adjoint_args).unwrap_or_else(|e| panic!("{at}: adjoint: {e}"));
    derivatives(it, case, args, grads, &p)
}

/// Runs every check of a case at each point; returns the interpreter, for more checks.
fn check(case: &Case, points: &[Vec<Arg>]) -> Interpreter {
    let mut s = setup(case);
    for args in points {
        let mut at = format!("{} {:?} at {args:?}", case.func, case.args);
        if at.len() > 300 {
            at = format!("{}...", &at[..300]);
        }
        let split = split_run(&mut s, case, args, &at);
        // The gradient entry: primal and adjoint in one call.
        let (_, want_bufs) = original(&mut s, case, args);
        let p = Prepared::new(&mut s, case, args);
        let grads = s.interp.call(&s.grad, &p.interleaved()).unwrap_or_else(|e| panic!("{at}: gradient: {e}"));
        assert_eq!(p.read(&s.interp, &p.bufs, args), want_bufs, "{at}: the gradient's primal memory");
        let got = derivatives(&s.interp, case, args, grads, &p);
        assert_close(&format!("{at}: split primal and adjoint against the gradient entry"), &split, &got, 1e-14);
        let want = finite_differences(&mut s, case, args);
        assert_close(&format!("{at}: gradient against finite differences"), &got, &want, 1e-6);
    }
    s.interp
}

const STRAIGHT_LINE: &str = r#"
declare double @sin(double)
declare double @exp(double)
declare double @sqrt(double)
declare double @llvm.pow.f64(double, double)

define double @mix(double %x, double %y) {
entry:
  %xy = fmul double %x, double %y
  %s = call double @sin(double %xy)
  %e = call double @exp(double %x)
  %q = fdiv double %e, double %y
  %xx = fmul double %x, double %x
  %yy = fmul double %y, double %y
  %r2 = fadd double %xx, double %yy
  %r = call double @sqrt(double %r2)
  %p = call double @llvm.pow.f64(double %r2, double 0.75)
  %a = fadd double %s, double %q
  %b = fsub double %a, double %r
  %c = fadd double %b, double %p
  ret double %c
}
"#;

#[test]
fn straight_line_math() {
    let points = [vec![F(0.3), F(1.7)], vec![F(-1.2), F(0.8)], vec![F(2.0), F(-0.5)]];
    check(&Case { text: STRAIGHT_LINE, func: "mix", args: vec![Active, Active], seeds: vec![] }, &points);
    check(&Case { text: STRAIGHT_LINE, func: "mix", args: vec![Const, Active], seeds: vec![] }, &points);
}

const LOOPS: &str = r#"
define double @sumsq(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sq = fmul double %v, double %v
  %acc.next = fadd double %acc, double %sq
  %i.next = add i64 %i, i64 1
  %more = icmp slt i64 %i.next, i64 %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi double [ %acc.next, %loop ]
  ret double %r
}

define double @poly(ptr %c, double %x, i64 %n) {
entry:
  %last = sub i64 %n, i64 1
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %k = sub i64 %last, i64 %i
  %p = getelementptr inbounds double, ptr %c, i64 %k
  %ck = load double, ptr %p
  %ax = fmul double %acc, double %x
  %acc.next = fadd double %ax, double %ck
  %i.next = add i64 %i, i64 1
  %more = icmp slt i64 %i.next, i64 %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi double [ %acc.next, %loop ]
  ret double %r
}
"#;

#[test]
fn loop_over_an_array_sum_of_squares() {
    let points = [
        vec![Buf(vec![1.0, -2.0, 3.0]), I(3)],
        vec![Buf(vec![0.5, 0.25, -4.0, 2.0, 1.5]), I(5)],
        vec![Buf(vec![7.0, 1.0, 1.0, 1.0]), I(2)],
    ];
    check(&Case { text: LOOPS, func: "sumsq", args: vec![Dup, Const], seeds: vec![] }, &points);
}

#[test]
fn loop_over_an_array_polynomial() {
    let points = [
        vec![Buf(vec![1.0, -2.0, 3.0]), F(0.7), I(3)],
        vec![Buf(vec![0.5, 0.25, -4.0, 2.0, 1.5]), F(-1.3), I(5)],
        vec![Buf((0..40).map(|k| 1.0 / f64::from(k + 1)).collect()), F(0.99), I(40)],
    ];
    check(&Case { text: LOOPS, func: "poly", args: vec![Dup, Active, Const], seeds: vec![] }, &points);
    // Many iterations: the tape's records outgrow a stack chunk (64 KiB).
    let long = vec![Buf((0..20_000).map(|k| 1.0 / f64::from(k + 1)).collect()), F(0.5), I(20_000)];
    let it = check(&Case { text: LOOPS, func: "poly", args: vec![Const, Active, Const], seeds: vec![] }, &[points[0].clone(), long]);
    // The stacks' released chunks wait in the cache, `{ ptr head, i64 count }`: the long
    // loop's records took several.
    let (cache, _) = stack::cache_global("zyg");
    let count = it.load(it.global(&cache).unwrap() + 8, &Type::I64).unwrap();
    assert!(count.as_i128().unwrap() >= 2, "{count:?} chunks cached");
}

const BRANCH: &str = r#"
declare double @sin(double)

define double @branch(double %x, double %y) {
entry:
  %pos = fcmp ogt double %x, double 0.0
  br i1 %pos, label %then, label %else
then:
  %a = fmul double %x, double %x
  %a2 = fmul double %a, double %y
  br label %join
else:
  %s = call double @sin(double %x)
  %b = fmul double %s, double %y
  br label %join
join:
  %r = phi double [ %a2, %then ], [ %b, %else ]
  %out = fadd double %r, double %x
  ret double %out
}
"#;

#[test]
fn a_branch_and_its_phi() {
    let points = [vec![F(1.5), F(2.0)], vec![F(-0.7), F(3.0)], vec![F(0.2), F(-1.0)]];
    check(&Case { text: BRANCH, func: "branch", args: vec![Active, Active], seeds: vec![] }, &points);
}

const MEMORY: &str = r#"
define double @mem(ptr %p, double %x) {
entry:
  %p1 = getelementptr inbounds double, ptr %p, i64 1
  %p2 = getelementptr inbounds double, ptr %p, i64 2
  %a = load double, ptr %p
  %b = load double, ptr %p1
  %ax = fmul double %a, double %x
  %c = fadd double %ax, double %b
  store double %c, ptr %p2
  %bx = fmul double %b, double %x
  store double %bx, ptr %p
  %a2 = load double, ptr %p
  %c2 = load double, ptr %p2
  %r = fmul double %a2, double %c2
  ret double %r
}

define void @scale(ptr %out, ptr %in, double %k, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %src = getelementptr inbounds double, ptr %in, i64 %i
  %dst = getelementptr inbounds double, ptr %out, i64 %i
  %v = load double, ptr %src
  %kv = fmul double %v, double %k
  %sq = fmul double %kv, double %v
  store double %sq, ptr %dst
  %i.next = add i64 %i, i64 1
  %more = icmp slt i64 %i.next, i64 %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
"#;

#[test]
fn loads_and_stores_through_a_dup_pointer() {
    let points = [vec![Buf(vec![1.0, 2.0, 3.0]), F(0.5)], vec![Buf(vec![-1.5, 0.25, 9.0]), F(2.0)], vec![Buf(vec![3.0, -1.0, 0.0]), F(-0.75)]];
    // The result, and the final values of p[1] and p[2] through their shadows' seeds.
    check(&Case { text: MEMORY, func: "mem", args: vec![Dup, Active], seeds: vec![(0, vec![0.0, 0.25, 0.5])] }, &points);
    check(&Case { text: MEMORY, func: "mem", args: vec![Dup, Active], seeds: vec![] }, &points);
}

#[test]
fn outputs_only_through_memory() {
    let points = [
        vec![Buf(vec![0.0; 3]), Buf(vec![1.0, 2.0, 3.0]), F(0.5), I(3)],
        vec![Buf(vec![5.0; 3]), Buf(vec![-1.0, 0.5, 2.0]), F(-2.0), I(3)],
        vec![Buf(vec![0.0; 3]), Buf(vec![4.0, 4.0, 4.0]), F(1.5), I(2)],
    ];
    let seeds = vec![(0, vec![1.0, -0.5, 2.0])];
    check(&Case { text: MEMORY, func: "scale", args: vec![Dup, Dup, Active, Const], seeds }, &points);
}

const CALLS: &str = r#"
declare double @exp(double)

define double @h(double %a, double %b) {
entry:
  %e = call double @exp(double %b)
  %r = fmul double %a, double %e
  ret double %r
}

define double @sumsq(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sq = fmul double %v, double %v
  %acc.next = fadd double %acc, double %sq
  %i.next = add i64 %i, i64 1
  %more = icmp slt i64 %i.next, i64 %n
  br i1 %more, label %loop, label %exit
exit:
  %r = phi double [ %acc.next, %loop ]
  ret double %r
}

define double @caller(ptr %p, double %x, double %y) {
entry:
  %u = call double @h(double %x, double %y)
  %v = call double @h(double %y, double %x)
  %n = call double @sumsq(ptr %p, i64 3)
  %uv = fmul double %u, double %v
  %r = fmul double %uv, double %n
  ret double %r
}

define double @power(double %x, i32 %n) {
entry:
  %done = icmp sle i32 %n, i32 0
  br i1 %done, label %base, label %step
base:
  ret double 1.0
step:
  %m = sub i32 %n, i32 1
  %rest = call double @power(double %x, i32 %m)
  %r = fmul double %x, double %rest
  ret double %r
}
"#;

#[test]
fn calls_to_defined_functions() {
    let points = [
        vec![Buf(vec![1.0, 0.5, -0.25]), F(0.3), F(-0.4)],
        vec![Buf(vec![2.0, 2.0, 2.0]), F(1.1), F(0.2)],
        vec![Buf(vec![-1.0, 3.0, 0.1]), F(-0.6), F(0.9)],
    ];
    check(&Case { text: CALLS, func: "caller", args: vec![Dup, Active, Active], seeds: vec![] }, &points);
}

#[test]
fn recursion_with_boxed_tapes() {
    let points = [vec![F(1.3), I(3)], vec![F(-0.8), I(5)], vec![F(2.0), I(0)]];
    check(&Case { text: CALLS, func: "power", args: vec![Active, Const], seeds: vec![] }, &points);
}
