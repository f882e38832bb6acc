function secret() {
  return 42;
}

function compute(expr) {
  return eval(expr); // unresolvable: eval
}

compute("secret()");
