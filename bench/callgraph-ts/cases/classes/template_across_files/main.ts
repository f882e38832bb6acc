import { Pipeline } from "./lib/pipeline";

class FastPipeline extends Pipeline {
  prepare(): string {
    return "fast";
  }
}

class LoggedPipeline extends Pipeline {
  finish(): string {
    return log("done");
  }
}

function log(s: string): string {
  return s;
}

new FastPipeline().execute();
new LoggedPipeline().execute();
