//! The command line's promises: the input is never modified, a failure leaves no output
//! and no temporary file, errors exit with status 1 and name what went wrong.

use std::path::Path;
use std::process::{Command, Output};

const MODULE: &str = r#"
define double @square(double %x) {
  %y = fmul double %x, %x
  ret double %y
}

declare double @__enzyme_autodiff(ptr, ...)

define double @dsquare(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @square, double %x)
  ret double %d
}
"#;

const UNKNOWN_CALL: &str = r#"
declare double @mystery(double)
define double @f(double %x) {
  %y = call double @mystery(double %x)
  ret double %y
}
declare double @__enzyme_autodiff(ptr, ...)
define double @df(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}
"#;

fn zyg(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zyg")).args(args).current_dir(dir).output().expect("run zyg")
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn writes_output_and_leaves_input_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.ll"), MODULE).unwrap();
    let out = zyg(&["grad", "in.ll", "-o", "out.ll", "-O0"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(dir.path().join("in.ll")).unwrap(), MODULE);
    let text = std::fs::read_to_string(dir.path().join("out.ll")).unwrap();
    assert!(!text.contains("__enzyme_autodiff(ptr @square"), "the request is filled in");
    assert!(text.contains("square.zyg.grad.a"), "{text}");
    assert_eq!(files(dir.path()), ["in.ll", "out.ll"]);
}

/// An output that is not a regular file is written through, not replaced: renaming the
/// temporary file over `/dev/null` once turned the machine's `/dev/null` into a file of
/// bitcode. Checked on a named pipe (read while zyg writes) and a symbolic link.
#[test]
fn special_outputs_are_written_through() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.ll"), MODULE).unwrap();
    let fifo = dir.path().join("pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    // The reader blocks until a writer opens the pipe; had zyg replaced the pipe, it would
    // wait forever, hence the timeout.
    let (tx, rx) = std::sync::mpsc::channel();
    {
        let fifo = fifo.clone();
        std::thread::spawn(move || tx.send(std::fs::read_to_string(fifo).unwrap()).unwrap());
    }
    let out = zyg(&["grad", "in.ll", "-o", "pipe", "-S", "-O0"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("zyg wrote into the pipe");
    assert!(text.contains("square.zyg.grad.a"), "{text}");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the pipe is still a pipe");

    std::fs::write(dir.path().join("target.ll"), "old").unwrap();
    std::os::unix::fs::symlink("target.ll", dir.path().join("link.ll")).unwrap();
    assert!(zyg(&["grad", "in.ll", "-o", "link.ll", "-O0"], dir.path()).status.success());
    assert!(std::fs::symlink_metadata(dir.path().join("link.ll")).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(dir.path().join("target.ll")).unwrap().contains("square.zyg.grad.a"));
}

#[test]
fn bitcode_unless_text_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.ll"), MODULE).unwrap();
    assert!(zyg(&["grad", "in.ll", "-o", "out.bc"], dir.path()).status.success());
    assert_eq!(&std::fs::read(dir.path().join("out.bc")).unwrap()[..4], b"BC\xc0\xde");
    let out = zyg(&["grad", "in.ll", "-o", "-", "-S"], dir.path());
    assert!(String::from_utf8_lossy(&out.stdout).contains("define"));
    // Bitcode reads back in.
    assert!(zyg(&["grad", "out.bc", "-o", "again.ll"], dir.path()).status.success());
}

#[test]
fn failures_exit_1_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.ll"), "define double @f(double %x) {\n  %y = fmul double %x\n").unwrap();
    std::fs::write(dir.path().join("unknown.ll"), UNKNOWN_CALL).unwrap();
    std::fs::write(dir.path().join("out.ll"), "previous contents").unwrap();
    for (args, expect) in [
        (vec!["grad", "missing.ll", "-o", "out.ll"], "missing.ll"),
        (vec!["grad", "bad.ll", "-o", "out.ll"], "bad.ll"),
        (vec!["grad", "unknown.ll", "-o", "out.ll"], "mystery"),
    ] {
        let out = zyg(&args, dir.path());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("error") && stderr.contains(expect), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(std::fs::read_to_string(dir.path().join("out.ll")).unwrap(), "previous contents");
    }
    assert_eq!(files(dir.path()), ["bad.ll", "out.ll", "unknown.ll"]);
}

#[test]
fn unknown_call_error_names_function_and_instruction() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("u.ll"), UNKNOWN_CALL).unwrap();
    let stderr = String::from_utf8_lossy(&zyg(&["grad", "u.ll", "-o", "o.ll"], dir.path()).stderr).into_owned();
    assert!(stderr.contains("u.ll") && stderr.contains("`f`") && stderr.contains("call"), "{stderr}");
}

