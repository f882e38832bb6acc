function double(n: number): number {
  return n * 2;
}

function square(n: number): number {
  return n * n;
}

function apply(f: (n: number) => number, x: number): number {
  return f(x);
}

function twiceApply(f: (n: number) => number, x: number): number {
  return apply(f, apply(f, x));
}

apply(double, 2);
twiceApply(square, 3);
