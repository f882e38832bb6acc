export function* chunks(xs: number[], size: number): Generator<number[]> {
  let buf: number[] = [];
  const limit = size > 0 ? size : 1;
  for (const x of xs) {
    buf.push(x);
    if (buf.length >= limit) {
      yield buf;
      buf = [];
    }
  }
  if (buf.length > 0) {
    yield buf;
  }
}
