import { ops } from "./lib/ops";
import * as L from "./lib/ops";

function compute(): number {
  return ops.add(1, 2) + ops["sub"](3, 1);
}

function viaNamespace(): number {
  return L.ops.sub(5, 2);
}

compute();
viaNamespace();
