export const names: string[] = [];

export function register(name: string): void {
  names.push(name);
}

export interface Plugin {
  name: string;
}

export function describe(p: Plugin): string {
  return p.name;
}
