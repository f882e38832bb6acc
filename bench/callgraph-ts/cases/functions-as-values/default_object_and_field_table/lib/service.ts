function start(): string {
  return "start";
}

function stop(): string {
  return "stop";
}

export default { start, stop };
