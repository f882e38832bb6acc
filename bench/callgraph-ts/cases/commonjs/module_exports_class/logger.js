function stamp(msg) {
  return "[log] " + msg;
}

class Logger {
  constructor(prefix) {
    this.prefix = prefix;
  }

  log(msg) {
    return stamp(this.prefix + msg);
  }
}

module.exports = Logger;
