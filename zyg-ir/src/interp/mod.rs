//! An interpreter of zyg-ir, so that the transform's phases can be tested on numbers
//! without clang or LLVM.
//!
//! What it models:
//! - values: integers of any width up to 128 bits, `float`, `double`, pointers (addresses
//!   into one byte heap), vectors, structs and arrays; `undef`, `poison` and
//!   `zeroinitializer` are zero. `x86_fp80` is refused (`InterpError::Unsupported`);
//! - memory: one byte-addressed heap with a bump allocator (`memory`) for `alloca` (released
//!   when its function returns), `malloc`/`calloc`/`realloc`/`free` and global variables
//!   (zero-initialised: `GlobalVar` holds no initialiser). Addresses are never reused; an
//!   access outside a live allocation (null, past an end, freed memory, a returned call's
//!   stack slot) is an error, as is a bad `free`. Types are laid out with the natural C
//!   layout of 64-bit targets (`Type::natural_layout`, x86-64's);
//! - every instruction kind, with LLVM's semantics where they are defined: integers wrap,
//!   floats are IEEE, phis of a block read their incoming values together on entry;
//!   `atomicrmw fadd` is a plain add. Where LLVM gives poison (shifts by the width or more,
//!   out-of-range float-to-integer casts) the result is 0 or saturated; division by zero and
//!   `unreachable` are errors;
//! - calls: to the functions given, by name or by address; to the C math library and the
//!   LLVM intrinsics for it (`calls`); to the C allocation and memory functions; anything
//!   else is `InterpError::UnknownCall`. `write` to any descriptor is captured (`stderr`),
//!   `abort` and `llvm.trap` are errors;
//! - a step limit (10 million instructions per `call` by default) and a call depth limit,
//!   so that a bug in generated code fails a test instead of hanging it.

mod calls;
mod exec;
mod memory;
mod ops;
mod value;

pub use memory::{Memory, Origin, HEAP_BASE};
pub use value::{field_offsets, from_bytes, layout, to_bytes, Val};

use crate::function::{Function, Module};
use crate::types::Type;
use std::collections::HashMap;
use std::rc::Rc;

/// Why a run stopped without a result.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum InterpError {
    #[error("call to unknown function `{0}`")]
    UnknownCall(String),
    #[error("unknown global `{0}`")]
    UnknownGlobal(String),
    #[error("`{function}` called with {message}")]
    BadArguments { function: String, message: String },
    #[error("access of {len} bytes at {addr:#x}: {reason}")]
    BadAccess { addr: u64, len: u64, reason: &'static str },
    #[error("free or size of {0:#x}, not a live heap allocation")]
    BadFree(u64),
    #[error("out of memory allocating {0} bytes")]
    OutOfMemory(u64),
    #[error("integer division by zero")]
    DivisionByZero,
    #[error("step limit of {0} instructions reached")]
    StepLimit(u64),
    #[error("call depth limit of {0} reached")]
    CallDepth(usize),
    #[error("`unreachable` reached in `{0}`")]
    Unreachable(String),
    #[error("the program aborted: {0}")]
    Abort(String),
    #[error("llvm.trap called")]
    Trap,
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("malformed IR: {0}")]
    Malformed(String),
}

/// The default step limit.
pub const STEP_LIMIT: u64 = 10_000_000;
const DEPTH_LIMIT: usize = 10_000;
/// Functions get addresses from here on, 16 apart: never inside the heap.
const FUNCTION_BASE: u64 = 1 << 60;

/// Runs zyg-ir functions on a heap of its own. Memory persists between calls, so that a
/// test can allocate buffers, call, and read them back.
#[derive(Debug)]
pub struct Interpreter {
    functions: HashMap<String, Rc<Function>>,
    memory: Memory,
    globals: HashMap<String, u64>,
    function_addresses: HashMap<String, u64>,
    function_names: HashMap<u64, String>,
    steps: u64,
    step_limit: u64,
    stderr: Vec<u8>,
}

