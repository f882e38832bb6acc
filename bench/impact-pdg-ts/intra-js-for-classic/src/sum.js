export function sumEvery(xs, stride) {
  let acc = 0;
  let i;
  for (i = 0; i < xs.length; i += stride) {
    if (xs[i] === undefined) break;
    acc += xs[i];
  }
  const visited = i;
  return acc + visited;
}
