export async function load(which: string): Promise<string> {
  const mod = await import("./plugins/" + which); // unresolvable: computed import
  return mod.activate();
}

export function handle(kind: string): string {
  return require("./handlers/" + kind).handle(); // unresolvable: computed require
}

load("alpha");
handle("csv");
