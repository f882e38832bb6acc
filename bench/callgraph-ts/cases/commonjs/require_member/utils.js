exports.compile = function compile(val) {
  return exports.trim(String(val));
};

exports.trim = function (s) {
  return s.trim();
};
