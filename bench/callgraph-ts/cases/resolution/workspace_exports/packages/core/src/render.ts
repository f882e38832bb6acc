export function render(s: string): string {
  return escape(s);
}

function escape(s: string): string {
  return s.replace("<", "&lt;");
}
