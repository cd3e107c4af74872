//! The `zyg` command's work runs in a child process that its parent watches, so that the
//! failures LLVM cannot report as errors still end as one `zyg: error:` line, exit status 1,
//! and no temporary file left behind.
//!
//! LLVM stops the process on some inputs instead of returning an error: `report_fatal_error`
//! (`LLVM ERROR: ...`, then `exit(1)` or `abort()`), an allocation it cannot make (the bitcode
//! reader trusts sizes written in the file: `LLVM ERROR: out of memory`, then `abort()`), and
//! in its assertions a segmentation fault. None of these can be caught in the process: no
//! destructor runs, so a temporary output would stay. zyg checks what it can first (the
//! input is verified before any pass sees it, `--cpu` is checked against the target's list,
//! scalable vectors are refused); this is the net under those checks.
//!
//! The parent starts the child before any work: the same binary with the same arguments,
//! marked by `CHILD_VARIABLE` in its environment (which carries what the parent found at its
//! start: whether standard output was closed, whether standard error is a terminal). It
//! relays the child's standard error line by line, and keeps back what follows an
//! `LLVM ERROR:` line. When the child dies from a signal or LLVM's fatal error, the parent
//! removes the child's temporary files (named `.zyg-PID-*` beside each output, see
//! `temp_prefix`) and says what the child was doing (`phase`), which the child writes into
//! a small file the parent made (in the temporary directory) and reads once the child is
//! gone. Signals that stop the parent (Ctrl-C, `kill`, `timeout`) are passed on to the
//! child; the parent then cleans up and dies from the same signal.
//!
//! `ZYG_IN_PROCESS=1` runs the work in the one process (for a debugger).

use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

/// Marks the child: `PARENT_PID;FLAGS;PHASE_FILE`, FLAGS holding `c` when standard output was
/// closed at the parent's start and `t` when its standard error is a terminal.
const CHILD_VARIABLE: &str = "ZYG_SUPERVISED_CHILD";

/// The most bytes of a phase kept (after a two-byte length).
const PHASE_BYTES: usize = 4096;

/// The child's phase file, open for writing (unset when not supervised).
static PHASE: OnceLock<std::fs::File> = OnceLock::new();

/// The child's process id, for the parent's signal forwarding (0 once it is gone).
static CHILD: AtomicI32 = AtomicI32::new(0);

/// Records what zyg is doing now ("reading the input", "optimising (default<O2>)"), for the
/// message the parent prints if LLVM stops the process. Does nothing when not supervised.
pub fn phase(text: &str) {
    let Some(file) = PHASE.get() else { return };
    let mut len = text.len().min(PHASE_BYTES - 2);
    while !text.is_char_boundary(len) {
        len -= 1;
    }
    let mut record = Vec::with_capacity(len + 2);
    record.extend_from_slice(&(len as u16).to_le_bytes());
    record.extend_from_slice(&text.as_bytes()[..len]);
    let _ = file.write_at(&record, 0);
}

/// The start of the names of this process's temporary files: `.zyg-PID-`.
pub fn temp_prefix() -> String {
    format!(".zyg-{}-", std::process::id())
}

/// What the parent needs to report a failure of the child: the input's name for messages,
/// and the outputs, beside which the child's temporary files are.
pub struct Watch {
    pub input: PathBuf,
    pub outputs: Vec<PathBuf>,
}

/// What the child learns from `CHILD_VARIABLE`.
struct Marker {
    parent: u32,
    stdout_closed: bool,
    stderr_terminal: bool,
    phase_file: PathBuf,
}

/// The child's marker, when this process is a supervised child.
fn marker() -> Option<&'static Marker> {
    static MARKER: OnceLock<Option<Marker>> = OnceLock::new();
    MARKER
        .get_or_init(|| {
            let value = std::env::var_os(CHILD_VARIABLE)?;
            let value = value.to_str()?;
            let mut fields = value.splitn(3, ';');
            let parent = fields.next()?.parse().ok()?;
            let flags = fields.next()?;
            let phase_file = PathBuf::from(fields.next()?);
            Some(Marker { parent, stdout_closed: flags.contains('c'), stderr_terminal: flags.contains('t'), phase_file })
        })
        .as_ref()
}

