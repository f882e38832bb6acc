const Logger = require("./logger");

const log = new Logger("app: ");
log.log("started");
