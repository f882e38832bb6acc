export function tally(xs: number[], step: number): number {
  let total = 0;
  let factor = 1;
  const add = (v: number) => {
    total += v * factor;
  };
  const size = () => xs.length;
  factor = step * 2;
  for (const x of xs) {
    add(x);
  }
  const n = size();
  return total + n;
}
