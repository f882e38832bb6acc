export { computeTotal as total } from "./impl";
export { default as report } from "./impl";
