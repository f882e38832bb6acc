import { slugify } from "@acme/core";

export function title(t: string): string {
  return slugify(t);
}

title("A B");
