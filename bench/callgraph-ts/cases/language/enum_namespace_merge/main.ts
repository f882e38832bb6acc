enum Color {
  Red,
  Green,
}

namespace Color {
  export function parse(s: string): Color {
    return s === "red" ? Color.Red : fallback();
  }

  function fallback(): Color {
    return Color.Green;
  }
}

const enum Level {
  Low = 1,
  High = 2,
}

function paint(c: Color, l: Level): string {
  return String(c) + String(l);
}

paint(Color.parse("red"), Level.High);
