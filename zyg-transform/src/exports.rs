//! Wrappers that give a gradient entry (`Gradient`) the signature a caller outside the
//! transform needs: the exported gradient of `zyg grad --fn` (C's ABI, or a CUDA kernel's)
//! and a gradient returned through memory.

use crate::builder::Cursor;
use crate::spec::Gradient;
use zyg_ir::{Function, Linkage, Type};

/// The exported gradient: `T name(args)` for one `out` argument, `void name(args)` for
/// none, and `void name(struct *out, args)` for several (a pointer keeps the C ABI simple
/// and identical on every target).
pub fn export_wrapper(name: &str, gradient: &Gradient) -> Function {
    let fields = gradient_fields(gradient);
    let mut sig = gradient.sig.clone();
    let several = fields.len() > 1;
    sig.ret = match fields.len() {
        1 => fields[0].clone(),
        _ => Type::Void,
    };
    if several {
        sig.params.insert(0, Type::PTR);
    }
    let mut f = Function::new(name, sig);
    f.linkage = Linkage::External;
    let entry = f.create_block(Some("entry".into()));
    let params = f.params.clone();
    let mut c = Cursor::at_end(&mut f, entry);
    let args = if several { params[1..].to_vec() } else { params.clone() };
    let grads = c.call(&gradient.name, gradient.sig.clone(), args).expect("a struct");
    match fields.len() {
        0 => c.ret(None),
        1 => {
            let g = c.extract(grads, 0);
            c.ret(Some(g));
        }
        _ => {
            c.store(grads, params[0]);
            c.ret(None);
        }
    }
    f
}

/// The exported gradient of a kernel: `void name(args, shadows after pointers, float
/// *d_out...)`, one pointer per `out` argument into which every thread adds its part.
pub fn kernel_export_wrapper(name: &str, gradient: &Gradient) -> Function {
    let fields = gradient_fields(gradient);
    let mut sig = gradient.sig.clone();
    sig.ret = Type::Void;
    sig.params.extend(fields.iter().map(|_| Type::PTR));
    let mut f = Function::new(name, sig);
    f.linkage = Linkage::External;
    let entry = f.create_block(Some("entry".into()));
    let params = f.params.clone();
    let given = gradient.sig.params.len();
    let mut c = Cursor::at_end(&mut f, entry);
    let grads = c.call(&gradient.name, gradient.sig.clone(), params[..given].to_vec()).expect("a struct");
    for (k, ty) in fields.iter().enumerate() {
        let g = c.extract(grads, k as u32);
        c.atomic_add_into(params[given + k], ty, g);
    }
    c.ret(None);
    f
}

/// `void name(ptr out, args)`: calls the gradient and stores its struct through `out`.
pub fn store_gradients_wrapper(name: &str, gradient: &Gradient) -> Function {
    let mut sig = gradient.sig.clone();
    sig.ret = Type::Void;
    sig.params.insert(0, Type::PTR);
    let mut f = Function::new(name, sig);
    let entry = f.create_block(Some("entry".into()));
    let params = f.params.clone();
    let mut c = Cursor::at_end(&mut f, entry);
    let grads = c.call(&gradient.name, gradient.sig.clone(), params[1..].to_vec()).expect("a struct");
    c.store(grads, params[0]);
    c.ret(None);
    f
}

/// The types of a gradient entry's results: entries return a struct of them.
fn gradient_fields(gradient: &Gradient) -> &[Type] {
    match &gradient.sig.ret {
        Type::Struct(fields) => fields,
        _ => unreachable!("gradients return a struct"),
    }
}
