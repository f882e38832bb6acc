exports.handle = function () {
  return "csv";
};
