// LLVM IR to MLIR's LLVM dialect, for `zyg grad ... -o OUT.mlir`: MLIR's C API can translate
// MLIR to LLVM IR but not back, so this calls the C++ importer (libMLIR.so) directly.
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Import.h"
#include "llvm-c/Core.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <cstring>
#include <string>

static char *copy_out(const std::string &s) {
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (p)
        std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

// Takes ownership of `module`. Returns the module as MLIR text (malloc'd), or null with
// *error set to the importer's messages (malloc'd).
extern "C" char *zyg_llvm_to_mlir(LLVMModuleRef module, char **error) {
    std::unique_ptr<llvm::Module> owned(llvm::unwrap(module));
    mlir::DialectRegistry registry;
    registry.insert<mlir::DLTIDialect, mlir::LLVM::LLVMDialect>();
    mlir::registerAllFromLLVMIRTranslations(registry);
    mlir::MLIRContext context(registry);
    context.disableMultithreading();
    std::string messages;
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
        if (d.getSeverity() == mlir::DiagnosticSeverity::Error) {
            llvm::raw_string_ostream os(messages);
            os << d << "\n";
        }
        return mlir::success();
    });
    mlir::OwningOpRef<mlir::ModuleOp> op =
        mlir::translateLLVMIRToModule(std::move(owned), &context, /*emitExpensiveWarnings=*/false);
    if (!op) {
        *error = copy_out(messages.empty() ? std::string("MLIR cannot import the LLVM IR") : messages);
        return nullptr;
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    os.flush();
    return copy_out(text);
}
