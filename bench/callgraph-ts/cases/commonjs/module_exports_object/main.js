const { mul } = require("./calc");
const calc = require("./calc");

mul(2, 3);
calc.add(1, 1);
