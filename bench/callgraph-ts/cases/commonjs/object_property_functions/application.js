var helpers = require("./helpers");

var app = exports = module.exports = {};

app.init = function init() {
  this.settings = {};
  return app.defaults();
};

app.defaults = function defaults() {
  return helpers.normalize({ env: "dev" });
};

app.listen = function listen(port) {
  return helpers.normalize({ port: port });
};
