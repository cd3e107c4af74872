define double @"f\01n"(double %x) {
  ret double %x
}
