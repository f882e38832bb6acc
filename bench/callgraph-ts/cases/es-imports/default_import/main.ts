import hello from "./greet";
import Box from "./store";

const b = new Box();
b.add(hello("x"));
