//! Writes bench/RESULTS.md from the last run of the benches (`target/zyg-bench/cases/*.json`,
//! criterion's `target/criterion/<case>/<variant>/new/estimates.json`) and of the compile-time
//! benchmark (`target/zyg-bench/compile_time.json`). Run by ci/bench.sh after them.
//!
//! Usage: report [OUTPUT]   (default: bench/RESULTS.md)

use serde_json::Value;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;
use zyg_bench::{cases_dir, median_ns, target_dir, CHECK_RTOL, HVP_CHECK_RTOL};

fn sh(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn lscpu_field(text: &str, field: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == field).then(|| v.trim().to_string())
    })
}

fn fmt_time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

fn fmt_bytes(b: i64) -> String {
    let a = b.unsigned_abs() as f64;
    let sign = if b < 0 { "-" } else { "" };
    if a < 1024.0 {
        format!("{b} B")
    } else if a < 1024.0 * 1024.0 {
        format!("{sign}{:.1} KiB", a / 1024.0)
    } else if a < 1024.0 * 1024.0 * 1024.0 {
        format!("{sign}{:.1} MiB", a / (1024.0 * 1024.0))
    } else {
        format!("{sign}{:.2} GiB", a / (1024.0 * 1024.0 * 1024.0))
    }
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(a? / b?)
}

fn fmt_ratio(r: Option<f64>) -> String {
    r.map(|r| format!("{r:.2}x")).unwrap_or_default()
}

struct Row {
    case: Value,
    primal: Option<f64>,
    /// zyg's gradient, timed with a Hessian-vector product
    gradient: Option<f64>,
    zyg: Option<f64>,
    hand: Option<f64>,
}

impl Row {
    /// What the case's `zyg` variant computes: "gradient" (also for cases written before the
    /// field existed), "jvp" or "hvp".
    fn derivative(&self) -> &str {
        self.case["derivative"].as_str().unwrap_or("gradient")
    }

    /// Why zyg's variant was not run although it was built (a memory probe failed), if so.
    fn not_run(&self) -> Option<&str> {
        self.case["zyg_not_run"].as_str()
    }

    /// The zyg column: the median, or why there is none.
    fn zyg_cell(&self) -> String {
        match (self.zyg, self.not_run()) {
            (Some(z), _) => fmt_time(z),
            (None, Some(why)) => format!("not run: {why}"),
            (None, None) => String::new(),
        }
    }
}

/// zyg's tape: the peak heap bytes of one call of zyg's variant minus the primal's.
fn tape(c: &Value) -> String {
    match (c["peak_heap_bytes"]["zyg"].as_i64(), c["peak_heap_bytes"]["primal"].as_i64()) {
        (Some(z), Some(p)) => fmt_bytes(z - p),
        _ => String::new(),
    }
}

/// The `modes` family's table: forward-mode Jacobian-vector products against the primal,
/// Hessian-vector products against zyg's gradient.
fn write_modes(w: &mut String, rows: &[Row]) {
    let modes: Vec<&Row> = rows.iter().filter(|r| r.derivative() != "gradient").collect();
    if modes.is_empty() {
        return;
    }
    let _ = writeln!(w, "## Forward mode and Hessian-vector products\n");
    let _ = writeln!(
        w,
        "JVP: the derivative of the objective along one direction of all its parameters by forward mode \
         (`__enzyme_fwddiff`), one number; hand: the hand-written gradient dotted with the direction. HVP: the \
         Hessian times one vector, by forward mode over zyg's gradient (`__enzyme_fwddiff` of a function that makes \
         an `__enzyme_autodiff` request); gradient: zyg's gradient of the same function, timed in the same run; \
         hand: central differences of the hand-written gradient along the vector (two gradients). The ratio is \
         JVP/primal for a JVP and HVP/gradient for an HVP, the costs theory bounds by small constants (target 3x \
         for both). Tape as above.\n"
    );
    let _ = writeln!(
        w,
        "| case | sizes | primal | zyg gradient | zyg JVP or HVP | JVP/primal or HVP/gradient | zyg/primal | hand | \
         zyg/hand | zyg tape |"
    );
    let _ = writeln!(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in modes {
        let c = &r.case;
        let (kind, base) = if r.derivative() == "hvp" { ("HVP", r.gradient) } else { ("JVP", r.primal) };
        let target = match ratio(r.zyg, base) {
            Some(x) => format!("{kind} {x:.2}x"),
            None => String::new(),
        };
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {target} | {} | {} | {} | {} |",
            c["name"].as_str().unwrap_or_default(),
            c["params"].as_str().unwrap_or_default(),
            r.primal.map(fmt_time).unwrap_or_default(),
            r.gradient.map(fmt_time).unwrap_or_default(),
            r.zyg.map(fmt_time).unwrap_or_default(),
            fmt_ratio(ratio(r.zyg, r.primal)),
            r.hand.map(fmt_time).unwrap_or_default(),
            fmt_ratio(ratio(r.zyg, r.hand)),
            tape(c)
        );
    }
    let _ = writeln!(w);
}

