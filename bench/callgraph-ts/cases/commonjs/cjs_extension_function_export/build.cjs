function build(name) {
  return build.normalize(name) + "!";
}

build.normalize = function normalize(n) {
  return n.trim();
};

module.exports = build;
