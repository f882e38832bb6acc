class Job {
  run(): string {
    return "ran";
  }
}

class Report {
  run(): string {
    return "report";
  }
}

function exec(task: any): string {
  return task.run(); // unresolvable: any receiver
}

function fromJson(s: string): string {
  const cfg = JSON.parse(s);
  return cfg.run(); // unresolvable: any from JSON.parse
}

exec(new Job());
new Report();
fromJson("{}");
