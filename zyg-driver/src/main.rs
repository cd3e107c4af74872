//! The `zyg` command line.

#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use zyg_driver::{grad, GradOptions};
use zyg_transform::ArgActivity;

#[derive(Parser)]
#[command(name = "zyg", version, about = "Reverse-mode automatic differentiation of LLVM IR")]
struct Cli {
    /// Log what zyg does (repeat for more detail).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fill in every `__enzyme_autodiff`/`__zyg_autodiff` call with a generated gradient.
    Grad {
        /// Input module: `.ll`, `.bc`, `.mlir`, or `-` for standard input (LLVM IR).
        input: PathBuf,
        /// Output module: `.ll` is text, `.mlir` MLIR (LLVM dialect), anything else bitcode
        /// (as `opt`); `-` is stdout.
        #[arg(short, long)]
        output: PathBuf,
        /// Optimisation level of the pipeline rerun on the result (0-3).
        #[arg(short = 'O', default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=3))]
        opt_level: u8,
        /// Write textual IR whatever the output's name.
        #[arg(short = 'S')]
        text: bool,
        #[command(flatten)]
        export: Export,
    },
    /// Run a pass pipeline in LLVM's syntax, with `grad` (zyg's gradient step) among the
    /// passes: `--passes='grad,default<O3>'`.
    Opt {
        /// Input module (`.ll`, `.bc`, `.mlir`, `-`).
        input: PathBuf,
        /// Output module, as for `grad`.
        #[arg(short, long)]
        output: PathBuf,
        /// The pipeline: LLVM passes and `grad`, comma-separated.
        #[arg(long)]
        passes: String,
        /// Write textual IR whatever the output's name.
        #[arg(short = 'S')]
        text: bool,
        /// The `--fn` export of the `grad` step.
        #[command(flatten)]
        export: Export,
    },
    /// Print where the pass plugin `libzyg_plugin.so` is, for `clang -fpass-plugin=` and
    /// `opt -load-pass-plugin=` (README, "One-step builds").
    PluginPath,
    /// Lower LLVM IR to native code (`.o`, `.s`, `.so`) or, with `--target nvptx64`, to PTX.
    Compile {
        /// Input module (`.ll`, `.bc`, `.mlir`, `-`).
        input: PathBuf,
        /// Output: `.o`, `.s` or `.so` (native), `.ptx` (NVPTX).
        #[arg(short, long)]
        output: PathBuf,
        /// Target: `nvptx64` for CUDA GPUs, or an LLVM triple (default: the module's, or
        /// the host's).
        #[arg(long)]
        target: Option<String>,
        /// The GPU (`sm_70`, `sm_80`, `sm_90`; default `sm_70`) for NVPTX.
        #[arg(long)]
        gpu: Option<String>,
        /// The CPU for native code (`native`, `x86-64-v3`, ...).
        #[arg(long, conflicts_with = "gpu")]
        cpu: Option<String>,
        /// Optimisation level (0-3).
        #[arg(short = 'O', default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=3))]
        opt_level: u8,
        /// libdevice's bitcode (default: found in the CUDA wheels or toolkit).
        #[arg(long)]
        libdevice: Option<PathBuf>,
    },
}

/// `--fn` and its options: export the gradient of functions under C names. `--fn` may be
/// given several times; then `--args` and `--name`, when given, are given as often, the
/// n-th for the n-th function.
#[derive(clap::Args)]
struct Export {
    /// Also export the gradient of this function: its symbol, or a C++ name as LLVM's
    /// demangler (llvm-cxxfilt) prints it: the signature (`ns::loss(double const*, int)`),
    /// the name alone (`ns::loss`) or a prefix of the signature, when it names one function.
    /// May be given several times.
    #[arg(long = "fn", value_name = "NAME")]
    function: Vec<String>,
    /// Comma-separated kinds of the exported gradient's arguments: out, const, dup (once per
    /// `--fn` when several are given).
    #[arg(long, requires = "function", value_parser = grad::parse_kinds)]
    args: Vec<Vec<ArgActivity>>,
    /// Name of the exported gradient (default: `<NAME>_grad`, or `<NAME>_fwd` in forward mode;
    /// for a C++ name, the words of the function's name joined by `_`: `ns::loss` exports
    /// `ns_loss_grad`); once per `--fn` when several are given.
    #[arg(long, requires = "function")]
    name: Vec<String>,
    /// `reverse` (the gradient) or `forward` (the tangent of the result along the tangents
    /// given after each float and pointer argument).
    #[arg(long, requires = "function", value_enum, default_value_t = Mode::Reverse)]
    mode: Mode,
    /// Forward mode: how many tangents one call computes (vector mode, 1 to 64): each float
    /// and pointer argument is followed by N tangents or shadows, and N tangents of the
    /// result come back through a struct pointer, the first argument.
    #[arg(long, requires = "function", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    width: u32,
    /// Write the exported gradients' C prototypes to this file.
    #[arg(long, requires = "function")]
    header: Option<PathBuf>,
    /// Keep the tape of one gradient call small: long loops (time steps) are checkpointed in
    /// segments whose primal is rerun in the adjoint (e.g. 64MiB, 1MiB, 4096; see README,
    /// "Tapes and memory"). `-v` reports what was chosen per loop.
    #[arg(long, value_name = "SIZE", value_parser = grad::parse_size)]
    tape_budget: Option<u64>,
}

