class Mailer {
  send(to: string): boolean {
    return to.length > 0;
  }
}

class Sms {
  send(to: string): boolean {
    return to.length > 3;
  }
}

function pick(): Mailer | null {
  return new Mailer();
}

function notify(): void {
  const m: Mailer = new Mailer();
  m.send("a");
  const s = new Sms();
  s.send("0123");
  const maybe = pick();
  maybe!.send("b");
}

notify();
