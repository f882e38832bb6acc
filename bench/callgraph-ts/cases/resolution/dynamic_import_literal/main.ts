export async function load(): Promise<number> {
  const m = await import("./heavy");
  return m.compute(21);
}

import("./heavy").then((mod) => mod.warm());
load();
