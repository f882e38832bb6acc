class Task {
  run(): string {
    return this.step();
  }

  step(): string {
    return "task";
  }
}

class Upload extends Task {
  step(): string {
    return "upload";
  }
}

new Task().run();
new Upload().run();
