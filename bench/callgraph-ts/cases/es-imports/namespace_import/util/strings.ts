export function trim(s: string): string {
  return s.trim();
}

export function slug(s: string): string {
  return lower(trim(s));
}

export function lower(s: string): string {
  return s.toLowerCase();
}
