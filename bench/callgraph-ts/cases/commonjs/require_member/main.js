var compile = require("./utils").compile;
var trimmed = require("./utils").trim;

function run(v) {
  return trimmed(compile(v));
}

run(" x ");
