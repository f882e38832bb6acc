export function flush(queue: number[], verbose: boolean): number {
  let logged = 0;
  const first = queue.length > 0 ? queue[0] : undefined;
  verbose && (logged = logged + 1);
  const size = first ?? -1;
  first !== undefined || (logged = logged + 10);
  return logged * 1000 + size;
}
