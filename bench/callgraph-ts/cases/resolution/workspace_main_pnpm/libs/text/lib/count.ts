import { words } from "./main";

export function countWords(s: string): number {
  return words(s).length;
}
