export function compute(n: number): number {
  return n * 2;
}

export function warm(): void {}