impl Interpreter {
    /// An interpreter that can call `functions` (declarations among them are ignored).
    pub fn new<'a>(functions: impl IntoIterator<Item = &'a Function>) -> Interpreter {
        let mut interp = Interpreter {
            functions: HashMap::new(),
            memory: Memory::default(),
            globals: HashMap::new(),
            function_addresses: HashMap::new(),
            function_names: HashMap::new(),
            steps: 0,
            step_limit: STEP_LIMIT,
            stderr: Vec::new(),
        };
        interp.add_functions(functions);
        interp
    }

    /// An interpreter of a module's functions, with its global variables defined (zero).
    pub fn with_module(module: &Module) -> Result<Interpreter, InterpError> {
        let mut interp = Interpreter::new(&module.functions);
        for (name, g) in &module.globals {
            interp.define_global(name, &g.ty)?;
        }
        Ok(interp)
    }

    /// Makes more functions callable (a function of the same name is replaced).
    pub fn add_functions<'a>(&mut self, functions: impl IntoIterator<Item = &'a Function>) {
        for f in functions.into_iter().filter(|f| !f.is_declaration()) {
            self.functions.insert(f.name.clone(), Rc::new(f.clone()));
        }
    }

    /// Defines a global variable of type `ty`, zeroed, and returns its address (the existing
    /// one's if it is defined already).
    pub fn define_global(&mut self, name: &str, ty: &Type) -> Result<u64, InterpError> {
        if let Some(a) = self.globals.get(name) {
            return Ok(*a);
        }
        let (size, align) = layout(ty)?;
        let addr = self.memory.allocate(size, align, Origin::Global)?;
        self.globals.insert(name.to_string(), addr);
        Ok(addr)
    }

    /// The address of a global variable.
    pub fn global(&self, name: &str) -> Option<u64> {
        self.globals.get(name).copied()
    }

    pub fn set_step_limit(&mut self, limit: u64) {
        self.step_limit = limit;
    }

    /// Instructions run by the last `call` (phis included).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// What the program wrote with `write` (the abort messages of generated code).
    pub fn stderr(&self) -> &[u8] {
        &self.stderr
    }

    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// Calls a function given to the interpreter, or a known external one, by name. At most
    /// the step limit's instructions run.
    pub fn call(&mut self, name: &str, args: &[Val]) -> Result<Option<Val>, InterpError> {
        self.steps = 0;
        match self.functions.get(name) {
            Some(f) => {
                let f = Rc::clone(f);
                self.run(f, args.to_vec())
            }
            None => self.external(name, args, None),
        }
    }

    /// `size` bytes of zeroed heap memory, as `malloc` gives (free it with `free`).
    pub fn alloc(&mut self, size: u64) -> Result<u64, InterpError> {
        self.memory.allocate(size, 16, Origin::Heap)
    }

    /// Heap memory holding `values` of type `ty` one after another; returns the address.
    pub fn alloc_values(&mut self, ty: &Type, values: &[Val]) -> Result<u64, InterpError> {
        let (size, _) = layout(ty)?;
        let addr = self.alloc(size * values.len() as u64)?;
        for (i, v) in values.iter().enumerate() {
            self.store(addr + size * i as u64, v, ty)?;
        }
        Ok(addr)
    }

    /// Heap memory holding `xs`, as a pointer value.
    pub fn alloc_f64s(&mut self, xs: &[f64]) -> Result<Val, InterpError> {
        let values: Vec<Val> = xs.iter().map(|x| Val::F64(*x)).collect();
        Ok(Val::Ptr(self.alloc_values(&Type::F64, &values)?))
    }

    /// `n` doubles at `addr`.
    pub fn read_f64s(&self, addr: u64, n: usize) -> Result<Vec<f64>, InterpError> {
        (0..n as u64).map(|i| self.load(addr + 8 * i, &Type::F64).map(|v| v.as_f64().unwrap_or(f64::NAN))).collect()
    }

    /// The value of type `ty` at `addr`.
    pub fn load(&self, addr: u64, ty: &Type) -> Result<Val, InterpError> {
        let (size, _) = layout(ty)?;
        from_bytes(self.memory.read(addr, size)?, ty)
    }

    /// Stores `v` of type `ty` at `addr` (all `layout(ty)` bytes, padding included).
    pub fn store(&mut self, addr: u64, v: &Val, ty: &Type) -> Result<(), InterpError> {
        let bytes = to_bytes(v, ty)?;
        self.memory.write(addr, &bytes)
    }

    /// The address of a global variable, or of a function given or known.
    fn address_of(&mut self, name: &str) -> Result<u64, InterpError> {
        if let Some(a) = self.globals.get(name).or_else(|| self.function_addresses.get(name)) {
            return Ok(*a);
        }
        if !self.functions.contains_key(name) && !calls::is_known(name) {
            return Err(InterpError::UnknownGlobal(name.to_string()));
        }
        let addr = FUNCTION_BASE + 16 * self.function_addresses.len() as u64;
        self.function_addresses.insert(name.to_string(), addr);
        self.function_names.insert(addr, name.to_string());
        Ok(addr)
    }

    /// The name of the function at `addr`.
    fn function_at(&self, addr: u64) -> Result<String, InterpError> {
        self.function_names.get(&addr).cloned().ok_or(InterpError::BadAccess {
            addr,
            len: 0,
            reason: "called, not a function's address",
        })
    }
}