fn machine() -> String {
    let lscpu = sh("lscpu", &[]).unwrap_or_default();
    let model = lscpu_field(&lscpu, "Model name").unwrap_or_else(|| "unknown CPU".into());
    let cpus = lscpu_field(&lscpu, "CPU(s)").unwrap_or_else(|| "?".into());
    let threads = lscpu_field(&lscpu, "Thread(s) per core").unwrap_or_else(|| "?".into());
    let hyper = lscpu_field(&lscpu, "Hypervisor vendor").map(|h| format!(", virtual machine ({h})")).unwrap_or_default();
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let kb: f64 = m.lines().find(|l| l.starts_with("MemTotal:"))?.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!(", {:.1} GiB memory", kb / 1024.0 / 1024.0))
        })
        .unwrap_or_default();
    format!("{model}, {cpus} CPUs ({threads} thread(s) per core){hyper}{mem}")
}

fn main() {
    let output = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("RESULTS.md"));

    // the cases of the last run
    let mut cases: Vec<Value> = std::fs::read_dir(cases_dir())
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .filter_map(|e| serde_json::from_str(&std::fs::read_to_string(e.path()).ok()?).ok())
                .collect()
        })
        .unwrap_or_default();
    cases.sort_by_key(|c| c["order"].as_u64().unwrap_or(u64::MAX));
    let rows: Vec<Row> = cases
        .into_iter()
        .map(|case| {
            let name = case["name"].as_str().unwrap_or_default().to_string();
            let zyg_timed = case["check"]["ok"].as_bool() == Some(true);
            Row {
                primal: median_ns(&name, "primal"),
                gradient: median_ns(&name, "gradient"),
                zyg: if zyg_timed { median_ns(&name, "zyg") } else { None },
                hand: median_ns(&name, "hand"),
                case,
            }
        })
        .collect();
    let any_quick = rows.iter().any(|r| r.case["quick"].as_bool() == Some(true));
    let compile: Option<Value> = std::fs::read_to_string(target_dir().join("zyg-bench/compile_time.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());

    // written by ci/bench.sh when the run started (key=value lines)
    let run_env = std::fs::read_to_string(target_dir().join("zyg-bench/run.env")).unwrap_or_default();
    let env =
        |key: &str| -> Option<String> { run_env.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix('=')).map(String::from) };
    let date = match (env("started"), env("finished")) {
        (Some(s), Some(f)) => format!("{s} to {f}"),
        _ => sh("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_default(),
    };
    let commit = env("commit").or_else(|| sh("git", &["rev-parse", "--short", "HEAD"])).unwrap_or_else(|| "?".into());
    let changed: usize = env("zyg_changed_files").and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    let zyg_state = if changed > 0 {
        format!(
            " with uncommitted changes to {changed} file(s) of zyg-* (work in progress; diff sha256 {})",
            env("zyg_diff_sha").unwrap_or_default()
        )
    } else {
        String::new()
    };
    let loads: Vec<f64> = std::fs::read_to_string(target_dir().join("zyg-bench/load.txt"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    let load = if loads.is_empty() {
        String::new()
    } else {
        let mut s = loads.clone();
        s.sort_by(|a, b| a.total_cmp(b));
        format!(
            "- Load: 1-minute load average during the run, sampled every 15 s: median {:.2}, max {:.2} (the \
             benchmark itself accounts for about 1; more means other work shared the CPUs)",
            s[s.len() / 2],
            s[s.len() - 1]
        )
    };
    let rustc = sh("rustc", &["--version"]).unwrap_or_default();
    let clang = std::env::var("ZYG_CLANG").unwrap_or_else(|_| "clang-22".into());
    let clang_version = sh(&clang, &["--version"]).and_then(|v| v.lines().next().map(String::from)).unwrap_or_default();
    let kernel = sh("uname", &["-sr"]).unwrap_or_default();
    let cflags = std::env::var("ZYG_BENCH_CFLAGS").unwrap_or_default();

    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(w, "# zyg benchmark results\n");
    let _ = writeln!(
        w,
        "Written by `bash ci/bench.sh` (bench/src/bin/report.rs) from one run; do not edit by hand. \
         See the README's \"Benchmarks\" section for what is measured and how.\n"
    );
    if any_quick {
        let _ = writeln!(w, "**Quick mode (`ZYG_BENCH_QUICK=1`): tiny sizes and short measurements. These are not results.**\n");
    }
    let _ = writeln!(w, "- Date: {date}");
    let _ = writeln!(w, "- Machine: {}; {kernel}", machine());
    if !load.is_empty() {
        let _ = writeln!(w, "{load}");
    }
    let _ = writeln!(w, "- zyg: commit {commit}{zyg_state}");
    let _ = writeln!(w, "- Compilers: {clang_version}; {rustc}");
    let _ = writeln!(
        w,
        "- C code: `clang-22 -O2{}`, then `zyg grad` (-O2), then `clang-22 -O2` on its output; primal, zyg's \
         gradient and the hand-written gradient of a case are compiled together from one translation unit",
        if cflags.is_empty() { String::new() } else { format!(" {cflags}") }
    );
    let _ = writeln!(
        w,
        "- Times: criterion medians, one process per family, the variants of a case (three, four for a Hessian-vector product) one after the other. \
         A variant slower than 10 ms per call: 10 samples with flat sampling, 1 s warm-up, 3 s or 12 calls, \
         whichever is longer; faster ones: 30 samples, 1 s warm-up, 3 s. (Fewer samples and shorter times than \
         criterion's defaults of 100 samples, 3 s and 5 s, to keep the whole run under about 20 minutes; the sizes are the \
         issue's.)\n"
    );

    // ---- the main table
    let _ = writeln!(w, "## Run time\n");
    let _ = writeln!(
        w,
        "zyg/primal is the gradient's cost in units of the function's; zyg/hand compares zyg's gradient with one \
         written by hand for this project. Tape: peak heap bytes during one call of zyg's gradient minus during one \
         call of the primal, on a fresh thread (zyg's tape stacks, counted by the chunks allocated for them rather \
         than the records pushed, and the shadows of heap memory; fixed-size tape slots on the stack are not counted; \
         zyg keeps up to 1024 released chunks of 64 KiB per thread for the next call, so a gradient called again on \
         the same thread, as in the timings, allocates only beyond them).\n"
    );
    let _ = writeln!(w, "| case | sizes | primal | zyg | hand | zyg/primal | hand/primal | zyg/hand | zyg tape |");
    let _ = writeln!(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in rows.iter().filter(|r| r.derivative() == "gradient") {
        let c = &r.case;
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c["name"].as_str().unwrap_or_default(),
            c["params"].as_str().unwrap_or_default(),
            r.primal.map(fmt_time).unwrap_or_default(),
            r.zyg_cell(),
            r.hand.map(fmt_time).unwrap_or_default(),
            fmt_ratio(ratio(r.zyg, r.primal)),
            fmt_ratio(ratio(r.hand, r.primal)),
            fmt_ratio(ratio(r.zyg, r.hand)),
            tape(c)
        );
    }
    let _ = writeln!(w);
    write_modes(w, &rows);

    // ---- targets
    let _ = writeln!(w, "## Targets\n");
    let _ = writeln!(
        w,
        "From the issues: zyg/primal <= 3x on GMM, LSTM, MLP and logsumexp, <= 5x elsewhere; zyg/hand <= 1.25x on \
         GMM and BA; JVP/primal <= 3x and HVP/gradient <= 3x. Issue 16 (memory-aware tapes): the recursive \
         determinant and tree reduction zyg/hand <= 3x (against a hand-written adjoint of the same recursion; no \
         target on zyg/primal), the RK4 integration zyg/primal <= 5x.\n"
    );
    let mut missed = Vec::new();
    let mut met = 0;
    for r in &rows {
        let c = &r.case;
        let name = c["name"].as_str().unwrap_or_default();
        let Some(z) = r.zyg else {
            match r.not_run() {
                Some(why) => missed.push(format!("{name}: zyg's {} was not run: {why}", r.derivative())),
                None => missed.push(format!("{name}: zyg's gradient was not timed (see Checks)")),
            }
            continue;
        };
        let mut ok = true;
        if let (Some(t), Some(p)) = (c["targets"]["zyg_over_primal"].as_f64(), r.primal) {
            if z / p > t {
                ok = false;
                missed.push(format!("{name}: zyg/primal {:.2}x > {t}x", z / p));
            }
        }
        if let (Some(t), Some(g)) = (c["targets"]["zyg_over_gradient"].as_f64(), r.gradient) {
            if z / g > t {
                ok = false;
                missed.push(format!("{name}: HVP/gradient {:.2}x > {t}x", z / g));
            }
        }
        if let (Some(t), Some(h)) = (c["targets"]["zyg_over_hand"].as_f64(), r.hand) {
            if z / h > t {
                ok = false;
                missed.push(format!("{name}: zyg/hand {:.2}x > {t}x", z / h));
            }
        }
        if ok {
            met += 1;
        }
    }
    let _ = writeln!(w, "{met} of {} cases meet their targets.", rows.len());
    if !missed.is_empty() {
        let _ = writeln!(w, "\nMissed:\n");
        for m in &missed {
            let _ = writeln!(w, "- {m}");
        }
    }
    let _ = writeln!(w);

    // ---- checks
    let _ = writeln!(w, "## Checks: zyg against the hand-written reference\n");
    let _ = writeln!(
        w,
        "Before timing, each case calls zyg's variant and the hand-written one once on its input and compares what \
         they wrote: relative difference = max |zyg - hand| / max |hand| over the components, which must be at most \
         the tolerance; otherwise zyg's variant is not timed and its columns above are empty. The reference is the \
         hand-written gradient (tolerance {CHECK_RTOL:e}), for a JVP the hand-written gradient dotted with the \
         direction (one number; {CHECK_RTOL:e}), for an HVP the central differences of the hand-written gradient \
         ({HVP_CHECK_RTOL:e}: the differences' own error is about 1e-9 relative).\n"
    );
    let _ = writeln!(w, "| case | length | max abs difference | relative difference | tolerance | result |");
    let _ = writeln!(w, "| --- | ---: | ---: | ---: | ---: | --- |");
    for r in &rows {
        let c = &r.case;
        let result = if let Some(e) = c["zyg_build_error"].as_str() {
            format!("zyg failed at build time: {e}")
        } else if let Some(why) = r.not_run() {
            format!("not run: {why}")
        } else if c["check"]["ok"].as_bool() == Some(true) {
            "ok".into()
        } else {
            "**differs: not timed**".into()
        };
        let num = |v: &Value| v.as_f64().map(|x| format!("{x:.1e}")).unwrap_or_else(|| "NaN".into());
        let zyg_absent = c["zyg_build_error"].is_string() || r.not_run().is_some();
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {result} |",
            c["name"].as_str().unwrap_or_default(),
            c["gradient_len"],
            if zyg_absent { String::new() } else { num(&c["check"]["max_abs_diff"]) },
            if zyg_absent { String::new() } else { num(&c["check"]["rel_diff"]) },
            c["check"]["rtol"].as_f64().map(|x| format!("{x:.0e}")).unwrap_or_default(),
        );
    }
    let _ = writeln!(w);

    // ---- heap
    let _ = writeln!(w, "## Peak heap use of one call\n");
    let _ = writeln!(
        w,
        "malloc, calloc, realloc and free of the benchmarked code are renamed in the objects zyg produced \
         (llvm-objcopy --redefine-sym) to counting wrappers (bench/src/heap.c) that keep the live bytes \
         (malloc_usable_size) and their peak during one call. Memory the case allocated beforehand (inputs, \
         gradient buffers) is not counted.\n"
    );
    let _ = writeln!(w, "| case | primal | zyg | hand | zyg - primal | hand - primal |");
    let _ = writeln!(w, "| --- | ---: | ---: | ---: | ---: | ---: |");
    for r in &rows {
        let c = &r.case;
        let p = c["peak_heap_bytes"]["primal"].as_i64();
        let z = c["peak_heap_bytes"]["zyg"].as_i64();
        let h = c["peak_heap_bytes"]["hand"].as_i64();
        let f = |v: Option<i64>| v.map(fmt_bytes).unwrap_or_default();
        let zyg = if r.not_run().is_some() { "not run".to_string() } else { f(z) };
        let d = |a: Option<i64>, b: Option<i64>| match (a, b) {
            (Some(a), Some(b)) => fmt_bytes(a - b),
            _ => String::new(),
        };
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} |",
            c["name"].as_str().unwrap_or_default(),
            f(p),
            zyg,
            f(h),
            d(z, p),
            d(h, p)
        );
    }
    let _ = writeln!(w);

    // ---- compile time
    let _ = writeln!(w, "## Compile time of `zyg grad`\n");
    match &compile {
        None => {
            let _ = writeln!(w, "Not run (bench/src/bin/compile_time.rs writes target/zyg-bench/compile_time.json).\n");
        }
        Some(ct) => write_compile_time(w, ct),
    }

    // ---- compile time through the plugin
    let plugin: Option<Value> =
        std::fs::read_to_string(target_dir().join("zyg-bench/plugin_time.json")).ok().and_then(|t| serde_json::from_str(&t).ok());
    let _ = writeln!(w, "## Compile time through the plugin\n");
    match &plugin {
        None => {
            let _ = writeln!(w, "Not run (bench/src/bin/plugin_time.rs writes target/zyg-bench/plugin_time.json).\n");
        }
        Some(p) => write_plugin_time(w, p),
    }

    // The hand-written analysis of the misses (causes, and what each fix gained).
    if let Ok(analysis) = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ANALYSIS.md")) {
        let _ = writeln!(w, "{analysis}");
    }

    std::fs::write(&output, md).expect("write RESULTS.md");
    println!("wrote {}", output.display());
}

