export function firstPair(grid: number[][], target: number): number {
  let found = -1;
  let scanned = 0;
  outer: for (let i = 0; i < grid.length; i++) {
    for (const v of grid[i]) {
      scanned++;
      if (v < 0) {
        continue outer;
      }
      if (v === target) {
        found = i;
        break outer;
      }
    }
  }
  return found * 100 + scanned;
}
