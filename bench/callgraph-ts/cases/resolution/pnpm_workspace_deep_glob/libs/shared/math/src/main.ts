export function square(n: number): number {
  return mul(n, n);
}

export function mul(a: number, b: number): number {
  return a * b;
}
