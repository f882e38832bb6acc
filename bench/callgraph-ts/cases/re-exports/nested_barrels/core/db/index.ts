export { Connection, connect } from "./conn";
