export function digits(n: number): number {
  let count = 0;
  let rest = Math.abs(n);
  do {
    count++;
    rest = Math.floor(rest / 10);
  } while (rest > 0);
  return count;
}
