export const pad = (s: string): string => " " + s;

export const label = function (n: number): string {
  return pad(String(n));
};
