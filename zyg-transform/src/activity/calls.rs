//! The calls activity analysis knows by name: those that never move a derivative (inert
//! intrinsics, deallocations, C library functions that only inspect or print), heap
//! allocations, GPU barriers, and the non-local jumps zyg refuses.

use zyg_ir::{Callee, InstKind, Module, Type};

/// Calls that never move derivatives, whatever pointers they are given.
const INERT_CALLS: &[&str] =
    &["llvm.lifetime.", "llvm.dbg.", "llvm.assume", "llvm.experimental.noalias.scope.decl", "llvm.invariant.", "llvm.prefetch"];

/// setjmp and longjmp in all their spellings: a jump out of a callee, or back into a
/// function that already returned once, skips what the primal and the adjoint record.
pub(super) const NON_LOCAL_JUMPS: &[&str] =
    &["setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk"];

/// Heap allocation functions (C, and C++'s `operator new`): their memory gets a shadow.
/// `__zyg_vla(bytes)` stands for a variable-length array (a dynamic `alloca`) while zyg
/// works: its shadow is heap memory, since it must outlive the primal's frame. The aligned
/// ones (`memory::aligned_allocation` says where their alignment is) get a shadow with the
/// same alignment. `posix_memalign`, which hands its memory back through a pointer, is
/// differentiated through a model of its own (`rules::library`) that calls `aligned_alloc`.
pub const ALLOCATIONS: &[&str] = &[
    "malloc",
    "calloc",
    "realloc",
    "_Znwm",
    "_Znam",
    "__zyg_vla",
    "aligned_alloc",
    "memalign",
    "valloc",
    // operator new(size_t, std::align_val_t), new[], and their nothrow forms.
    "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t",
    "_ZnwmSt11align_val_tRKSt9nothrow_t",
    "_ZnamSt11align_val_tRKSt9nothrow_t",
    // operator new(size_t, const std::nothrow_t&) and new[].
    "_ZnwmRKSt9nothrow_t",
    "_ZnamRKSt9nothrow_t",
];
/// Their deallocations: the primal frees its memory; the shadow is freed by the adjoint.
pub const DEALLOCATIONS: &[&str] = &[
    "free",
    "_ZdlPv",
    "_ZdaPv",
    "_ZdlPvm",
    "_ZdaPvm",
    // operator delete(void*, std::align_val_t), sized, and the array forms.
    "_ZdlPvSt11align_val_t",
    "_ZdaPvSt11align_val_t",
    "_ZdlPvmSt11align_val_t",
    "_ZdaPvmSt11align_val_t",
];

/// Allocation functions that hand their memory back through their first argument, a
/// `void **`: calling one makes memory of one's own as `malloc` does
/// (`ModuleFacts::returns_own_memory` of a wrapper that returns it).
pub const OUT_PARAMETER_ALLOCATIONS: &[&str] = &["posix_memalign"];

/// C library functions that never move derivatives, whatever they are given: output,
/// string and byte inspection, allocation queries, process control, time, random numbers.
/// A call to one passes through even with pointers into differentiated memory (printing a
/// buffer the function fills).
pub const INACTIVE_LIBRARY_CALLS: &[&str] = &[
    "printf",
    "fprintf",
    "sprintf",
    "snprintf",
    "vprintf",
    "vfprintf",
    "puts",
    "fputs",
    "putchar",
    "fputc",
    "putc",
    "fwrite",
    "fflush",
    "perror",
    "strlen",
    "strnlen",
    "strcmp",
    "strncmp",
    "memcmp",
    "bcmp",
    "strchr",
    "strrchr",
    "strstr",
    "getenv",
    "atoi",
    "atol",
    "strtol",
    "strtoul",
    "malloc_usable_size",
    "abort",
    "exit",
    "_exit",
    "__assert_fail",
    "__assert_rtn",
    "time",
    "clock",
    "clock_gettime",
    "gettimeofday",
    "rand",
    "srand",
    "random",
    "srandom",
    "drand48",
    "srand48",
    // The same with `_FORTIFY_SOURCE`: glibc's checked forms.
    "__printf_chk",
    "__fprintf_chk",
    "__sprintf_chk",
    "__snprintf_chk",
    "__vprintf_chk",
    "__vfprintf_chk",
    "__vsprintf_chk",
    "__vsnprintf_chk",
    // Integer results of floats: piecewise constant, so no derivative (an integer holding a
    // float's bits is checked where it becomes a float again). clang gives them no memory
    // attributes at -O0, so they are named here.
    "lround",
    "lroundf",
    "lroundl",
    "llround",
    "llroundf",
    "llroundl",
    "lrint",
    "lrintf",
    "lrintl",
    "llrint",
    "llrintf",
    "llrintl",
    "ilogb",
    "ilogbf",
    "ilogbl",
    "__fpclassify",
    "__fpclassifyf",
    "__fpclassifyl",
    "__isnan",
    "__isnanf",
    "__isnanl",
    "__isinf",
    "__isinff",
    "__isinfl",
    "__finite",
    "__finitef",
    "__finitel",
    "__signbit",
    "__signbitf",
    "__signbitl",
];