#[test]
fn exported_gradient_and_header() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.ll"), MODULE).unwrap();
    let out = zyg(&["grad", "in.ll", "-o", "out.ll", "--fn", "square", "--header", "sq.h"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let header = std::fs::read_to_string(dir.path().join("sq.h")).unwrap();
    assert!(header.contains("double square_grad(double arg0);"), "{header}");
    assert!(std::fs::read_to_string(dir.path().join("out.ll")).unwrap().contains("define double @square_grad("));
    let bad = zyg(&["grad", "in.ll", "-o", "x.ll", "--fn", "square", "--args", "out,const"], dir.path());
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--args"));
}

/// Runs zyg with `args` in `dir` on a module `text` written to `in.ll`, expects exit 1 with
/// `zyg: error:` and every one of `expect` in the message, no new file, and the input as
/// it was; returns the message.
fn refused(dir: &Path, text: &str, args: &[&str], expect: &[&str]) -> String {
    std::fs::write(dir.join("in.ll"), text).unwrap();
    let before = files(dir);
    let out = zyg(args, dir);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(stderr.starts_with("zyg: error: ") || stderr.contains("\nzyg: error: "), "{args:?}: {stderr}");
    for e in expect {
        assert!(stderr.contains(e), "{args:?}: `{e}` not in: {stderr}");
    }
    for bad in ["internal error", "LLVM ERROR", "panicked", "crashed"] {
        assert!(!stderr.contains(bad), "{args:?}: {stderr}");
    }
    assert_eq!(files(dir), before, "{args:?}: a failed run left files behind");
    assert_eq!(std::fs::read_to_string(dir.join("in.ll")).unwrap(), text, "the input was modified");
    stderr
}

/// A request whose first argument is not a function (a null pointer, an integer, a global
/// variable) crashed zyg with a segmentation fault: parse_request took the first argument
/// for an `sret` pointer whenever the second was a function, and the rewritten call's
/// result was then erased while still in use. `sret` now needs the attribute.
#[test]
fn requests_must_name_a_function() {
    let dir = tempfile::tempdir().unwrap();
    for (first, what) in [
        ("ptr null", "it is a null pointer"),
        ("ptr inttoptr (i64 7 to ptr)", "the constant `ptr inttoptr (i64 7 to ptr)`"),
        ("ptr @g", "it is the global variable `@g`"),
        ("ptr %p", "it is a value computed at run time"),
        ("ptr getelementptr (i8, ptr @f, i64 1)", "the constant `ptr getelementptr (i8, ptr @f, i64 1)`"),
    ] {
        let text = format!(
            "@g = global double 1.0\n\
             define double @f(double %x) {{\n  %y = fmul double %x, %x\n  ret double %y\n}}\n\
             declare double @__enzyme_autodiff(ptr, ...)\n\
             define double @df(double %x, ptr %p) {{\n  \
               %d = call double (ptr, ...) @__enzyme_autodiff({first}, ptr @f, double %x)\n  ret double %d\n}}\n"
        );
        refused(dir.path(), &text, &["grad", "in.ll", "-o", "out.ll"], &["in `df`", "must name a function", what]);
    }
    // With `sret` on the first argument, the function comes second and the result goes there.
    let sret = "define double @f(double %x, double %y) {\n  %m = fmul double %x, %y\n  ret double %m\n}\n\
                declare void @__enzyme_autodiff(ptr, ...)\n\
                define void @df(ptr %out, double %x) {\n  \
                  call void (ptr, ...) @__enzyme_autodiff(ptr sret({ double, double }) %out, ptr @f, double %x, double 2.0)\n  \
                  ret void\n}\n";
    std::fs::write(dir.path().join("sret.ll"), sret).unwrap();
    let out = zyg(&["grad", "sret.ll", "-o", "sret.out.ll", "-O0"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A function passed where the function takes a `double` was taken for a callback to
/// specialise on, and zyg crashed writing the copy; other mismatched arguments were only
/// caught later, without the parameter's number.
#[test]
fn request_arguments_must_fit_their_parameters() {
    let dir = tempfile::tempdir().unwrap();
    for (arg, shown) in
        [("ptr @f", "ptr @f"), ("i32 7", "i32 7"), ("<2 x double> zeroinitializer", "<2 x double> zeroinitializer")]
    {
        let text = format!(
            "define double @f(double %x) {{\n  %y = fmul double %x, %x\n  ret double %y\n}}\n\
             declare double @__enzyme_autodiff(ptr, ...)\n\
             define double @df(double %x) {{\n  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, {arg})\n  ret double %d\n}}\n"
        );
        let message = format!("parameter 0 of `f` is a `double`, but the request passes `{shown}`");
        refused(dir.path(), &text, &["grad", "in.ll", "-o", "out.ll"], &[&message]);
    }
}

/// `--name llvm.foo` made an exported gradient that did not verify (an internal error);
/// names are checked before any work: not `llvm.*`, a C identifier, not already taken.
#[test]
fn export_names_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    for (name, expect) in [
        ("llvm.foo", "names starting with `llvm.` are LLVM's intrinsics"),
        ("a b", "needs a C identifier"),
        ("", "needs a C identifier"),
        ("9lives", "needs a C identifier"),
        ("dsquare", "the module already has a symbol named `dsquare`"),
    ] {
        refused(dir.path(), MODULE, &["grad", "in.ll", "-o", "out.ll", "--fn", "square", "--name", name], &[expect]);
    }
    // The default name, `square_grad`, is checked too.
    let taken = format!("{MODULE}\ndefine void @square_grad() {{\n  ret void\n}}\n");
    refused(dir.path(), &taken, &["grad", "in.ll", "-o", "out.ll", "--fn", "square"], &["`square_grad`"]);
}

/// `--header` naming the input or the output overwrote it; through a symbolic or a hard
/// link too. Refused before any work.
#[test]
fn header_may_not_overwrite_the_input_or_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.ll"), MODULE).unwrap();
    std::os::unix::fs::symlink("in.ll", d.join("to-input.h")).unwrap();
    std::fs::hard_link(d.join("in.ll"), d.join("same-input.h")).unwrap();
    std::os::unix::fs::symlink("out.ll", d.join("to-output.h")).unwrap();
    for header in ["in.ll", "./in.ll", "to-input.h", "same-input.h"] {
        refused(d, MODULE, &["grad", "in.ll", "-o", "out.ll", "--fn", "square", "--header", header], &["that is the input file"]);
    }
    for header in ["out.ll", "to-output.h"] {
        refused(
            d,
            MODULE,
            &["grad", "in.ll", "-o", "out.ll", "--fn", "square", "--header", header],
            &["that is the output file"],
        );
    }
    refused(
        d,
        MODULE,
        &["opt", "in.ll", "-o", "out.ll", "--passes=grad", "--fn", "square", "--header", "in.ll"],
        &["input file"],
    );
    refused(d, MODULE, &["grad", "in.ll", "-o", "-", "--fn", "square", "--header", "-"], &["needs a file name"]);
}

/// The output and its header are put in place together or not at all: a header that
/// cannot be written leaves the previous output as it was, and no new file.
#[test]
fn output_and_header_land_together() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("out.ll"), "previous output").unwrap();
    // A header in a directory that does not exist: nothing can be staged.
    refused(d, MODULE, &["grad", "in.ll", "-o", "out.ll", "--fn", "square", "--header", "no/such/dir/sq.h"], &["sq.h"]);
    assert_eq!(std::fs::read_to_string(d.join("out.ll")).unwrap(), "previous output");
    // A header that is a directory: its temporary file is written, the rename fails after
    // the output's, and the output is put back.
    std::fs::create_dir(d.join("sq.h")).unwrap();
    refused(d, MODULE, &["grad", "in.ll", "-o", "out.ll", "--fn", "square", "--header", "sq.h"], &["sq.h"]);
    assert_eq!(std::fs::read_to_string(d.join("out.ll")).unwrap(), "previous output");
    std::fs::remove_file(d.join("out.ll")).unwrap();
    refused(d, MODULE, &["grad", "in.ll", "-o", "out.ll", "--fn", "square", "--header", "sq.h"], &["sq.h"]);
    assert!(!d.join("out.ll").exists());
}

