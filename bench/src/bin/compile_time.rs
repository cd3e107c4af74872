//! Compile-time benchmark: how long `zyg grad` takes as modules grow.
//!
//! Generates LLVM IR modules of two kinds and times the zyg binary on each:
//! - `functions`: N small differentiable functions (a loop over an array with a load, a math
//!   call, multiplications and additions; 20 instructions), each with its own
//!   `__enzyme_autodiff` request in a wrapper: N in {250, 500, 1000};
//! - `instructions`: one straight-line function of about N instructions (a chain of fmul,
//!   sin/cos/exp, fadd, with a load from the active array every 8 steps) and one request:
//!   N in {6,250, 12,500, 25,000, 50,000, 100,000}.
//!
//! Each module is run through `zyg grad` at -O2 (the default: zyg's transform, then LLVM's
//! whole-module -O2 pipeline) and at -O0 (the transform, and only sroa/mem2reg on the generated
//! functions), three times (once when a run takes more than 15 s); the median wall-clock time
//! is kept. -O0 is timed only where -O2 took less than 60 s. Results go to
//! `target/zyg-bench/compile_time.json` (read by `report`) and to standard output.
//!
//! Usage: compile_time [ZYG_BINARY]   (default: target/release/zyg)
//! ZYG_BENCH_QUICK=1: small sizes, one run each. ZYG_BENCH_COMPILE_FUNCTIONS and
//! ZYG_BENCH_COMPILE_INSTRUCTIONS (comma-separated sizes) replace the sizes;
//! ZYG_BENCH_COMPILE_TIMEOUT (seconds, default 240) bounds one run: a run past it is killed,
//! recorded as timed out, and the larger sizes of its series are skipped at that level.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use zyg_bench::{median, quick, target_dir};

