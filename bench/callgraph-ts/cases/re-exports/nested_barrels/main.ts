import { connect, Connection } from "./core";

const c: Connection = connect();
c.open();
