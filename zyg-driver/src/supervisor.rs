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
//! The parent forks before any work starts (one thread, nothing of LLVM's started), relays
//! the child's standard error line by line, and keeps back what follows an `LLVM ERROR:`
//! line. When the child dies from a signal or LLVM's fatal error, the parent removes the
//! child's temporary files (named `.zyg-PID-*` beside each output, see `temp_prefix`) and
//! says what the child was doing (`phase`), which the child writes into memory it shares
//! with the parent. Signals that stop the parent (Ctrl-C, `kill`, `timeout`) are passed on
//! to the child; the parent then cleans up and dies from the same signal.
//!
//! `ZYG_IN_PROCESS=1` runs the work in the one process (for a debugger).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, AtomicPtr, Ordering};

/// The shared page where the child writes its phase: a length (two bytes) and UTF-8 text.
static PHASE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
const PHASE_BYTES: usize = 4096;

/// The child's process id, for the parent's signal handler.
static CHILD: AtomicI32 = AtomicI32::new(0);

/// Records what zyg is doing now ("reading the input", "optimising (default<O2>)"), for the
/// message the parent prints if LLVM stops the process. Does nothing when not supervised.
pub fn phase(text: &str) {
    let page = PHASE.load(Ordering::Relaxed);
    if page.is_null() {
        return;
    }
    let mut len = text.len().min(PHASE_BYTES - 2);
    while !text.is_char_boundary(len) {
        len -= 1;
    }
    // SAFETY: `page` is the shared mapping of PHASE_BYTES bytes made in `run`, written only
    // by this (single-threaded) child; the parent reads it after the child is gone.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), page.add(2), len);
        page.cast::<[u8; 2]>().write((len as u16).to_le_bytes());
    }
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

/// Runs `work` in a child process (see the module comment) and returns its exit code, or
/// `FAILURE` after reporting how LLVM stopped it.
pub fn run(watch: &Watch, work: impl FnOnce() -> ExitCode) -> ExitCode {
    if std::env::var_os("ZYG_IN_PROCESS").is_some_and(|v| v != "0") {
        return work();
    }
    // SAFETY: an anonymous shared mapping, checked below; it lives as long as the process.
    let page = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            PHASE_BYTES,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 returns.
    if page == libc::MAP_FAILED || unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        tracing::warn!("cannot watch zyg's work from a parent process: running it in this one");
        return work();
    }
    let (read_end, write_end) = (fds[0], fds[1]);
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: called from `main` before any thread is started: the child is a full copy of
    // a single-threaded process, free to do anything.
    match unsafe { libc::fork() } {
        -1 => {
            // SAFETY: both descriptors are ours and used nowhere else.
            unsafe {
                libc::close(read_end);
                libc::close(write_end);
            }
            tracing::warn!("cannot fork: running zyg's work in this process");
            work()
        }
        0 => {
            // SAFETY: the child's own copies of the descriptors; PR_SET_PDEATHSIG takes a
            // signal number. If the parent is already gone, nobody is left to clean up.
            unsafe {
                libc::close(read_end);
                libc::dup2(write_end, 2);
                libc::close(write_end);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
            }
            PHASE.store(page.cast(), Ordering::Relaxed);
            phase("starting");
            work()
        }
        child => {
            // SAFETY: the parent's copy of the write end; the child holds its own.
            unsafe { libc::close(write_end) };
            watch_child(watch, child, read_end, page.cast())
        }
    }
}

/// The parent's side: relay the child's standard error, wait for it, clean up and report.
fn watch_child(watch: &Watch, child: libc::pid_t, read_end: libc::c_int, page: *const u8) -> ExitCode {
    CHILD.store(child, Ordering::SeqCst);
    for sig in FORWARDED {
        // SAFETY: `forward` only reads an atomic and calls kill, both async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = forward as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
    // SAFETY: the read end is this process's and nothing else owns it.
    let pipe = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(read_end) };
    let relayed = relay(pipe);
    let llvm_error = relayed.llvm_error;
    let mut status = 0;
    // SAFETY: waiting for our own child.
    while unsafe { libc::waitpid(child, &mut status, 0) } == -1 {
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break;
        }
    }
    let signal = libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status));
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 1 };
    remove_temporaries(watch, child);
    if let Some(sig) = signal.filter(|s| FORWARDED.contains(s)) {
        // Stopped on purpose (Ctrl-C, kill): die the same way, as a shell expects.
        // SAFETY: restoring the default action and raising a signal at ourselves.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
        return ExitCode::FAILURE;
    }
    // An LLVM error diagnostic with no handler installed ends the process with exit(1) after
    // printing `error: <unknown>:0:0: ...` ("SSE register return with SSE disabled"): a
    // failure that said nothing of zyg's own.
    let silent = code != 0 && !relayed.said_error;
    if llvm_error.is_none() && signal.is_none() && !silent {
        return ExitCode::from(code.clamp(0, 255) as u8);
    }
    // SAFETY: the child is gone; the page holds its last phase.
    let doing = unsafe { read_phase(page) };
    let input = watch.input.display();
    let message = match (&llvm_error, signal) {
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
    };
    eprintln!("zyg: error: {message}");
    ExitCode::FAILURE
}

/// The signals passed on to the child.
const FORWARDED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

extern "C" fn forward(sig: libc::c_int) {
    let child = CHILD.load(Ordering::SeqCst);
    if child > 0 {
        // SAFETY: kill is async-signal-safe.
        unsafe { libc::kill(child, sig) };
    }
}

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
fn relay(pipe: std::fs::File) -> Relayed {
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
fn relay_lines(mut pipe: std::fs::File, mut seen: impl FnMut(&[u8])) -> Option<String> {
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

/// # Safety
/// `page` must be the shared phase page, no longer written.
unsafe fn read_phase(page: *const u8) -> String {
    let len = (u16::from_le_bytes([*page, *page.add(1)]) as usize).min(PHASE_BYTES - 2);
    let text = String::from_utf8_lossy(std::slice::from_raw_parts(page.add(2), len)).into_owned();
    if text.is_empty() {
        "starting".into()
    } else {
        text
    }
}

/// Removes the child's temporary files (`.zyg-PID-*`) beside each output.
fn remove_temporaries(watch: &Watch, child: libc::pid_t) {
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
