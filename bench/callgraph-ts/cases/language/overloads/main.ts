function render(x: string): string;
function render(x: number): string;
function render(x: string | number): string {
  return typeof x === "string" ? quote(x) : String(x);
}

function quote(s: string): string {
  return '"' + s + '"';
}

class Logger {
  write(msg: string): void;
  write(code: number, msg: string): void;
  write(a: string | number, b?: string): void {
    render(typeof a === "number" ? a : a.length);
  }
}

render("a");
new Logger().write(1, "x");
