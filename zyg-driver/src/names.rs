//! `--fn NAME`: the function a name on the command line means. A symbol (`loss`,
//! `_ZN2ns4lossEPKdi`) means itself. A C++ name is matched against the module's functions
//! demangled by LLVM's demangler (`zyg_native::demangle`, as llvm-cxxfilt prints them):
//! first the whole signature (`ns::loss(double const*, int)`), then the name without its
//! parameters (`ns::loss`), then a prefix of the signature (`ns::loss(double`); at each
//! level one match is the answer, several (overloads) an error listing them, and a miss
//! goes on to the next level. Spaces only matter between two words (`double const *` is
//! `double const*`). A name nothing matches is an error suggesting the closest names.

use crate::error::{DriverError, Result};
use std::path::Path;

/// A function of the module that has a body, by its symbol and (C++) demangled name.
struct Candidate {
    symbol: String,
    demangled: Option<String>,
}

impl Candidate {
    /// How messages show it: `ns::loss(double const*, int)` (`_ZN2ns4lossEPKdi`), or the symbol.
    fn shown(&self) -> String {
        match &self.demangled {
            Some(d) => format!("`{d}` (`{}`)", self.symbol),
            None => format!("`{}`", self.symbol),
        }
    }
}

/// The function `--fn given` names: its symbol.
pub fn resolve(module: &inkwell::module::Module<'_>, given: &str, path: &Path) -> Result<String> {
    let candidates: Vec<Candidate> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .filter_map(|f| f.get_name().to_str().ok().map(str::to_string))
        .map(|symbol| Candidate { demangled: zyg_native::demangle(&symbol), symbol })
        .collect();
    if candidates.iter().any(|c| c.symbol == given) {
        return Ok(given.to_string());
    }
    let wanted = normalize(given);
    // A template's instance starts with its return type (`double ns::f<double>(double)`):
    // each level also tries the name without it.
    let signatures = |d: &str| [normalize(d), normalize(without_return_type(d))];
    let levels: [&dyn Fn(&str) -> bool; 3] = [
        &|d: &str| signatures(d).contains(&wanted),
        &|d: &str| signatures(d).iter().any(|s| without_parameters(s) == wanted),
        &|d: &str| signatures(d).iter().any(|s| s.starts_with(&wanted)),
    ];
    for matches in levels {
        let found: Vec<&Candidate> = candidates.iter().filter(|c| c.demangled.as_deref().is_some_and(matches)).collect();
        match found.as_slice() {
            [] => continue,
            [one] => return Ok(one.symbol.clone()),
            several => {
                let list: Vec<String> = several.iter().map(|c| format!("  {}", c.shown())).collect();
                return Err(DriverError::Request {
                    path: path.to_path_buf(),
                    message: format!(
                        "--fn `{given}` names {} functions; give the whole signature or the symbol of one:\n{}",
                        several.len(),
                        list.join("\n")
                    ),
                });
            }
        }
    }
    Err(DriverError::Request { path: path.to_path_buf(), message: no_such_function(given, &candidates) })
}

/// What the export of the function `symbol` is named after when `--fn` gave a C++ name: the
/// words of its demangled name without return type and parameters, joined by `_` so that
/// it is a C identifier (`ns::loss(double const*, int)` exports `ns_loss`,
/// `ns::cube<double>(double)` `ns_cube_double`); whatever part of the name was given.
pub fn export_stem(symbol: &str) -> String {
    let Some(demangled) = zyg_native::demangle(symbol) else { return symbol.to_string() };
    let words: Vec<&str> = without_parameters(without_return_type(&demangled))
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        symbol.to_string()
    } else {
        words.join("_")
    }
}

/// The error for a name nothing matches, with the closest names.
fn no_such_function(given: &str, candidates: &[Candidate]) -> String {
    let wanted = normalize(given);
    let mut scored: Vec<(usize, &Candidate)> = candidates
        .iter()
        .map(|c| {
            let mut forms = vec![c.symbol.clone()];
            if let Some(d) = &c.demangled {
                let signature = normalize(without_return_type(d));
                forms.push(without_parameters(&signature).to_string());
                forms.push(signature);
            }
            (forms.iter().map(|f| distance(&wanted, f)).min().unwrap_or(usize::MAX), c)
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.symbol.cmp(&b.1.symbol)));
    let closest: Vec<String> = scored.iter().take(3).map(|(_, c)| c.shown()).collect();
    let mut message = format!("--fn `{given}`: no function of that name with a body in this module");
    if !closest.is_empty() {
        message.push_str(&format!("; the closest: {}", closest.join(", ")));
    }
    message
}

/// `d` without its parameter list and what follows it (`ns::loss(double) const` is
/// `ns::loss`); a template's arguments stay (`ns::f<int>(int)` is `ns::f<int>`). The list
/// is the last top-level parenthesis, so that a function returning a function pointer or a
/// parenthesised template argument does not cut it short.
fn without_parameters(d: &str) -> &str {
    let (mut depth, mut open) = (0i32, None);
    for (i, c) in d.char_indices() {
        match c {
            '<' | '(' | '[' => {
                if depth == 0 && c == '(' {
                    open = Some(i);
                }
                depth += 1;
            }
            '>' | ')' | ']' => depth -= 1,
            _ => {}
        }
    }
    open.map_or(d, |i| d[..i].trim_end())
}

/// `d` without the return type a template instance's name starts with: what follows the
/// last space outside brackets before the parameter list (`double ns::f<int>(double)` is
/// `ns::f<int>(double)`).
fn without_return_type(d: &str) -> &str {
    let name = without_parameters(d);
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in name.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ' ' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    &d[start..]
}

/// `s` with the spaces that do not separate two words taken out.
fn normalize(s: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let chars: Vec<char> = s.trim().chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        if c.is_whitespace() {
            let before = out.chars().last();
            let after = chars[i + 1..].iter().find(|c| !c.is_whitespace());
            if let (Some(b), Some(&a)) = (before, after) {
                if word(b) && word(a) && !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// Levenshtein's edit distance between `a` and `b`, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb)).min(row[j] + 1).min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_matter_only_between_words() {
        assert_eq!(normalize("ns::loss(double const *, int)"), "ns::loss(double const*,int)");
        assert_eq!(normalize(" unsigned  int "), "unsigned int");
        assert_eq!(normalize("ns::loss(double const*, int)"), normalize("ns::loss(double const *,int)"));
    }

    #[test]
    fn parameters_are_the_last_top_level_list() {
        assert_eq!(without_parameters("ns::loss(double const*, int)"), "ns::loss");
        assert_eq!(without_parameters("ns::V::norm() const"), "ns::V::norm");
        assert_eq!(without_parameters("double ns::f<(char)1>(double)"), "double ns::f<(char)1>");
        assert_eq!(without_parameters("loss"), "loss");
    }

    #[test]
    fn return_types_of_template_instances() {
        assert_eq!(without_return_type("double ns::f<int>(double)"), "ns::f<int>(double)");
        assert_eq!(without_return_type("ns::loss(double const*, int)"), "ns::loss(double const*, int)");
        assert_eq!(without_return_type("unsigned int f<unsigned int>()"), "f<unsigned int>()");
    }

    #[test]
    fn export_stems_are_identifiers() {
        assert_eq!(export_stem("_ZN2ns4lossEPKdi"), "ns_loss");
        assert_eq!(export_stem("_ZN2ns4cubeIdEET_S1_"), "ns_cube_double");
        assert_eq!(export_stem("loss"), "loss");
    }

    #[test]
    fn distances() {
        assert_eq!(distance("ns::los", "ns::loss"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
