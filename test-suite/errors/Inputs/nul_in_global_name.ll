@"g\01v" = global double 1.0

define double @f(double %x) {
  %"y\01z" = fadd double %x, 1.0
  ret double %"y\01z"
}
