function add(a, b) {
  return a + b;
}

function mul(a, b) {
  let r = 0;
  for (let i = 0; i < b; i++) r = add(r, a);
  return r;
}

module.exports = { add, mul };
