//! Compile-time benchmark of the pass plugin (issue 15: "a module through the plugin costs no
//! more than `zyg grad` plus a plain clang compile of the same code").
//!
//! For each model (the C files of the run-time benches, bench/src/{gmm,ba,lstm,hand}.c, and
//! bench/models/templates.cpp, C++ with class templates and std::vector) and each level L in
//! {-O2, -O0}, five commands are timed:
//!
//! - `one_step`: `clang L -fpass-plugin=libzyg_plugin.so -c model.c -o a.o` (every request
//!   filled in, the gradients optimised by clang's own pipeline and compiled);
//! - the IR route in its three parts: `emit_bc`, `clang L -c -emit-llvm model.c -o m.bc`;
//!   `zyg_grad`, `zyg grad m.bc -o m.grad.bc L`; `compile_grad`, `clang L -c m.grad.bc -o b.o`;
//! - `plain`: `clang L -c model.c -o c.o`, the same file with no gradients (its requests stay
//!   calls of an undefined `__enzyme_autodiff`, which compiles to an object like any other
//!   external call: a fair "plain compile of the same code").
//!
//! At -O2 a sixth, `zyg_transform` (`zyg grad m.bc -o t.bc -O0`: zyg's transform and
//! sroa/mem2reg on what it generated, without LLVM's -O2 pipeline), splits `zyg_grad` in two;
//! and one more run each of `one_step`, `plain` and `compile_grad` with `-ftime-report` gives
//! the CPU seconds of clang's phases (front end, optimizer, machine code generation) and of
//! zyg's pass inside clang. These explain the ratios; they are not part of them.
//!
//! Why a program and not criterion: every sample is a compiler process of 0.1 s to a few
//! seconds, so criterion's iteration batching and warm-up model add nothing; the claim is about
//! a sum of medians of different commands, and on a shared machine those commands must be
//! interleaved (one repetition runs every command of every model once, in turn) so that a
//! burst of other work weighs on all of them alike, which criterion, timing one function to
//! the end before the next, does not do. The first repetition is a warm-up (page cache, the
//! plugin's and LLVM's shared libraries) and is not kept.
//!
//! Each command's wall-clock time and CPU time (user + system of the process and its
//! children, from getrusage) are recorded; medians over the repetitions. Results go to
//! `target/zyg-bench/plugin_time.json` (read by `report`) and to standard output, with:
//! `claim` = one_step / (zyg_grad + plain) (the target: at most 1) and `route` =
//! one_step / (emit_bc + zyg_grad + compile_grad).
//!
//! Usage: plugin_time [ZYG_BINARY [PLUGIN]]   (defaults: target/release/zyg; $ZYG_PLUGIN, else
//! `zyg plugin-path`, which looks beside the zyg binary). ZYG_CLANG / ZYG_CLANGXX (default
//! clang-22 / clang++-22); ZYG_BENCH_QUICK=1: two repetitions (one kept);
//! ZYG_BENCH_PLUGIN_REPEAT: the repetitions kept (default 7); ZYG_BENCH_PLUGIN_MODELS:
//! comma-separated model names to keep (gmm, ba, lstm, hand, templates).

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use zyg_bench::{median, quick, target_dir};

/// (name, source relative to bench/, C++)
const MODELS: &[(&str, &str, bool)] = &[
    ("gmm", "src/gmm.c", false),
    ("ba", "src/ba.c", false),
    ("lstm", "src/lstm.c", false),
    ("hand", "src/hand.c", false),
    ("templates", "models/templates.cpp", true),
];
const LEVELS: &[&str] = &["-O2", "-O0"];

/// The CPU seconds (user + system) of all waited-for children so far.
fn children_cpu() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Runs `cmd` to the end; (wall seconds, CPU seconds, standard error). Panics when it fails:
/// a benchmark of a compile that does not compile measures nothing.
fn time(cmd: &mut Command) -> (f64, f64, String) {
    let cpu0 = children_cpu();
    let t = Instant::now();
    let out = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let wall = t.elapsed().as_secs_f64();
    let cpu = children_cpu() - cpu0;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{cmd:?} failed:\n{err}");
    (wall, cpu, err)
}

