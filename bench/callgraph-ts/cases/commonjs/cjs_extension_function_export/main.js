function run() {
  const build = require("./build.cjs");
  return build("x") + build.normalize(" y ");
}

run();