/// `--mode`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Mode {
    Reverse,
    Forward,
}

fn main() -> ExitCode {
    // Command-line mistakes end like every other failure: `zyg: error:`, status 1 (clap's
    // own convention is status 2).
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => e.exit(),
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    eprint!("{}", e.render());
                    eprintln!("zyg: error: a command is needed: grad, opt, compile or plugin-path");
                }
                _ => eprint!("zyg: {}", e.render()),
            }
            return ExitCode::FAILURE;
        }
    };
    let level = match cli.verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("ZYG_LOG").unwrap_or_else(|_| level.into()))
        .with_writer(std::io::stderr)
        .without_time()
        .with_target(false)
        .with_ansi(zyg_driver::supervisor::stderr_is_terminal())
        .init();
    // A panic is a bug in zyg: report it as one, with status 1 like any other failure
    // (outputs are only renamed into place at the very end, so nothing partial is left).
    std::panic::set_hook(Box::new(|info| {
        eprintln!("zyg: internal error: {info}\nzyg: please report this, with the input that caused it");
    }));
    if let Command::PluginPath = cli.command {
        return match zyg_driver::plugin::installed_path() {
            Ok(path) => {
                println!("{}", path.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("zyg: error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    // The work runs in a child process, so that even LLVM stopping the process ends as
    // `zyg: error:` with no temporary file left (src/supervisor.rs).
    let watch = watch(&cli.command);
    zyg_driver::supervisor::run(&watch, || match std::panic::catch_unwind(|| run(cli.command)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("zyg: error: {e}");
            ExitCode::FAILURE
        }
        Err(_) => ExitCode::FAILURE,
    })
}

/// The input and the outputs of a command, for the supervisor's messages and clean-up.
fn watch(command: &Command) -> zyg_driver::supervisor::Watch {
    let (input, mut outputs, header) = match command {
        Command::Grad { input, output, export, .. } | Command::Opt { input, output, export, .. } => {
            (input, vec![output.clone()], export.header.clone())
        }
        Command::Compile { input, output, .. } => (input, vec![output.clone()], None),
        Command::PluginPath => unreachable!("`zyg plugin-path` runs without a supervisor"),
    };
    outputs.extend(header);
    zyg_driver::supervisor::Watch { input: input.clone(), outputs }
}

/// One `GradOptions` per `--fn` (`zyg_driver::Exports::options`).
fn options(
    input: PathBuf,
    output: PathBuf,
    opt_level: u8,
    text: bool,
    e: Export,
) -> Result<Vec<GradOptions>, zyg_driver::DriverError> {
    let exports = zyg_driver::Exports {
        functions: e.function,
        args: e.args,
        names: e.name,
        header: e.header,
        forward: matches!(e.mode, Mode::Forward),
        width: e.width,
        tape_budget: e.tape_budget,
    };
    exports.options(input, output, opt_level, text)
}

fn run(command: Command) -> Result<(), zyg_driver::DriverError> {
    match command {
        Command::Grad { input, output, opt_level, text, export } => grad(&options(input, output, opt_level, text, export)?),
        Command::Opt { input, output, passes, text, export } => {
            zyg_driver::opt::run(&options(input, output, 0, text, export)?, &passes)
        }
        Command::PluginPath => unreachable!("`zyg plugin-path` is answered in `main`"),
        Command::Compile { input, output, target, gpu, cpu, opt_level, libdevice } => {
            zyg_driver::compile::run(&zyg_driver::compile::CompileOptions {
                input,
                output,
                target,
                cpu: gpu.or(cpu),
                opt_level,
                libdevice,
            })
        }
    }
}