/// Whether the command's standard error is a terminal (the parent's, for a child whose own
/// is the pipe to its parent), for the colours of the log.
pub fn stderr_is_terminal() -> bool {
    match marker() {
        Some(m) => m.stderr_terminal,
        None => std::io::IsTerminal::is_terminal(&std::io::stderr()),
    }
}

/// Runs `work` in a child process (see the module comment) and returns its exit code, or
/// `FAILURE` after reporting how LLVM stopped it.
pub fn run(watch: &Watch, work: impl FnOnce() -> ExitCode) -> ExitCode {
    if std::env::var_os("ZYG_IN_PROCESS").is_some_and(|v| v != "0") {
        return work();
    }
    if let Some(m) = marker() {
        return run_child(m, work);
    }
    let phase_file = match tempfile::Builder::new().prefix(".zyg-phase-").tempfile() {
        Ok(f) => f,
        Err(_) => {
            tracing::warn!("cannot watch zyg's work from a parent process: running it in this one");
            return work();
        }
    };
    match start_child(phase_file.path()) {
        Ok(child) => watch_child(watch, child, phase_file),
        Err(_) => {
            tracing::warn!("cannot start a child process: running zyg's work in this process");
            work()
        }
    }
}

/// The child's side: dies with its parent, records its phase, does the work.
fn run_child(m: &Marker, work: impl FnOnce() -> ExitCode) -> ExitCode {
    // If the parent is already gone, nobody is left to clean up.
    let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
    if nix::unistd::getppid().as_raw() as u32 != m.parent {
        return ExitCode::FAILURE;
    }
    if m.stdout_closed {
        crate::llvm_io::note_stdout_closed();
    }
    if let Ok(file) = std::fs::OpenOptions::new().write(true).open(&m.phase_file) {
        let _ = PHASE.set(file);
    }
    phase("starting");
    work()
}

/// Starts this binary again, with the same arguments, as the supervised child.
fn start_child(phase_file: &Path) -> std::io::Result<std::process::Child> {
    let flags =
        format!("{}{}", if crate::llvm_io::stdout_closed() { "c" } else { "" }, if stderr_is_terminal() { "t" } else { "" });
    let mut marker = std::ffi::OsString::from(format!("{};{flags};", std::process::id()));
    marker.push(phase_file.as_os_str());
    std::process::Command::new(std::env::current_exe()?)
        .args(std::env::args_os().skip(1))
        .env(CHILD_VARIABLE, marker)
        .stderr(std::process::Stdio::piped())
        .spawn()
}

/// The parent's side: relay the child's standard error, wait for it, clean up and report.
fn watch_child(watch: &Watch, mut child: std::process::Child, phase_file: tempfile::NamedTempFile) -> ExitCode {
    let pid = child.id();
    CHILD.store(pid as i32, Ordering::SeqCst);
    forward_signals();
    let relayed = match child.stderr.take() {
        Some(pipe) => relay(pipe),
        None => Relayed { llvm_error: None, said_error: false, last_line: None },
    };
    let status = loop {
        match child.wait() {
            Ok(status) => break Some(status),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break None,
        }
    };
    CHILD.store(0, Ordering::SeqCst);
    let signal = status.and_then(|s| s.signal());
    let code = status.and_then(|s| s.code()).unwrap_or(1);
    remove_temporaries(watch, pid);
    let doing = read_phase(phase_file.as_file());
    drop(phase_file);
    if let Some(sig) = signal.filter(|s| FORWARDED.contains(s)) {
        // Stopped on purpose (Ctrl-C, kill): die the same way, as a shell expects.
        let _ = signal_hook::low_level::emulate_default_handler(sig);
        return ExitCode::FAILURE;
    }
    // An LLVM error diagnostic with no handler installed ends the process with exit(1) after
    // printing `error: <unknown>:0:0: ...` ("SSE register return with SSE disabled"): a
    // failure that said nothing of zyg's own.
    let silent = code != 0 && !relayed.said_error;
    if relayed.llvm_error.is_none() && signal.is_none() && !silent {
        return ExitCode::from(code.clamp(0, 255) as u8);
    }
    eprintln!("zyg: error: {}", failure_message(watch, &relayed, signal, code, &doing));
    ExitCode::FAILURE
}