/// C++ standard library functions (libstdc++'s mangled names, by prefix) that never move
/// derivatives: output to streams (a number printed or formatted into a string is text,
/// as with `printf` and `sprintf`), `std::string`'s members (they move chars), locale and
/// stream state, hashing bytes, and the `__throw_*` helpers that only throw. Input
/// (`operator>>`) is not among them: a number it reads overwrites memory that may hold an
/// adjoint.
const INACTIVE_CXX_PREFIXES: &[&str] = &[
    // std::ostream's members (`operator<<(double)`, `_M_insert<double>`, `put`, `flush`).
    "_ZNSo",
    // The free `std::operator<<`s, all output to a stream (a C string, a char, a
    // std::string, a std::complex), `std::endl`, `std::flush`, `std::__ostream_insert`.
    "_ZStls",
    "_ZSt4endlIcSt11char_traitsIcEE",
    "_ZSt5flushIcSt11char_traitsIcEE",
    "_ZSt16__ostream_insertIcSt11char_traitsIcEE",
    // std::string (both ABIs' spellings of basic_string<char>), const and not.
    "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE",
    "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE",
    // String streams used for output, stream state and locales.
    "_ZNSt7__cxx1119basic_ostringstreamIcSt11char_traitsIcESaIcEE",
    "_ZNKSt7__cxx1119basic_ostringstreamIcSt11char_traitsIcESaIcEE",
    "_ZNSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEE",
    "_ZNKSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEE",
    "_ZNSt8ios_base",
    "_ZNKSt8ios_base",
    "_ZNSt9basic_iosIcSt11char_traitsIcEE",
    "_ZNKSt9basic_iosIcSt11char_traitsIcEE",
    "_ZNSt6locale",
    "_ZNKSt6locale",
    "_ZNKSt5ctypeIcE",
    // std::to_string's formatting into a string (`__gnu_cxx::__to_xstring`, variadic).
    "_ZN9__gnu_cxx12__to_xstring",
    // std::_Hash_bytes (std::hash of a double hashes its bytes: an integer result).
    "_ZSt11_Hash_bytes",
    // The standard exceptions' members (a message copied in, `what()`).
    "_ZNSt9exception",
    "_ZNKSt9exception",
    "_ZNSt11logic_error",
    "_ZNKSt11logic_error",
    "_ZNSt13runtime_error",
    "_ZNKSt13runtime_error",
    "_ZNSt12domain_error",
    "_ZNSt12length_error",
    "_ZNSt12out_of_range",
    "_ZNSt16invalid_argument",
    "_ZNSt11range_error",
    "_ZNSt14overflow_error",
    "_ZNSt15underflow_error",
    // std::__throw_length_error and the rest: they throw, they compute nothing.
    "_ZSt19__throw_logic_error",
    "_ZSt20__throw_length_error",
    "_ZSt20__throw_out_of_range",
    "_ZSt24__throw_out_of_range_fmt",
    "_ZSt17__throw_bad_alloc",
    "_ZSt28__throw_bad_array_new_length",
    "_ZSt16__throw_bad_cast",
    "_ZSt25__throw_bad_function_call",
    "_ZSt21__throw_bad_optional_access",
    "_ZSt19__throw_range_error",
    "_ZSt24__throw_invalid_argument",
];

/// `__syncthreads()` and its kin (`llvm.nvvm.barrier0`, `llvm.nvvm.barrier.cta.*`), and an
/// OpenMP team's barrier (`#pragma omp barrier`, the end of a worksharing loop).
pub fn is_barrier(name: &str) -> bool {
    name.starts_with("llvm.nvvm.barrier") || name == OPENMP_BARRIER
}

/// `void __kmpc_barrier(ptr loc, i32 gtid)`.
pub const OPENMP_BARRIER: &str = "__kmpc_barrier";

pub fn is_inert_call(name: &str) -> bool {
    INERT_CALLS.iter().any(|p| name.starts_with(p))
        || DEALLOCATIONS.contains(&name)
        || INACTIVE_LIBRARY_CALLS.contains(&name)
        || INACTIVE_CXX_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether a call to `name` (returning `ret`) cannot move a derivative, so that the adjoint
/// leaves it alone whatever its arguments: the inert calls above, and declared functions that
/// touch no memory the program can see and return no float or pointer (`llvm.is.fpclass`,
/// `lround`, `ilogb`): all they pass on is an integer result, which carries no derivative
/// (a float's bits in an integer are checked for where they become a float again).
pub fn moves_no_derivative(module: &Module, name: &str, ret: &Type) -> bool {
    is_inert_call(name) || (module.is_pure(name) && module.function(name).is_none() && !can_hold_derivative_or_address(ret))
}

/// A type with a float or a pointer somewhere in it.
fn can_hold_derivative_or_address(ty: &Type) -> bool {
    ty.carries_derivative() || ty.is_ptr() || ty.holds_pointers()
}

pub fn is_allocation(kind: &InstKind) -> bool {
    matches!(kind, InstKind::Call { callee: Callee::Direct(name), .. } if ALLOCATIONS.contains(&&**name))
}
