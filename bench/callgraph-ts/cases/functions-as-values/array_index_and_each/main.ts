function first(): number {
  return 1;
}

function second(): number {
  return 2;
}

function third(): number {
  return 3;
}

const handlers: Array<() => number> = [first, second];
handlers.push(third);

function callFirst(): number {
  return handlers[0]();
}

function callEach(): number {
  let n = 0;
  handlers.forEach((h) => {
    n += h();
  });
  return n;
}

callFirst();
callEach();
