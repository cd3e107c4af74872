//! Runs the fuzz targets' checks on files, without libFuzzer: `cargo run --release
//! --example replay -- llvm_module FILE... [--repeat N]` (a crash found by `cargo fuzz`,
//! or a whole corpus directory's files, or one file many times to watch memory).

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 1;
    if let Some(at) = args.iter().position(|a| a == "--repeat") {
        repeat = args.get(at + 1).and_then(|n| n.parse().ok()).unwrap_or(1);
        args.drain(at..(at + 2).min(args.len()));
    }
    let Some((target, files)) = args.split_first() else {
        eprintln!("usage: replay text_form|llvm_module FILE... [--repeat N]");
        std::process::exit(2);
    };
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for _ in 0..repeat {
            match target.as_str() {
                "text_form" => {
                    if let Some(e) = zyg_fuzz::text_round_trip(&text) {
                        eprintln!("{file}: does not parse: {e}");
                    }
                }
                "llvm_module" => zyg_fuzz::differentiate_text(&text),
                other => panic!("no target {other}"),
            }
        }
    }
}
