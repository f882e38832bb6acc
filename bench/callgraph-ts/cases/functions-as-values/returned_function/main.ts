function add(a: number, b: number): number {
  return a + b;
}

function makeAdder(n: number): (x: number) => number {
  function adder(x: number): number {
    return add(x, n);
  }
  return adder;
}

const add5 = makeAdder(5);
add5(1);