fn write_compile_time(w: &mut String, ct: &Value) {
    let _ = writeln!(
        w,
        "`zyg grad IN -o OUT` on generated modules (bench/src/bin/compile_time.rs): *functions*, N small \
         differentiable functions (a loop with a load, a math call and six arithmetic instructions; 20 instructions \
         each) with one `__enzyme_autodiff` request each; *instructions*, one straight-line function of N \
         instructions (fmul, sin/cos/exp, fadd, a load every 8 steps) with one request. Wall-clock seconds, {} \
         (one when a run takes more than 15 s); a run past {} s is killed and the larger sizes of \
         its series are skipped at that level; -O0 is timed only where -O2 took less than 60 s. -O2 is zyg's default (the transform, then LLVM's -O2 pipeline on the \
         module); -O0 is the transform with sroa/mem2reg on the generated functions only. The exponent is \
         log(t2/t1)/log(N2/N1) between a size and the previous one: 1 is linear, 2 quadratic; the verdict below takes it from the smallest size to the largest (under 1.2 counts as linear).\n",
        match ct["repeat"].as_u64() {
            Some(1) => "one run".to_string(),
            Some(n) => format!("the median of {n} runs"),
            None => "?".to_string(),
        },
        ct["timeout_s"].as_f64().unwrap_or(0.0)
    );
    let _ = writeln!(
        w,
        "| series | N | instructions | -O2 (s) | -O0 (s) | µs per instruction (-O2) | exponent (-O2) | exponent (-O0) |"
    );
    let _ = writeln!(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let rows = ct["rows"].as_array().cloned().unwrap_or_default();
    let cell = |v: &Value| -> String {
        if let Some(s) = v["median_s"].as_f64() {
            format!("{s:.3}")
        } else if let Some(t) = v["timed_out_s"].as_f64() {
            format!("> {t:.0} (timed out)")
        } else if let Some(why) = v["skipped"].as_str() {
            format!("not run ({why})")
        } else {
            String::new()
        }
    };
    let mut verdicts = Vec::new();
    for series in ["functions", "instructions"] {
        let rs: Vec<&Value> = rows.iter().filter(|r| r["series"] == series).collect();
        let mut prev: [Option<(f64, f64)>; 2] = [None, None];
        let mut first: [Option<(f64, f64)>; 2] = [None, None];
        let mut exps: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for r in &rs {
            let n = r["instructions"].as_f64().unwrap_or(0.0);
            let mut e = [String::new(), String::new()];
            for (i, key) in ["O2", "O0"].iter().enumerate() {
                if let Some(t) = r[*key]["median_s"].as_f64() {
                    if let Some((n0, t0)) = prev[i] {
                        let x = (t / t0).ln() / (n / n0).ln();
                        exps[i].push(x);
                        e[i] = format!("{x:.2}");
                    }
                    prev[i] = Some((n, t));
                    first[i] = first[i].or(Some((n, t)));
                }
            }
            let per = r["O2"]["median_s"].as_f64().map(|t| format!("{:.1}", t * 1e6 / n)).unwrap_or_default();
            let _ = writeln!(
                w,
                "| {series} | {} | {} | {} | {} | {per} | {} | {} |",
                r["size"],
                r["instructions"],
                cell(&r["O2"]),
                cell(&r["O0"]),
                e[0],
                e[1]
            );
        }
        let timed_out = rs.iter().any(|r| r["O2"]["timed_out_s"].is_number() || r["O0"]["timed_out_s"].is_number());
        // The growth over the whole range decides: a step between two neighbouring sizes is
        // a ratio of two short timings on a shared machine, and noise moves it by +-0.3.
        let overall: Vec<f64> = (0..2)
            .filter_map(|i| match (first[i], prev[i]) {
                (Some((n0, t0)), Some((n1, t1))) if n1 > n0 => Some((t1 / t0).ln() / (n1 / n0).ln()),
                _ => None,
            })
            .collect();
        if let Some(&o2) = overall.first() {
            let steps = exps[0].iter().chain(&exps[1]).cloned().fold(0.0, f64::max);
            let o0 = overall.get(1).map(|x| format!(", {x:.2} at -O0")).unwrap_or_default();
            let linear = overall.iter().all(|&x| x < 1.2) && !timed_out;
            verdicts.push(if linear {
                format!("*{series}*: grows linearly (from the smallest size to the largest: exponent {o2:.2} at -O2{o0}; between neighbouring sizes up to {steps:.2}).")
            } else {
                format!(
                    "*{series}*: **does not grow linearly**: from the smallest size to the largest, exponent {o2:.2} at -O2{o0}{}.",
                    if timed_out { ", and the largest sizes ran past the time limit" } else { "" }
                )
            });
        }
    }
    let _ = writeln!(w);
    for v in verdicts {
        let _ = writeln!(w, "- {v}");
    }
    let _ = writeln!(w);
}

/// Seconds with three decimals, or nothing.
fn secs(v: &Value) -> String {
    v.as_f64().map(|s| format!("{s:.3}")).unwrap_or_default()
}

fn write_plugin_time(w: &mut String, p: &Value) {
    let loads: Vec<f64> = p["loads"].as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default();
    let load = if loads.is_empty() {
        String::new()
    } else {
        let mut s = loads.clone();
        s.sort_by(|a, b| a.total_cmp(b));
        format!("; 1-minute load average at each repetition: median {:.2}, max {:.2}", s[s.len() / 2], s[s.len() - 1])
    };
    if p["quick"].as_bool() == Some(true) {
        let _ = writeln!(w, "**Quick mode (`ZYG_BENCH_QUICK=1`): one repetition. These are not results.**\n");
    }
    let _ = writeln!(
        w,
        "bench/src/bin/plugin_time.rs, run {} to {} at commit {}, on {}{load}; {}.\n",
        p["started"].as_str().unwrap_or("?"),
        p["finished"].as_str().unwrap_or("?"),
        p["commit"].as_str().unwrap_or("?"),
        machine(),
        p["clang"].as_str().unwrap_or("?")
    );
    let _ = writeln!(
        w,
        "The issue's target: a file compiled through the plugin costs no more than `zyg grad` plus a plain clang \
         compile of the same file. For each model and level L (-O2, -O0): **(a)** one step, `clang L \
         -fpass-plugin=libzyg_plugin.so -c model.c -o a.o`; **(b)** the IR route, `clang L -c -emit-llvm model.c -o \
         m.bc`, `zyg grad m.bc -o m.grad.bc L`, `clang L -c m.grad.bc -o b.o`; **(c)** plain, `clang L -c model.c -o \
         c.o` (the requests stay calls of an undefined `__enzyme_autodiff`). `clang++-22` for the C++ model. The \
         models are the C files of the run-time benches (primal, request wrappers and hand-written gradients in one \
         file) and bench/models/templates.cpp (class templates, std::vector, two requests). Wall-clock seconds, {} \
         after a warm-up; one repetition runs every command of every model in turn, so that \
         other work on the machine weighs on all of them alike. CPU is the same ratio from the medians of user + \
         system time (less disturbed by other work on a shared machine). Before timing, the objects of (a) and (b) \
         are checked to have no `__enzyme_*` symbol left.\n",
        match p["repeat"].as_u64() {
            Some(1) => "one run".to_string(),
            Some(n) => format!("the median of {n} repetitions"),
            None => "?".to_string(),
        }
    );
    let _ = writeln!(
        w,
        "| model | level | (a) one step | emit bitcode | zyg grad | clang on zyg's output | (b) IR route | (c) plain | \
         **(a) / (zyg grad + c)** | CPU | (a) / (b) | CPU |"
    );
    let _ = writeln!(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let rows = p["rows"].as_array().cloned().unwrap_or_default();
    let mut met = (0, 0);
    let mut missed = Vec::new();
    for r in &rows {
        let c = &r["commands"];
        let t = |name: &str| c[name]["wall_s"].as_f64();
        let route = (|| Some(t("emit_bc")? + t("zyg_grad")? + t("compile_grad")?))();
        let ratio = |v: &Value| v.as_f64().map(|x| format!("{x:.2}")).unwrap_or_default();
        let (claim, claim_cpu) = (r["claim"]["wall"].as_f64(), r["claim"]["cpu"].as_f64());
        if claim.is_some_and(|x| x <= 1.0) {
            met.0 += 1;
        }
        if claim_cpu.is_some_and(|x| x <= 1.0) {
            met.1 += 1;
        }
        if claim.is_some_and(|x| x > 1.0) || claim_cpu.is_some_and(|x| x > 1.0) {
            missed.push(format!(
                "{} {}: {:.2} (CPU {:.2})",
                r["model"].as_str().unwrap_or_default(),
                r["level"].as_str().unwrap_or_default(),
                claim.unwrap_or(f64::NAN),
                claim_cpu.unwrap_or(f64::NAN)
            ));
        }
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} | **{}** | {} | {} | {} |",
            r["model"].as_str().unwrap_or_default(),
            r["level"].as_str().unwrap_or_default(),
            secs(&c["one_step"]["wall_s"]),
            secs(&c["emit_bc"]["wall_s"]),
            secs(&c["zyg_grad"]["wall_s"]),
            secs(&c["compile_grad"]["wall_s"]),
            route.map(|s| format!("{s:.3}")).unwrap_or_default(),
            secs(&c["plain"]["wall_s"]),
            ratio(&r["claim"]["wall"]),
            ratio(&r["claim"]["cpu"]),
            ratio(&r["route"]["wall"]),
            ratio(&r["route"]["cpu"]),
        );
    }
    let _ = writeln!(w);
    let slowest = rows.iter().filter_map(|r| r["route"]["wall"].as_f64()).fold(0.0, f64::max);
    let _ = writeln!(
        w,
        "- Target (a) <= zyg grad + (c): met in {} of {} rows by wall-clock time, {} by CPU time.{}",
        met.0,
        rows.len(),
        met.1,
        if missed.is_empty() { String::new() } else { format!(" Missed: {}.", missed.join("; ")) }
    );
    let _ = writeln!(
        w,
        "- Against the whole IR route it replaces, the plugin takes at most {slowest:.2} of its time (wall-clock).\n"
    );

    // where the time goes
    let _ = writeln!(
        w,
        "Where the time goes at -O2: CPU seconds of clang's phases from one more run of (a), (c) and the last step \
         of (b) with `-ftime-report` (front end includes IR generation; zyg's pass is part of (a)'s optimizer), and \
         `zyg grad` split into its transform (`zyg grad -O0` on the same bitcode: the transform and sroa/mem2reg on \
         what it generated, median like the table above) and the rest (LLVM's -O2 pipeline on the module, and \
         writing it). *Gradient code generation* is (a)'s machine code generation minus (c)'s: work (a) does that \
         `zyg grad` + (c) does not count.\n"
    );
    let _ = writeln!(
        w,
        "| model | (a) front end | (a) optimizer | of which zyg's pass | (a) code generation | (c) front end | (c) \
         optimizer | (c) code generation | zyg transform | zyg -O2 pipeline | (b) last step: optimizer | code \
         generation | gradient code generation |"
    );
    let _ = writeln!(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in rows.iter().filter(|r| r["level"] == "-O2") {
        let tr = &r["time_report_cpu_s"];
        let front = |cmd: &str| -> Option<f64> {
            let f = tr[cmd]["Front end"].as_f64()?;
            Some(f + tr[cmd]["LLVM IR generation"].as_f64().unwrap_or(0.0))
        };
        let f = |v: Option<f64>| v.map(|s| format!("{s:.3}")).unwrap_or_default();
        let c = &r["commands"];
        let transform = c["zyg_transform"]["cpu_s"].as_f64();
        let pipeline = (|| Some(c["zyg_grad"]["cpu_s"].as_f64()? - transform?))();
        let gradient_codegen =
            (|| Some(tr["one_step"]["Machine code generation"].as_f64()? - tr["plain"]["Machine code generation"].as_f64()?))();
        let _ = writeln!(
            w,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r["model"].as_str().unwrap_or_default(),
            f(front("one_step")),
            secs(&tr["one_step"]["Optimizer"]),
            secs(&tr["one_step"]["ZygPass"]),
            secs(&tr["one_step"]["Machine code generation"]),
            f(front("plain")),
            secs(&tr["plain"]["Optimizer"]),
            secs(&tr["plain"]["Machine code generation"]),
            f(transform),
            f(pipeline),
            secs(&tr["compile_grad"]["Optimizer"]),
            secs(&tr["compile_grad"]["Machine code generation"]),
            f(gradient_codegen),
        );
    }
    let _ = writeln!(w);
}