/// The one line that says how the child failed.
fn failure_message(watch: &Watch, relayed: &Relayed, signal: Option<i32>, code: i32, doing: &str) -> String {
    let input = watch.input.display();
    match (&relayed.llvm_error, signal) {
        (Some(reason), _) => {
            let hint = if reason.contains("out of memory") && doing.starts_with("reading") {
                " (a corrupt or truncated bitcode file can make LLVM's reader ask for any amount of memory)"
            } else {
                ""
            };
            format!("{input}: LLVM stopped while {doing}: {reason}{hint}")
        }
        (None, Some(libc::SIGKILL)) => {
            format!("{input}: zyg was killed (SIGKILL; out of memory?) while {doing}")
        }
        (None, Some(sig)) if doing.starts_with("reading") => format!(
            "{input}: LLVM's reader crashed ({}) while {doing}: the file is corrupt, or not IR that LLVM 22 reads",
            signal_name(sig)
        ),
        (None, Some(sig)) => format!(
            "{input}: zyg crashed ({}) while {doing}; this is a bug in zyg or LLVM: please report it, with the input",
            signal_name(sig)
        ),
        (None, None) => {
            let last = relayed.last_line.as_deref().map(|l| l.trim().trim_start_matches("error: ").to_string());
            format!("{input}: LLVM reported an error while {doing}: {}", last.unwrap_or_else(|| format!("exit status {code}")))
        }
    }
}

/// Passes the signals that stop a command on to the child, from a thread of the parent's
/// (signal-hook's handler only notes the signal; the thread sends it).
fn forward_signals() {
    let Ok(mut signals) = signal_hook::iterator::Signals::new(FORWARDED) else {
        tracing::warn!("cannot pass signals on to zyg's child process");
        return;
    };
    let _ = std::thread::Builder::new().name("zyg-signals".into()).spawn(move || {
        for sig in signals.forever() {
            let child = CHILD.load(Ordering::SeqCst);
            if let (true, Ok(sig)) = (child > 0, nix::sys::signal::Signal::try_from(sig)) {
                let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(child), sig);
            }
        }
    });
}

/// The signals passed on to the child.
const FORWARDED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// What the child said on its standard error.
struct Relayed {
    /// The reason of an `LLVM ERROR:`, one line.
    llvm_error: Option<String>,
    /// Whether zyg itself reported an error (`zyg: error:`, `zyg: internal error:`).
    said_error: bool,
    /// The last line passed on.
    last_line: Option<String>,
}

/// Copies the child's standard error to ours, line by line, until an `LLVM ERROR:` line:
/// that line and everything after it (LLVM's crash report) is kept back.
fn relay(pipe: impl Read) -> Relayed {
    let mut said_error = false;
    let mut last_line = None;
    let llvm_error = relay_lines(pipe, |line| {
        let text = String::from_utf8_lossy(line);
        said_error |= text.starts_with("zyg: error:") || text.starts_with("zyg: internal error");
        if !text.trim().is_empty() {
            last_line = Some(text.trim_end().to_string());
        }
    });
    Relayed { llvm_error, said_error, last_line }
}

