export { render } from "./render";
