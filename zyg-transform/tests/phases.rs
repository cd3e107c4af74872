//! The transform's output run by zyg-ir's interpreter: for each function, the generated
//! primal computes what the original does, the primal's tape fed to the adjoint gives the
//! gradient entry's derivatives, and those match central finite differences of the original
//! (`dup` shadows included). Forward mode's entry, along a direction through every active
//! input, gives the objective's directional derivative: the gradient's dot product with the
//! direction. Every generated function verifies.
//!
//! The cases are the `.zir` files of `tests/zir/`: functions in zyg-ir's text form (loops in
//! LLVM's canonical shape: a preheader, one latch, LCSSA phis at the exits) under comment
//! lines that say what to check:
//!
//! ```text
//! ; case: poly dup,active,const      the function, and how each parameter takes part
//! ; seed: 0 [1.0,-0.5]               adjoints seeded into parameter 0's shadow
//! ; tape-bytes-at-most: 16           a bound on the tape's fixed record
//! ; at: [1.0,-2.0] 0.7 i3            a point: a buffer of doubles, a double, an integer
//! ```
//!
//! Each `case:` is checked at each of its `at:` points; every file of the directory runs.

mod common;

use std::path::Path;
use zyg_ir::interp::{layout, Interpreter, Val};
use zyg_ir::{Function, InstKind, Type};
use zyg_transform::ArgActivity::{self, Active, Const, Dup};
use zyg_transform::{Differentiator, Entry, Spec};

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
    text: String,
    func: String,
    args: Vec<ArgActivity>,
    seeds: Vec<(usize, Vec<f64>)>,
    /// The most bytes the tape's fixed record may take (the recompute plan and the tape
    /// layout keep what a loop needs per iteration off it), if the case says.
    tape_bytes_at_most: Option<u64>,
}

/// The transform's output and an interpreter of it and the original module.
struct Setup {
    interp: Interpreter,
    /// The original function's parameter types.
    params: Vec<Type>,
    grad: String,
    /// Forward mode's entry.
    fwd: String,
    primal: Function,
    adjoint: Function,
    tape_bytes: u64,
}

fn setup(case: &Case) -> Setup {
    let m = common::module_of(&case.text);
    let mut d = Differentiator::new(&m, "zyg");
    let spec = Spec::new(case.func.as_str(), case.args.clone());
    let g = d.gradient(&spec).unwrap_or_else(|e| panic!("{e}"));
    let fwd = d.entry(&spec, Entry::Forward).unwrap_or_else(|e| panic!("forward mode: {e}"));
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
        params: m.function(&case.func).expect("the function").sig.params.clone(),
        grad: g.name,
        fwd: fwd.name,
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
            shadows.push(
                (case.args[i] == Dup).then(|| it.alloc_f64s(&seeds(case, i, len(a))).unwrap().as_ptr().expect("a pointer")),
            );
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
    let result = s.interp.call(&case.func, &p.vals).unwrap_or_else(|e| panic!("{}: {e}", case.func));
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

/// A direction through every active input: one component per active float and per element
/// of each `dup` buffer, in parameter order.
fn direction(case: &Case, args: &[Arg]) -> Vec<Vec<f64>> {
    let mut k = 0.0;
    case.args
        .iter()
        .zip(args)
        .map(|(act, a)| {
            let n = if *act == Const { 0 } else { len(a) };
            (0..n)
                .map(|_| {
                    k += 1.0;
                    (k * 0.7_f64).sin() + 0.25
                })
                .collect()
        })
        .collect()
}

/// Forward mode's entry along `v`: each active float followed by its tangent, each `dup`
/// buffer by a shadow holding the direction's components; the objective's directional
/// derivative is the result's tangent plus the seeds times the shadows' final tangents.
fn forward_run(s: &mut Setup, case: &Case, args: &[Arg], v: &[Vec<f64>], at: &str) -> f64 {
    let (_, want_bufs) = original(s, case, args);
    let p = Prepared::new(s, case, args);
    let it = &mut s.interp;
    let mut given = Vec::new();
    let mut shadows = Vec::new();
    for (i, val) in p.vals.iter().enumerate() {
        given.push(val.clone());
        match case.args[i] {
            Active => given.push(Val::f64(v[i][0])),
            Dup => {
                let shadow = it.alloc_f64s(&v[i]).unwrap();
                shadows.push((i, shadow.as_ptr().expect("a pointer")));
                given.push(shadow);
            }
            Const => {}
        }
    }
    let out = it.call(&s.fwd, &given).unwrap_or_else(|e| panic!("{at}: forward mode: {e}"));
    assert_eq!(p.read(it, &p.bufs, args), want_bufs, "{at}: forward mode's primal memory");
    let mut jvp = out.and_then(|o| o.elements().and_then(|e| e.first().and_then(|t| t.as_f64()))).unwrap_or(0.0);
    for (i, shadow) in shadows {
        let tangents = it.read_f64s(shadow, len(&args[i])).unwrap();
        jvp += seeds(case, i, tangents.len()).iter().zip(&tangents).map(|(s, t)| s * t).sum::<f64>();
    }
    jvp
}

/// Runs every check of a case at each point; returns the interpreter, for more checks.
fn check(case: &Case, points: &[Vec<Arg>]) -> Interpreter {
    let mut s = setup(case);
    if let Some(most) = case.tape_bytes_at_most {
        assert!(s.tape_bytes <= most, "{} {:?}: a tape record of {} bytes, over {most}", case.func, case.args, s.tape_bytes);
    }
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
        // Forward mode along a direction: the gradient's dot product with it.
        let v = direction(case, args);
        let dot: f64 = got.iter().zip(&v).map(|(g, d)| g.iter().zip(d).map(|(a, b)| a * b).sum::<f64>()).sum();
        let jvp = forward_run(&mut s, case, args, &v, &at);
        assert!(close(jvp, dot, 1e-9), "{at}: forward mode gives {jvp}, the gradient along the direction is {dot}");
    }
    s.interp
}

