exports.join = function (a, b) {
  return exports.clean(a) + "/" + exports.clean(b);
};

exports.clean = (s) => s.replace(/\/+$/, "");

module.exports.base = function base(p) {
  return p.split("/").pop();
};
