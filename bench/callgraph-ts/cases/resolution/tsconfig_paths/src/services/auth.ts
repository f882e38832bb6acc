import { hash } from "@app/lib/crypto";

export function login(user: string): string {
  return hash(user);
}
