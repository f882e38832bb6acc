const paths = require("./paths");

paths.base(paths.join("a/", "b"));
