//! What a PTX module says about itself, read from its text: the `.target` it was compiled
//! for and each kernel's (`.entry`'s) parameters. [`crate::Module`] uses it to name the
//! kernels a module has and to check a launch's arguments against the kernel's signature
//! before anything reaches the driver. Needs no GPU.

use crate::{ArgKind, Error, Result};
use std::fmt;

/// A kernel of a PTX module: its name and parameters, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub params: Vec<Param>,
}

/// One `.param` of an `.entry`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// The PTX type without its dot: `f32`, `u64`, `b8`...
    pub ty: String,
    /// The size of one element of `ty` in bytes.
    pub bytes: usize,
    /// `.ptr`: the parameter is a pointer (clang marks kernel pointer parameters so).
    pub pointer: bool,
    /// `name[N]`: an array (how a struct passed by value appears); not launchable here.
    pub array: Option<usize>,
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.ty)?;
        if self.pointer {
            write!(f, " .ptr")?;
        }
        if let Some(n) = self.array {
            write!(f, "[{n}]")?;
        }
        Ok(())
    }
}

impl Param {
    fn is_float(&self) -> bool {
        self.ty.starts_with('f')
    }

    /// Whether an argument of `kind` may be passed for this parameter: floats for `.f32`/`.f64`
    /// (or bits of their size), integers of the parameter's size for `.u`/`.s`/`.b`, device
    /// buffers for `.ptr` parameters and for 64-bit integer ones without `.ptr`.
    pub fn accepts(&self, kind: ArgKind) -> bool {
        if self.array.is_some() {
            return false;
        }
        let bits = self.ty.starts_with('b');
        match kind {
            ArgKind::Pointer => self.bytes == 8 && !self.is_float(),
            ArgKind::F32 => self.bytes == 4 && (self.is_float() || bits),
            ArgKind::F64 => self.bytes == 8 && !self.pointer && (self.is_float() || bits),
            ArgKind::Int(n) => self.bytes == n && !self.pointer && !self.is_float(),
        }
    }
}

impl Entry {
    /// Checks a launch's arguments, as kinds, against this kernel's parameters.
    pub fn check_args(&self, kinds: &[ArgKind]) -> Result<()> {
        if kinds.len() != self.params.len() {
            return Err(Error::ArgCount { kernel: self.name.clone(), expected: self.params.len(), given: kinds.len() });
        }
        for (index, (param, &kind)) in self.params.iter().zip(kinds).enumerate() {
            if !param.accepts(kind) {
                return Err(Error::ArgType { kernel: self.name.clone(), index, param: param.to_string(), given: kind });
            }
        }
        Ok(())
    }
}

/// The PTX text without its `//` and `/* */` comments (newlines kept).
fn strip_comments(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    let mut rest = ptx;
    while !rest.is_empty() {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                rest = &rest[l..];
                rest = rest.find('\n').map_or("", |n| &rest[n..]);
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                rest = &rest[b + 2..];
                match rest.find("*/") {
                    Some(e) => {
                        out.extend(rest[..e].chars().filter(|&c| c == '\n'));
                        rest = &rest[e + 2..];
                    }
                    None => rest = "",
                }
            }
            _ => {
                out.push_str(rest);
                rest = "";
            }
        }
    }
    out
}

/// The size in bytes of a PTX fundamental type (`f32` -> 4), or `None`.
fn type_bytes(ty: &str) -> Option<usize> {
    let (class, bits) = ty.split_at(1);
    if !matches!(class, "f" | "u" | "s" | "b") {
        return None;
    }
    match bits {
        "8" | "16" | "32" | "64" | "128" if class != "f" || bits != "8" => Some(bits.parse::<usize>().ok()? / 8),
        _ => None,
    }
}

fn parse_param(entry: &str, text: &str) -> Result<Param> {
    let bad = || Error::Ptx(format!("kernel `{entry}`: cannot read parameter `{}`", text.trim()));
    let mut words = text.split_whitespace().peekable();
    if words.next() != Some(".param") {
        return Err(bad());
    }
    let mut ty = None;
    let mut pointer = false;
    let mut name = None;
    while let Some(w) = words.next() {
        match w {
            ".ptr" => pointer = true,
            ".align" => {
                words.next().ok_or_else(bad)?;
            }
            // The state space of a `.ptr` (`.global`, `.const`, `.local`, `.shared`).
            ".global" | ".const" | ".local" | ".shared" => {}
            w if w.starts_with('.') => match type_bytes(&w[1..]) {
                Some(_) if ty.is_none() => ty = Some(w[1..].to_string()),
                _ => return Err(bad()),
            },
            w => name = Some(w),
        }
    }
    let ty = ty.ok_or_else(bad)?;
    let name = name.ok_or_else(bad)?;
    let array = match name.find('[') {
        Some(open) => {
            let n = name[open + 1..].strip_suffix(']').ok_or_else(bad)?;
            Some(n.trim().parse().map_err(|_| bad())?)
        }
        None => None,
    };
    Ok(Param { bytes: type_bytes(&ty).ok_or_else(bad)?, ty, pointer, array })
}

