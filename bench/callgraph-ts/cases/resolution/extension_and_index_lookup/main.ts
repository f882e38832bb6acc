import { fromFile } from "./util.js";
import { fromDir } from "./util/extra.js";
import { help } from "./helpers/index.js";
import * as util from "./util";

fromFile();
fromDir();
help();
util.fromFile();
