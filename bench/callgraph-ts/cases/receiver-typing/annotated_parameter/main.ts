class Request {
  body(): string {
    return "{}";
  }
}

class Response {
  send(s: string): void {}
}

function handle(req: Request, res?: Response): void {
  const b = req.body();
  res?.send(b);
}

function fallback(res: Response | undefined): void {
  if (res) {
    res.send("none");
  }
}

handle(new Request(), new Response());
fallback(undefined);

export {};