/// `relay`'s loop: passes each line on (and, once complete, to `seen`: a line may come in
/// several writes), returns the `LLVM ERROR:` reason.
fn relay_lines(mut pipe: impl Read, mut seen: impl FnMut(&[u8])) -> Option<String> {
    let mut stderr = std::io::stderr();
    // Bytes of the current line not yet passed on, and those already passed on.
    let mut pending: Vec<u8> = Vec::new();
    let mut passed: Vec<u8> = Vec::new();
    let mut kept: Option<Vec<u8>> = None;
    let mut chunk = [0u8; 8192];
    loop {
        let n = match pipe.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if let Some(k) = kept.as_mut() {
            k.extend_from_slice(&chunk[..n]);
            continue;
        }
        pending.extend_from_slice(&chunk[..n]);
        while let Some(end) = pending.iter().position(|b| *b == b'\n') {
            let rest: Vec<u8> = pending.drain(..=end).collect();
            if passed.is_empty() && rest.starts_with(b"LLVM ERROR: ") {
                let mut k = rest;
                k.append(&mut pending);
                kept = Some(k);
                break;
            }
            let _ = stderr.write_all(&rest);
            passed.extend_from_slice(&rest);
            seen(&passed);
            passed.clear();
        }
        // A line without its newline yet waits for it, unless it cannot be LLVM's.
        let could_be_llvm = passed.is_empty() && b"LLVM ERROR: ".starts_with(&pending[..pending.len().min(12)]);
        if kept.is_none() && !pending.is_empty() && !could_be_llvm {
            let _ = stderr.write_all(&pending);
            passed.append(&mut pending);
        }
    }
    if let Some(k) = kept {
        return Some(llvm_reason(&String::from_utf8_lossy(&k)));
    }
    if passed.is_empty() && pending.starts_with(b"LLVM ERROR: ") {
        return Some(llvm_reason(&String::from_utf8_lossy(&pending)));
    }
    let _ = stderr.write_all(&pending);
    passed.append(&mut pending);
    if !passed.is_empty() {
        seen(&passed);
    }
    None
}

/// "LLVM ERROR: out of memory\nAllocation failed\n..." as one line: the error's text and
/// the next line when it is a detail of the same error (not the crash report).
fn llvm_reason(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim_start_matches("LLVM ERROR: ").trim().to_string();
    match lines.next().map(str::trim) {
        Some(detail) if !detail.is_empty() && !detail.starts_with("PLEASE") && !detail.starts_with("Stack dump") => {
            format!("{first} ({detail})")
        }
        _ => first,
    }
}

/// The child's last phase, from the file it wrote it in ("starting" when there is none).
fn read_phase(file: &std::fs::File) -> String {
    let mut record = vec![0u8; PHASE_BYTES];
    let mut filled = 0;
    while filled < record.len() {
        match file.read_at(&mut record[filled..], filled as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => filled += n,
        }
    }
    let len = if filled < 2 { 0 } else { (u16::from_le_bytes([record[0], record[1]]) as usize).min(filled - 2) };
    let text = String::from_utf8_lossy(&record[2..2 + len]).into_owned();
    if text.is_empty() {
        "starting".into()
    } else {
        text
    }
}

/// Removes the child's temporary files (`.zyg-PID-*`) beside each output.
fn remove_temporaries(watch: &Watch, child: u32) {
    let prefix = format!(".zyg-{child}-");
    let mut dirs: Vec<PathBuf> = watch.outputs.iter().filter(|o| *o != Path::new("-")).map(|o| directory_of(o)).collect();
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// The directory a file is written in (`.` for a bare name).
pub fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn signal_name(sig: libc::c_int) -> String {
    let name = match sig {
        libc::SIGSEGV => "SIGSEGV, a segmentation fault",
        libc::SIGABRT => "SIGABRT, an abort",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGXCPU => "SIGXCPU, its CPU time limit",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_one_line() {
        assert_eq!(llvm_reason("LLVM ERROR: out of memory\nAllocation failed\n"), "out of memory (Allocation failed)");
        assert_eq!(llvm_reason("LLVM ERROR: Broken module found\nPLEASE submit a bug report\n"), "Broken module found");
        assert_eq!(llvm_reason("LLVM ERROR: x"), "x");
    }
}