/// `-o -` with standard output closed exited 0 having written nothing (Rust reopens a
/// closed descriptor on /dev/null before `main`).
#[test]
fn closed_standard_output_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.ll"), MODULE).unwrap();
    for command in ["grad", "opt"] {
        let mut args = vec![command, "in.ll", "-o", "-"];
        if command == "opt" {
            args.push("--passes=grad");
        }
        let out = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" >&-")
            .arg(env!("CARGO_BIN_EXE_zyg"))
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("zyg: error: -o -: standard output is closed"));
    }
    assert_eq!(files(dir.path()), ["in.ll"]);
}

/// A CPU its target does not know made LLVM abort later ("64-bit code requested on a
/// subtarget that doesn't support it!"): `--cpu` and functions' `target-cpu` are checked.
#[test]
fn unknown_cpus_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let message = refused(
        dir.path(),
        MODULE,
        &["compile", "in.ll", "-o", "out.o", "--cpu", "x87-64"],
        &["--cpu x87-64", "has no CPU of that name; it knows:"],
    );
    assert!(message.contains("x86-64-v3"), "{message}");
    refused(dir.path(), MODULE, &["compile", "in.ll", "-o", "out.s", "--target", "nvptx64", "--gpu", "sm_7"], &["--gpu sm_7"]);
    let marked = MODULE.replace("define double @square(double %x) {", "define double @square(double %x) #0 {")
        + "attributes #0 = { \"target-cpu\"=\"x87-64\" }\n";
    for args in [&["grad", "in.ll", "-o", "out.ll"][..], &["compile", "in.ll", "-o", "out.o"]] {
        refused(dir.path(), &marked, args, &["function `square` is compiled for the CPU `x87-64`"]);
    }
    // A NUL byte in the name (found by the llvm_module fuzz target): inkwell's reading of
    // the attribute stopped there, and the empty name passed.
    let nul = marked.replace("x87-64", "\\00x86-64");
    refused(dir.path(), &nul, &["grad", "in.ll", "-o", "out.ll", "--fn", "square"], &["for the CPU `\\0x86-64`"]);
}

