import { label } from "./fmt";

const double = (n: number): number => n * 2;

export const run = async (): Promise<string> => {
  return label(double(4));
};

run();
