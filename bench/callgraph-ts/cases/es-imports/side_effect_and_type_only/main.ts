import "./setup";
import type { Plugin } from "./registry";
import { describe } from "./registry";

const p: Plugin = { name: "x" };
describe(p);