/// An LLVM error diagnostic with no handler installed ends the process with exit(1) after
/// printing `error: <unknown>:0:0: ...`: the supervisor adds the `zyg: error:` line.
#[test]
fn llvm_error_diagnostics_end_as_errors() {
    let dir = tempfile::tempdir().unwrap();
    let text = "target triple = \"x86_64-pc-linux-gnu\"\n\
                define double @f(double %x) #0 {\n  %y = fmul double %x, %x\n  ret double %y\n}\n\
                attributes #0 = { \"target-features\"=\"-sse,-sse2\" }\n";
    refused(
        dir.path(),
        text,
        &["compile", "in.ll", "-o", "out.o"],
        &["zyg: error: in.ll: LLVM reported an error while generating code for `x86_64-pc-linux-gnu`: <unknown>:0:0: in function f double (double): SSE register return with SSE disabled"],
    );
}

/// When LLVM stops the process anyway (here its x86 backend meets an NVPTX intrinsic: a
/// "Cannot select" fatal error), the supervising parent says so as `zyg: error:`, with
/// status 1, and removes the temporary object file zyg compile was writing.
#[test]
fn llvm_fatal_errors_end_as_errors_without_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let text = "target triple = \"x86_64-pc-linux-gnu\"\n\
                declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n\
                define i32 @f() {\n  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n  ret i32 %t\n}\n";
    std::fs::write(dir.path().join("in.ll"), text).unwrap();
    let out = zyg(&["compile", "in.ll", "-o", "out.o"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("zyg: error: in.ll: LLVM stopped while generating code for `x86_64-pc-linux-gnu`: Cannot select"),
        "{stderr}"
    );
    assert!(!stderr.contains("LLVM ERROR"), "{stderr}");
    assert_eq!(files(dir.path()), ["in.ll"], "no output and no temporary object");
}

/// Command-line mistakes end as every failure does: `zyg: error:`, status 1 (not clap's 2).
#[test]
fn command_line_mistakes_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["grad", "in.ll", "-o", "out.ll", "-O9"][..], &["grad", "--bogus"], &["frobnicate"], &[]] {
        let out = zyg(args, dir.path());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("zyg: error: "), "{args:?}");
    }
}

