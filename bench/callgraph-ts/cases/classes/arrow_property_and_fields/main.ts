class Parser {
  parse(s: string): string[] {
    return s.split(",");
  }
}

class Handler {
  parser = new Parser();

  onInput = (s: string): number => {
    return this.count(this.parser.parse(s));
  };

  count(xs: string[]): number {
    return xs.length;
  }
}

const h = new Handler();
h.onInput("a,b");
