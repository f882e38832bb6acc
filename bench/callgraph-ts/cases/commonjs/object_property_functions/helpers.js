function normalize(options) {
  return normalize.clean(options);
}

normalize.clean = function clean(o) {
  return Object.assign({}, o);
};

module.exports = { normalize };
