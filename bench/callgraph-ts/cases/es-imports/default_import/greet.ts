export default function greet(name: string): string {
  return shout(name);
}

function shout(s: string): string {
  return s.toUpperCase();
}
