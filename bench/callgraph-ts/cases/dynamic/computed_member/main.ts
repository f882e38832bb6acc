function add(a: number, b: number): number {
  return a + b;
}

function sub(a: number, b: number): number {
  return a - b;
}

const ops: Record<string, (a: number, b: number) => number> = { add, sub };

class Api {
  list(): string {
    return "list";
  }
  drop(): string {
    return "drop";
  }
}

function run(op: string): number {
  return ops[op](1, 2); // unresolvable: computed member (ops)
}

function call(api: Api, method: string): string {
  return (api as any)[method](); // unresolvable: computed member (api)
}

run("ad" + "d");
run("sub");
call(new Api(), "list");