/// The cases of one `.zir` file, each with its points.
fn cases_of(text: &str) -> Vec<(Case, Vec<Vec<Arg>>)> {
    let mut out: Vec<(Case, Vec<Vec<Arg>>)> = Vec::new();
    for line in text.lines() {
        let Some((key, rest)) = line.strip_prefix("; ").and_then(|l| l.split_once(": ")) else { continue };
        let rest = rest.trim();
        if key == "case" {
            let (func, kinds) = rest.split_once(' ').expect("`case: FUNC KINDS`");
            let args = kinds.split(',').map(|k| ArgActivity::parse(k).unwrap_or_else(|| panic!("kind `{k}`"))).collect();
            let case = Case { text: text.to_string(), func: func.to_string(), args, seeds: vec![], tape_bytes_at_most: None };
            out.push((case, vec![]));
            continue;
        }
        let Some((case, points)) = out.last_mut() else { continue };
        match key {
            "at" => points.push(rest.split_whitespace().map(arg).collect()),
            "seed" => {
                let (index, values) = rest.split_once(' ').expect("`seed: INDEX [v,...]`");
                case.seeds.push((index.parse().expect("an argument index"), floats(values)));
            }
            "tape-bytes-at-most" => case.tape_bytes_at_most = Some(rest.parse().expect("a byte count")),
            _ => {}
        }
    }
    out
}

/// `[1.0,2.0]`, `i3` or `0.5`.
fn arg(word: &str) -> Arg {
    if word.starts_with('[') {
        Buf(floats(word))
    } else if let Some(n) = word.strip_prefix('i') {
        I(n.parse().expect("an integer"))
    } else {
        F(word.parse().expect("a float"))
    }
}

fn floats(list: &str) -> Vec<f64> {
    let inner = list.trim().trim_start_matches('[').trim_end_matches(']');
    inner.split(',').filter(|w| !w.is_empty()).map(|w| w.trim().parse().expect("a float")).collect()
}

fn zir(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/zir").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every case of every file of `tests/zir/`.
#[test]
fn zir_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/zir");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut checked = 0;
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "zir")) {
        let text = std::fs::read_to_string(file).unwrap();
        let cases = cases_of(&text);
        assert!(!cases.is_empty(), "{}: no `; case:` line", file.display());
        for (case, points) in cases {
            assert!(!points.is_empty(), "{}: case {} has no `; at:` point", file.display(), case.func);
            eprintln!("{}: {} {:?}", file.display(), case.func, case.args);
            check(&case, &points);
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} cases found under {}", dir.display());
}

/// Many iterations: the tape's records outgrow a stack chunk (64 KiB), and the stacks'
/// released chunks wait in the cache, `{ ptr head, i64 count }`.
#[test]
fn long_loops_reuse_stack_chunks() {
    let text = zir("loops.zir");
    let case = Case { text, func: "poly".into(), args: vec![Const, Active, Const], seeds: vec![], tape_bytes_at_most: None };
    let long = vec![Buf((0..20_000).map(|k| 1.0 / f64::from(k + 1)).collect()), F(0.5), I(20_000)];
    let short = vec![Buf((0..40).map(|k| 1.0 / f64::from(k + 1)).collect()), F(0.99), I(40)];
    let it = check(&case, &[short, long]);
    let cache = "__zyg_stack_cache";
    let count = it.load(it.global(cache).unwrap() + 8, &Type::I64).unwrap();
    assert!(count.as_i128().unwrap() >= 2, "{count:?} chunks cached");
}