/// The kernels (`.entry` functions) of a PTX module, in the order it defines them.
pub fn entries(ptx: &str) -> Result<Vec<Entry>> {
    let text = strip_comments(ptx);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find(".entry") {
        let after = &rest[at + ".entry".len()..];
        // `.entry` as a whole word.
        let word = at == 0 || rest[..at].ends_with(|c: char| c.is_whitespace());
        if !word || !after.starts_with(|c: char| c.is_whitespace()) {
            rest = after;
            continue;
        }
        let after = after.trim_start();
        let name_end = after.find(|c: char| c.is_whitespace() || c == '(' || c == '{' || c == ';').unwrap_or(after.len());
        let name = after[..name_end].to_string();
        if name.is_empty() {
            return Err(Error::Ptx("`.entry` without a name".into()));
        }
        let tail = after[name_end..].trim_start();
        let mut params = Vec::new();
        rest = tail;
        if let Some(list) = tail.strip_prefix('(') {
            let close = list.find(')').ok_or_else(|| Error::Ptx(format!("kernel `{name}`: unterminated parameter list")))?;
            for p in list[..close].split(',').filter(|p| !p.trim().is_empty()) {
                params.push(parse_param(&name, p)?);
            }
            rest = &list[close + 1..];
        }
        out.push(Entry { name, params });
    }
    Ok(out)
}

/// The architecture in `.target` (`sm_70` -> `(7, 0)`; `sm_90a` -> `(9, 0)`), if there is one.
pub fn target(ptx: &str) -> Option<(u32, u32)> {
    let text = strip_comments(ptx);
    let line = text.lines().map(str::trim).find(|l| l.starts_with(".target"))?;
    let first = line[".target".len()..].split(',').next()?.trim();
    let digits: String = first.strip_prefix("sm_")?.chars().take_while(char::is_ascii_digit).collect();
    let n: u32 = digits.parse().ok()?;
    Some((n / 10, n % 10))
}

/// Checks that `ptx` looks like a PTX module (`.version`, `.target`, no NUL byte) before
/// it is handed to the driver, whose own error for text that is not PTX says little.
pub fn validate(ptx: &str) -> Result<()> {
    if ptx.contains('\0') {
        return Err(Error::Ptx("the text contains a NUL byte".into()));
    }
    let text = strip_comments(ptx);
    for directive in [".version", ".target"] {
        if !text.lines().any(|l| l.trim_start().starts_with(directive)) {
            return Err(Error::Ptx(format!("no `{directive}` directive: is this PTX?")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = r#"
// Generated by LLVM NVPTX Back-End
.version 7.8
.target sm_90a, debug
.address_size 64
/* .entry commented_out( .param .f32 a ) */
.visible .entry k(
	.param .f64 k_param_0,   // a double
	.param .u64 .ptr .global .align 8 k_param_1,
	.param .u64 k_param_2,
	.param .align 8 .b8 k_param_3[16]
)
{
	ret;
}
.visible .entry empty()
{
	ret;
}
.func helper(.param .b32 x) { ret; }
"#;

    #[test]
    fn entries_and_params() {
        let e = entries(PTX).unwrap();
        assert_eq!(e.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["k", "empty"]);
        let p = &e[0].params;
        assert_eq!((p[0].ty.as_str(), p[0].bytes, p[0].pointer), ("f64", 8, false));
        assert_eq!((p[1].ty.as_str(), p[1].pointer), ("u64", true));
        assert_eq!((p[2].ty.as_str(), p[2].pointer), ("u64", false));
        assert_eq!((p[3].ty.as_str(), p[3].array), ("b8", Some(16)));
        assert!(e[1].params.is_empty());
        assert_eq!(target(PTX), Some((9, 0)));
        validate(PTX).unwrap();
    }

    #[test]
    fn what_each_param_accepts() {
        let e = entries(PTX).unwrap();
        let p = &e[0].params;
        assert!(p[0].accepts(ArgKind::F64) && !p[0].accepts(ArgKind::F32) && !p[0].accepts(ArgKind::Pointer));
        assert!(p[1].accepts(ArgKind::Pointer) && !p[1].accepts(ArgKind::Int(8)) && !p[1].accepts(ArgKind::F64));
        // A 64-bit integer without `.ptr` may be a pointer or an integer.
        assert!(p[2].accepts(ArgKind::Pointer) && p[2].accepts(ArgKind::Int(8)) && !p[2].accepts(ArgKind::Int(4)));
        assert!(!p[3].accepts(ArgKind::Pointer));
        e[1].check_args(&[]).unwrap();
    }

    #[test]
    fn not_ptx() {
        assert!(matches!(validate("hello"), Err(Error::Ptx(_))));
        assert!(matches!(validate(".version 6.0\n.target sm_70\0"), Err(Error::Ptx(_))));
        assert!(matches!(validate("// .version 6.0\n.target sm_70\n"), Err(Error::Ptx(_))));
        assert_eq!(target(".version 6.0\n.target sm_70\n"), Some((7, 0)));
        assert_eq!(target(".version 6.0\n"), None);
        assert!(entries(".entry k(\n.param .f32 a").is_err());
        assert!(entries(".entry k(.param .q32 a)").is_err());
    }
}
