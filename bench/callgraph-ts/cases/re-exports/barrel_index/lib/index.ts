export { pad } from "./format";
export { parseNum } from "./parse";
