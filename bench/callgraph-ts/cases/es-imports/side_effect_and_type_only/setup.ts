import { register } from "./registry";

register("setup");