/// The CPU seconds (user + system column) of the lines of clang's `-ftime-report` named
/// `names` (the last occurrence wins; `ZygPass` is matched by suffix).
fn time_report(text: &str, names: &[&str]) -> BTreeMap<String, f64> {
    let mut found = BTreeMap::new();
    for line in text.lines() {
        // "   0.8823 ( 69.8%)   0.0200 ( 46.1%)   0.9023 ( 69.0%)   0.9547 ( 70.1%)  Optimizer"
        let Some(pos) = line.rfind("%)") else { continue };
        let name = line[pos + 2..].trim();
        let Some(key) = names.iter().find(|n| name == **n || (n.starts_with("::") && name.ends_with(**n))) else {
            continue;
        };
        let numbers: Vec<f64> = line[..pos + 2]
            .split_whitespace()
            .filter(|w| !w.starts_with('(') && !w.ends_with("%)") && !w.ends_with('%'))
            .filter_map(|w| w.parse().ok())
            .collect();
        // user, system, user+system, wall (the system column is absent where there was none)
        let cpu = match numbers.len() {
            4 => numbers[2],
            3 => numbers[0] + numbers[1],
            _ => continue,
        };
        found.insert(key.trim_start_matches("::").to_string(), cpu);
    }
    found
}

fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

fn sh(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

struct Job {
    model: &'static str,
    level: &'static str,
    source: PathBuf,
    cxx: bool,
    dir: PathBuf,
    /// command name -> (wall seconds, CPU seconds) of each kept repetition
    runs: BTreeMap<&'static str, (Vec<f64>, Vec<f64>)>,
}

impl Job {
    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{}{}.{name}", self.model, self.level))
    }

    /// The commands of one repetition, in order (the IR route's parts depend on each other).
    fn commands(&self, clang: &str, zyg: &Path, plugin: &Path) -> Vec<(&'static str, Command)> {
        let cc = || {
            let mut c = Command::new(clang);
            c.arg(self.level);
            c
        };
        let src = &self.source;
        let mut list = Vec::new();
        let mut one = cc();
        one.arg(format!("-fpass-plugin={}", plugin.display())).arg("-c").arg(src).arg("-o").arg(self.file("a.o"));
        list.push(("one_step", one));
        let mut emit = cc();
        emit.args(["-c", "-emit-llvm"]).arg(src).arg("-o").arg(self.file("bc"));
        list.push(("emit_bc", emit));
        let mut grad = Command::new(zyg);
        grad.arg("grad").arg(self.file("bc")).arg("-o").arg(self.file("grad.bc")).arg(self.level);
        list.push(("zyg_grad", grad));
        if self.level == "-O2" {
            let mut transform = Command::new(zyg);
            transform.arg("grad").arg(self.file("bc")).arg("-o").arg(self.file("transform.bc")).arg("-O0");
            list.push(("zyg_transform", transform));
        }
        let mut compile = cc();
        compile.arg("-c").arg(self.file("grad.bc")).arg("-o").arg(self.file("b.o"));
        list.push(("compile_grad", compile));
        let mut plain = cc();
        plain.arg("-c").arg(src).arg("-o").arg(self.file("c.o"));
        list.push(("plain", plain));
        list
    }
}

