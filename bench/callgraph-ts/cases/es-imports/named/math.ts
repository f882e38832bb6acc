export function add(a: number, b: number): number {
  return a + b;
}

export function twice(n: number): number {
  return add(n, n);
}

export class Counter {
  total = 0;
  bump(): number {
    this.total = add(this.total, 1);
    return this.total;
  }
}
