async function fetchRow(id: number): Promise<string> {
  return "row" + id;
}

async function fetchAll(ids: number[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) out.push(await fetchRow(id));
  return out;
}

function* range(n: number): Generator<number> {
  for (let i = 0; i < n; i++) yield i;
}

async function* pages(): AsyncGenerator<string> {
  yield await fetchRow(0);
}

async function main(): Promise<void> {
  await fetchAll([...range(3)]);
  for await (const p of pages()) {
    p.trim();
  }
}

main();
