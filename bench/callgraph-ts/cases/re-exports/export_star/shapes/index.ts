export * from "./circle";
export * from "./square";

export function describe(): string {
  return "shapes";
}
