export async function fetchTotal(ids: number[], load: (id: number) => Promise<number>): Promise<number> {
  let sum = 0;
  const started = Date.now();
  for (const id of ids) {
    const v = await load(id);
    sum += v;
  }
  const elapsed = Date.now() - started;
  return elapsed > 1000 ? -1 : sum;
}