/// `target datalayout` and `target triple` lines for the host, from clang.
fn target_lines() -> String {
    let clang = std::env::var("ZYG_CLANG").unwrap_or_else(|_| "clang-22".into());
    let out = Command::new(&clang).args(["-S", "-emit-llvm", "-x", "c", "/dev/null", "-o", "-"]).output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    text.lines()
        .filter(|l| l.starts_with("target datalayout") || l.starts_with("target triple"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Runs slower than this many seconds are not repeated (their noise is small beside them).
const SLOW_S: f64 = 15.0;
/// -O0 is timed only where -O2 took less than this many seconds (to keep the run short: the
/// two cost the same where it matters, see RESULTS.md).
const O0_UNDER_S: f64 = 60.0;

const MATH: &[&str] = &["sin", "cos", "exp"];

/// A double constant LLVM prints exactly (hexadecimal form).
fn constant(x: f64) -> String {
    format!("0x{:016X}", x.to_bits())
}

/// A module generator: (size, the target's header lines) -> (module text, instructions).
type GenerateModule = fn(usize, &str) -> (String, usize);

/// N functions of 20 instructions, each with a request in a wrapper. Returns (module, number
/// of instructions of the differentiated functions).
fn functions_module(n: usize, header: &str) -> (String, usize) {
    let mut m = String::from(header);
    m.push_str("declare double @__enzyme_autodiff(ptr, ...)\n");
    for f in MATH {
        let _ = writeln!(m, "declare double @llvm.{f}.f64(double)");
    }
    for i in 0..n {
        let math = MATH[i % MATH.len()];
        let c1 = constant(0.5 + (i % 97) as f64 / 97.0);
        let c2 = constant(1.0 + (i % 89) as f64 / 89.0);
        // 20 instructions: entry 1, loop 15, exit 4
        let _ = write!(
            m,
            "
define internal double @f{i}(ptr %x, i32 %n, double %a) {{
entry:
  br label %loop
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %jx = zext i32 %j to i64
  %p = getelementptr inbounds double, ptr %x, i64 %jx
  %v = load double, ptr %p, align 8
  %t = fmul double %v, %a
  %u = call double @llvm.{math}.f64(double %t)
  %w = fmul double %u, %v
  %c = fadd double %w, {c1}
  %q = fmul double %c, %s
  %r = fadd double %q, %c
  %s1 = fmul double %r, {c2}
  %j1 = add nuw nsw i32 %j, 1
  %done = icmp sge i32 %j1, %n
  br i1 %done, label %exit, label %loop
exit:
  %e = fmul double %s1, %a
  %g = call double @llvm.{math}.f64(double %e)
  %h = fadd double %g, %s1
  ret double %h
}}

define double @grad{i}(ptr %x, ptr %dx, i32 %n, double %a) {{
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f{i}, ptr %x, ptr %dx, i32 %n, double %a)
  ret double %d
}}
"
        );
    }
    (m, 20 * n)
}

/// One straight-line function of about `n` instructions and one request. Returns (module,
/// exact number of instructions of the differentiated function).
fn instructions_module(n: usize, header: &str) -> (String, usize) {
    let mut m = String::from(header);
    m.push_str("declare double @__enzyme_autodiff(ptr, ...)\n");
    for f in MATH {
        let _ = writeln!(m, "declare double @llvm.{f}.f64(double)");
    }
    let mut body = String::new();
    let mut count = 0usize;
    // v(k) = (math(v(k-1) * c_k) + v(k-2)) * 0.5 [+ x[k % 64] every 8 steps]: bounded values
    let _ = writeln!(body, "  %v0 = fmul double %a, 1.0");
    let _ = writeln!(body, "  %v1 = fmul double %a, 0.5");
    count += 2;
    let mut k = 2usize;
    while count + 4 < n {
        let math = MATH[k % MATH.len()];
        let c = constant(0.25 + (k % 101) as f64 / 202.0);
        let _ = writeln!(body, "  %m{k} = fmul double %v{}, {c}", k - 1);
        let _ = writeln!(body, "  %s{k} = call double @llvm.{math}.f64(double %m{k})");
        let _ = writeln!(body, "  %t{k} = fadd double %s{k}, %v{}", k - 2);
        count += 3;
        if k.is_multiple_of(8) && count + 6 < n {
            let _ = writeln!(body, "  %p{k} = getelementptr inbounds double, ptr %x, i64 {}", k % 64);
            let _ = writeln!(body, "  %l{k} = load double, ptr %p{k}, align 8");
            let _ = writeln!(body, "  %u{k} = fadd double %t{k}, %l{k}");
            let _ = writeln!(body, "  %v{k} = fmul double %u{k}, 0.5");
            count += 4;
        } else {
            let _ = writeln!(body, "  %v{k} = fmul double %t{k}, 0.5");
            count += 1;
        }
        k += 1;
    }
    let _ = writeln!(body, "  ret double %v{}", k - 1);
    count += 1;
    let _ = write!(
        m,
        "
define internal double @big(ptr %x, double %a) {{
{body}}}

define double @grad_big(ptr %x, ptr %dx, double %a) {{
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @big, ptr %x, ptr %dx, double %a)
  ret double %d
}}
"
    );
    (m, count)
}

/// One run of `zyg grad input -o output opt`: its wall-clock seconds, or None when it ran past
/// `timeout` seconds (it is then killed).
fn time_zyg(zyg: &Path, input: &Path, output: &Path, opt: &str, timeout: f64) -> Option<f64> {
    let t = Instant::now();
    let mut child = Command::new(zyg)
        .arg("grad")
        .arg(input)
        .arg("-o")
        .arg(output)
        .arg(opt)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", zyg.display()));
    loop {
        if let Some(status) = child.try_wait().expect("wait for zyg") {
            let secs = t.elapsed().as_secs_f64();
            if !status.success() {
                let mut err = String::new();
                let _ = std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err);
                panic!("zyg grad {} {opt} failed: {err}", input.display());
            }
            return Some(secs);
        }
        if t.elapsed().as_secs_f64() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Sizes from the environment variable `var` (comma-separated), else `default`.
fn sizes(var: &str, default: &[usize]) -> Vec<usize> {
    match std::env::var(var) {
        Ok(v) if !v.trim().is_empty() => v.split(',').map(|s| s.trim().parse().expect("a size")).collect(),
        _ => default.to_vec(),
    }
}

fn main() {
    let zyg = std::env::args().nth(1).map(PathBuf::from).unwrap_or_else(|| target_dir().join("release/zyg"));
    assert!(zyg.exists(), "no zyg binary at {} (cargo build --release)", zyg.display());
    let q = quick();
    let repeat = if q { 1 } else { 3 };
    let timeout: f64 = std::env::var("ZYG_BENCH_COMPILE_TIMEOUT").ok().and_then(|v| v.parse().ok()).unwrap_or(240.0);
    let func_sizes = sizes("ZYG_BENCH_COMPILE_FUNCTIONS", if q { &[10, 20, 40] } else { &[250, 500, 1000] });
    let inst_sizes =
        sizes("ZYG_BENCH_COMPILE_INSTRUCTIONS", if q { &[1000, 2000, 4000] } else { &[6_250, 12_500, 25_000, 50_000, 100_000] });
    let dir = target_dir().join("zyg-bench/compile");
    std::fs::create_dir_all(&dir).expect("create target/zyg-bench/compile");
    let header = target_lines();

    let mut rows = Vec::new();
    let series: [(&str, &[usize], GenerateModule); 2] =
        [("functions", &func_sizes, functions_module), ("instructions", &inst_sizes, instructions_module)];
    for (kind, sizes, generate) in series {
        // once a size runs past the timeout at one level, the larger ones are not tried
        let mut gave_up = [false, false];
        for &size in sizes {
            let (text, instructions) = generate(size, &header);
            let input = dir.join(format!("{kind}_{size}.ll"));
            std::fs::write(&input, &text).expect("write module");
            let mut row = serde_json::json!({
                "series": kind,
                "size": size,
                "instructions": instructions,
                "input_bytes": text.len(),
            });
            for (level, opt) in ["-O2", "-O0"].into_iter().enumerate() {
                let key = opt.trim_start_matches('-');
                if gave_up[level] {
                    row[key] = serde_json::json!({ "skipped": "a smaller size timed out" });
                    println!("zyg grad {kind:<12} {size:>7} {opt}: skipped (a smaller size timed out)");
                    continue;
                }
                let o2 = row["O2"]["median_s"].as_f64();
                if level == 1 && (o2.is_none() || o2.is_some_and(|t| t > O0_UNDER_S)) {
                    let why = if o2.is_some() || row["O2"]["timed_out_s"].is_number() {
                        format!("-O2 took more than {O0_UNDER_S} s")
                    } else {
                        "-O2 was not run".to_string()
                    };
                    println!("zyg grad {kind:<12} {size:>7} {opt}: skipped ({why})");
                    row[key] = serde_json::json!({ "skipped": why });
                    continue;
                }
                let output = dir.join(format!("{kind}_{size}{opt}.grad.ll"));
                let mut runs = Vec::new();
                for _ in 0..repeat {
                    match time_zyg(&zyg, &input, &output, opt, timeout) {
                        // a run of more than SLOW_S seconds is not repeated
                        Some(s) if s > SLOW_S => {
                            runs.push(s);
                            break;
                        }
                        Some(s) => runs.push(s),
                        None => {
                            gave_up[level] = true;
                            break;
                        }
                    }
                }
                if gave_up[level] {
                    println!("zyg grad {kind:<12} {size:>7} ({instructions:>7} instructions) {opt}: timed out after {timeout} s");
                    row[key] = serde_json::json!({ "timed_out_s": timeout, "runs_s": runs });
                    continue;
                }
                let med = median(&runs);
                println!(
                    "zyg grad {kind:<12} {size:>7} ({instructions:>7} instructions) {opt}: {med:8.3} s  {:8.2} µs per instruction",
                    med * 1e6 / instructions as f64
                );
                row[key] = serde_json::json!({ "median_s": med, "runs_s": runs });
            }
            rows.push(row);
        }
    }
    let json = serde_json::json!({
        "zyg": zyg.display().to_string(),
        "quick": q,
        "repeat": repeat,
        "timeout_s": timeout,
        "rows": rows,
    });
    let path = target_dir().join("zyg-bench/compile_time.json");
    std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap()).expect("write compile_time.json");
    println!("wrote {}", path.display());
}