/// A request for the gradient of a function of 1,000 parameters, all `out`, returned as a
/// struct, ran for minutes at -O2: LLVM's IPSCCP revisited the chain that rebuilt the
/// struct field by field, cubic in the fields. Such gradients now come through memory.
#[test]
fn a_request_for_a_thousand_gradients_finishes() {
    let n = 1000;
    let params: Vec<String> = (0..n).map(|i| format!("double %p{i}")).collect();
    let mut body = String::new();
    let mut last = "%p0".to_string();
    for i in 1..n {
        body += &format!("  %s{i} = fmul double {last}, %p{i}\n");
        last = format!("%s{i}");
    }
    let ret = format!("{{ {} }}", vec!["double"; n].join(", "));
    let text = format!(
        "define double @f({ps}) {{\n{body}  ret double {last}\n}}\n\
         declare {ret} @__enzyme_autodiff(ptr, ...)\n\
         define {ret} @df({ps}) {{\n  %d = call {ret} (ptr, ...) @__enzyme_autodiff(ptr @f, {ps})\n  ret {ret} %d\n}}\n",
        ps = params.join(", ")
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("wide.ll"), text).unwrap();
    let start = std::time::Instant::now();
    let out = zyg(&["grad", "wide.ll", "-o", "wide.out.ll", "-O2"], dir.path());
    let took = start.elapsed();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // About 6 s on a loaded 2-core machine; it was well over a minute.
    assert!(took < std::time::Duration::from_secs(60), "{took:?}");
    let at_o0 = zyg(&["grad", "wide.ll", "-o", "wide.O0.ll", "-O0"], dir.path());
    assert!(at_o0.status.success());
    let ir = std::fs::read_to_string(dir.path().join("wide.O0.ll")).unwrap();
    assert!(ir.contains(".into("), "the gradients come through memory");
}

/// `zyg opt --fn f --header f.h` with a pipeline that has no `grad` step exited 0 and wrote
/// no header: the export was silently ignored.
#[test]
fn an_export_needs_a_grad_step() {
    let dir = tempfile::tempdir().unwrap();
    for passes in ["--passes=default<O2>", "--passes=,,"] {
        refused(
            dir.path(),
            MODULE,
            &["opt", "in.ll", "-o", "out.ll", passes, "--fn", "square", "--header", "sq.h"],
            &["has none"],
        );
    }
}

/// Reading `/dev/zero` as a module never ended, filling memory: devices are refused (and
/// any input is read up to 4 GiB).
#[test]
fn devices_are_not_modules() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["grad", "/dev/zero", "-o", "out.ll"][..], &["compile", "/dev/zero", "-o", "out.o"]] {
        let out = zyg(args, dir.path());
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("zyg: error: /dev/zero: a device, not a module"));
    }
    assert!(files(dir.path()).is_empty());
}

/// `long double` code (x86_fp80) compiled for the GPU stopped NVPTX's backend ("unsupported
/// library call operation", found by ci/fuzz-cli.py): refused, naming the function.
#[test]
fn host_floats_are_refused_for_the_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let text = "define x86_fp80 @f(x86_fp80 %x) {\n  %s = call x86_fp80 @sinl(x86_fp80 %x)\n  ret x86_fp80 %s\n}\n\
                declare x86_fp80 @sinl(x86_fp80)\n";
    refused(
        dir.path(),
        text,
        &["compile", "in.ll", "-o", "out.ptx", "--target", "nvptx64"],
        &["in function `f`: `x86_fp80` (C's `long double` on x86) has no form on the GPU"],
    );
}

/// A call through another type than the callee's own (found by the llvm_module fuzz
/// target: `call void @g(i64 10, ...)` to `define void @g(i32, ...)`) made zyg call the
/// callee's primal with the call's arguments: output that did not verify, reported as an
/// internal error. Such a call is read as a call through a pointer: refused when active,
/// passed through when not.
#[test]
fn calls_through_another_type_are_calls_through_a_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let active = "define double @h(double %x, double %y) {\n  %m = fmul double %x, %y\n  ret double %m\n}\n\
                  define double @f(double %x) {\n  %t = call float @h(float 1.0, double %x)\n  %u = fpext float %t to double\n  ret double %u\n}\n";
    let message = refused(
        dir.path(),
        active,
        &["grad", "in.ll", "-o", "out.ll", "--fn", "f"],
        &["in function `f`", "a call through a pointer"],
    );
    assert!(!message.contains("does not verify"), "{message}");
    let inactive = "define i32 @h(i32 %n) {\n  %m = mul i32 %n, 3\n  ret i32 %m\n}\n\
                    define double @f(double %x, i32 %n) {\n  %k = call i64 @h(i64 10)\n  %c = sitofp i64 %k to double\n  \
                    %y = fmul double %x, %c\n  ret double %y\n}\n";
    std::fs::write(dir.path().join("inactive.ll"), inactive).unwrap();
    let out = zyg(&["grad", "inactive.ll", "-o", "inactive.out.ll", "-O0", "--fn", "f"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
