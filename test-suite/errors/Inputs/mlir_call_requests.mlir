// case count
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, f64, index) -> f64
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %w, %x, %n) : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, f64, index) -> f64
  return
}
// end

// case shadow_type
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf32>, f64, index) -> f64
func.func @g(%w: memref<?xf64>, %s: memref<?xf32>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %w, %s, %x, %n) : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf32>, f64, index) -> f64
  return
}
// end

// case operand_type
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<4xf64>, memref<4xf64>, f64, index) -> f64
func.func @g(%v: memref<4xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %v, %v, %x, %n) : ((memref<?xf64>, f64, index) -> f64, memref<4xf64>, memref<4xf64>, f64, index) -> f64
  return
}
// end

// case results
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f32
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %w, %w, %x, %n) : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f32
  return
}
// end

// case results_none
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %w, %w, %x, %n) {zyg.args = "dup,const,const"} : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
  return
}
// end

// case forward_results
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_fwddiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, f64, index) -> (f64, f64)
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d:2 = func.call @__zyg_fwddiff_f(%f, %w, %w, %x, %x, %n) : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, f64, index) -> (f64, f64)
  return
}
// end

// case kind_memref
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, f64, index) -> f64
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %w, %x, %n) {zyg.args = ["out", "out", "const"]} : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, f64, index) -> f64
  return
}
// end

// case kind_index
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index, index) -> f64
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %w, %w, %x, %n, %n) {zyg.args = "dup,out,dup"} : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index, index) -> f64
  return
}
// end

// case kind_forward
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_fwddiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_fwddiff_f(%f, %w, %w, %x, %n) {zyg.args = "dup,out,const"} : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
  return
}
// end

// case kind_unknown
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %w, %w, %x, %n) {zyg.args = "dup,active_out,const"} : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
  return
}
// end

// case kind_arity
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %w, %w, %x, %n) {zyg.args = "dup,out"} : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
  return
}
// end

// case kind_attr
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %w, %w, %x, %n) {zyg.args = 3 : i32} : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
  return
}
// end

// case split
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_augmentfwd_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> !llvm.ptr
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_augmentfwd_f(%f, %w, %w, %x, %n) : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> !llvm.ptr
  return
}
// end

// case not_constant
func.func @f(%w: memref<?xf64>, %x: f64, %n: index) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
func.func @g(%f: (memref<?xf64>, f64, index) -> f64, %w: memref<?xf64>, %x: f64, %n: index) {
  %d = func.call @__zyg_autodiff_f(%f, %w, %w, %x, %n) : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
  return
}
// end

// case no_body
func.func private @f(memref<?xf64>, f64, index) -> f64
func.func private @__zyg_autodiff_f((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
func.func @g(%w: memref<?xf64>, %x: f64, %n: index) {
  %f = func.constant @f : (memref<?xf64>, f64, index) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %w, %w, %x, %n) : ((memref<?xf64>, f64, index) -> f64, memref<?xf64>, memref<?xf64>, f64, index) -> f64
  return
}
// end

// case memref_result
func.func @f(%w: memref<?xf64>) -> memref<?xf64> {
  return %w : memref<?xf64>
}
func.func private @__zyg_autodiff_f((memref<?xf64>) -> memref<?xf64>, memref<?xf64>, memref<?xf64>)
func.func @g(%w: memref<?xf64>) {
  %f = func.constant @f : (memref<?xf64>) -> memref<?xf64>
  func.call @__zyg_autodiff_f(%f, %w, %w) : ((memref<?xf64>) -> memref<?xf64>, memref<?xf64>, memref<?xf64>) -> ()
  return
}
// end

// case unranked
func.func @f(%w: memref<*xf64>, %x: f64) -> f64 {
  return %x : f64
}
func.func private @__zyg_autodiff_f((memref<*xf64>, f64) -> f64, memref<*xf64>, memref<*xf64>, f64) -> f64
func.func @g(%w: memref<*xf64>, %x: f64) {
  %f = func.constant @f : (memref<*xf64>, f64) -> f64
  %d = func.call @__zyg_autodiff_f(%f, %w, %w, %x) : ((memref<*xf64>, f64) -> f64, memref<*xf64>, memref<*xf64>, f64) -> f64
  return
}
// end
