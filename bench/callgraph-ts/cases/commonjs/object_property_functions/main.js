var app = require("./application");

function start() {
  app.init();
  return app.listen(3000);
}

start();
