import * as strings from "./util/strings";

export function title(s: string): string {
  return strings.slug(s);
}

title(strings.trim(" A "));
