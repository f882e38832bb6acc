import { pad, parseNum } from "./lib";

pad(String(parseNum("3")));
