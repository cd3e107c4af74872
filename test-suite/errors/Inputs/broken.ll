define double @f(double %x) {
  %y = fmul double %x
  ret double %y
}
