export function slugify(s: string): string {
  return lower(s).replace(" ", "-");
}

function lower(s: string): string {
  return s.toLowerCase();
}
