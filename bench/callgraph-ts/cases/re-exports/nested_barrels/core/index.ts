export * from "./db";
