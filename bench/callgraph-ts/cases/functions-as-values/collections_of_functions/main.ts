function lint(): string {
  return "lint";
}

function test(): string {
  return "test";
}

function onStart(): void {}

function onStop(): void {}

const pipeline = [lint, test];
const handlers = { start: onStart, stop: onStop };

function runAll(): void {
  for (const step of pipeline) step();
  handlers.start();
  handlers["stop"]();
}

runAll();
