// case signature
func.func @f(%a: memref<?xf64>, %x: f64) -> f64 attributes {zyg.gradient = @df} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xf64>
  return %v : f64
}
func.func private @df(memref<?xf64>, f64) -> f64
// end
// case results
func.func @f(%x: f64) -> (f64, f64) attributes {zyg.gradient = @df} {
  return %x, %x : f64, f64
}
// end
// case memref_result
func.func @f(%a: memref<4xf64>) -> memref<4xf64> attributes {zyg.gradient = @df} {
  return %a : memref<4xf64>
}
// end
// case args
func.func @f(%a: memref<4xf64>, %x: f64) -> f64 attributes {zyg.gradient = @df, zyg.args = ["out", "out"]} {
  return %x : f64
}
// end
// case arity
func.func @f(%a: memref<4xf64>, %x: f64) -> f64 attributes {zyg.gradient = @df, zyg.args = ["dup"]} {
  return %x : f64
}
// end
// case vector
func.func @f(%x: f64, %v: vector<4xf64>) -> f64 attributes {zyg.gradient = @df} {
  return %x : f64
}
// end
// case body
func.func @f(%x: f64) -> f64 attributes {zyg.gradient = @df} {
  return %x : f64
}
func.func @df(%x: f64) -> f64 {
  return %x : f64
}
// end
// case twice
func.func @f(%x: f64) -> f64 attributes {zyg.gradient = @df} {
  return %x : f64
}
func.func @g(%x: f64) -> f64 attributes {zyg.gradient = @df} {
  return %x : f64
}
// end
