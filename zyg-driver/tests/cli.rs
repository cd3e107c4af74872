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