/// The undefined symbols of an object that name a gradient request: none may be left in the
/// objects of the one-step and IR routes (else they did not do the work being timed).
fn unfilled_requests(object: &Path) -> Vec<String> {
    let nm = ["llvm-nm-22", "llvm-nm", "nm"].into_iter().find(|t| sh(t, &["--version"]).is_some()).unwrap_or("nm");
    let text = sh(nm, &["-u", &object.display().to_string()]).unwrap_or_default();
    text.lines().filter_map(|l| l.split_whitespace().last()).filter(|s| s.starts_with("__enzyme_")).map(String::from).collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let zyg = args.next().map(PathBuf::from).unwrap_or_else(|| target_dir().join("release/zyg"));
    assert!(zyg.exists(), "no zyg binary at {} (cargo build --release)", zyg.display());
    let plugin = args
        .next()
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("ZYG_PLUGIN").map(PathBuf::from))
        .or_else(|| sh(&zyg.display().to_string(), &["plugin-path"]).map(PathBuf::from))
        .expect("no plugin: give its path, set ZYG_PLUGIN, or build it (cargo build --release)");
    assert!(plugin.is_file(), "no plugin at {}", plugin.display());
    let clang = std::env::var("ZYG_CLANG").unwrap_or_else(|_| "clang-22".into());
    let clangxx = std::env::var("ZYG_CLANGXX").unwrap_or_else(|_| "clang++-22".into());
    let repeat: usize =
        if quick() { 1 } else { std::env::var("ZYG_BENCH_PLUGIN_REPEAT").ok().and_then(|v| v.parse().ok()).unwrap_or(7) };
    let wanted: Option<Vec<String>> = std::env::var("ZYG_BENCH_PLUGIN_MODELS")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let bench = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = target_dir().join("zyg-bench/plugin");
    std::fs::create_dir_all(&dir).expect("create target/zyg-bench/plugin");

    let mut jobs = Vec::new();
    for &(model, source, cxx) in MODELS {
        if wanted.as_ref().is_some_and(|w| !w.iter().any(|m| m == model)) {
            continue;
        }
        for &level in LEVELS {
            jobs.push(Job { model, level, source: bench.join(source), cxx, dir: dir.clone(), runs: BTreeMap::new() });
        }
    }

    let started = sh("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_default();
    let mut loads = Vec::new();
    // repetition 0 is the warm-up
    for rep in 0..=repeat {
        loads.extend(load_average());
        for job in &mut jobs {
            let cc = if job.cxx { &clangxx } else { &clang };
            for (name, mut cmd) in job.commands(cc, &zyg, &plugin) {
                let (wall, cpu, _) = time(&mut cmd);
                if rep > 0 {
                    let entry = job.runs.entry(name).or_default();
                    entry.0.push(wall);
                    entry.1.push(cpu);
                }
            }
            if rep == 0 {
                for obj in ["a.o", "b.o"] {
                    let left = unfilled_requests(&job.file(obj));
                    assert!(left.is_empty(), "{} {} {obj}: requests left unfilled: {left:?}", job.model, job.level);
                }
            }
        }
        println!("repetition {rep} of {repeat} done{}", if rep == 0 { " (warm-up)" } else { "" });
    }
    loads.extend(load_average());

    let mut rows = Vec::new();
    for job in &jobs {
        let cc = if job.cxx { &clangxx } else { &clang };
        let mut commands = serde_json::Map::new();
        let mut med = |name: &str| -> (f64, f64) {
            let (w, c) = &job.runs[name];
            let m = (median(w), median(c));
            commands.insert(name.to_string(), json!({ "wall_s": m.0, "cpu_s": m.1, "runs_wall_s": w, "runs_cpu_s": c }));
            m
        };
        let one = med("one_step");
        let emit = med("emit_bc");
        let grad = med("zyg_grad");
        let compile = med("compile_grad");
        let plain = med("plain");
        if job.level == "-O2" {
            med("zyg_transform");
        }
        let claim = (one.0 / (grad.0 + plain.0), one.1 / (grad.1 + plain.1));
        let route = (one.0 / (emit.0 + grad.0 + compile.0), one.1 / (emit.1 + grad.1 + compile.1));
        println!(
            "{:<10} {}  one step {:6.3} s | IR route {:6.3} + {:6.3} + {:6.3} s | plain {:6.3} s | one/(zyg+plain) {:.2} \
             (CPU {:.2}) | one/route {:.2} (CPU {:.2})",
            job.model, job.level, one.0, emit.0, grad.0, compile.0, plain.0, claim.0, claim.1, route.0, route.1
        );
        let mut row = json!({
            "model": job.model,
            "source": format!("bench/{}", MODELS.iter().find(|m| m.0 == job.model).unwrap().1),
            "level": job.level,
            "compiler": cc,
            "commands": commands,
            "claim": { "wall": claim.0, "cpu": claim.1 },
            "route": { "wall": route.0, "cpu": route.1 },
        });
        // Where the time goes (one run each, -O2 only): clang's phases, zyg's pass inside it.
        if job.level == "-O2" {
            let phases = ["Front end", "LLVM IR generation", "Optimizer", "Machine code generation", "::ZygPass"];
            let mut report = serde_json::Map::new();
            for (name, mut cmd) in job.commands(cc, &zyg, &plugin) {
                if !matches!(name, "one_step" | "compile_grad" | "plain") {
                    continue;
                }
                let (_, _, err) = time(cmd.arg("-ftime-report"));
                report.insert(name.to_string(), json!(time_report(&err, &phases)));
            }
            row["time_report_cpu_s"] = Value::Object(report);
        }
        rows.push(row);
    }
    let finished = sh("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_default();
    let clang_version = sh(&clang, &["--version"]).and_then(|v| v.lines().next().map(String::from)).unwrap_or_default();
    let json = json!({
        "zyg": zyg.display().to_string(),
        "plugin": plugin.display().to_string(),
        "clang": clang_version,
        "commit": sh("git", &["rev-parse", "--short", "HEAD"]).unwrap_or_default(),
        "started": started,
        "finished": finished,
        "loads": loads,
        "quick": quick(),
        "repeat": repeat,
        "rows": rows,
    });
    let path = target_dir().join("zyg-bench/plugin_time.json");
    std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap()).expect("write plugin_time.json");
    println!("wrote {}", path.display());
}
