function normalize(s) {
  return s.trim().toLowerCase();
}
function store(key, value) {
  return key + "=" + value;
}
export function put(raw, value) {
  return store(normalize(raw), value);
}
