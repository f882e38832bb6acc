import { run as start, stop } from "./lib";

function run(): number {
  return start() + 1;
}

run();
stop();
