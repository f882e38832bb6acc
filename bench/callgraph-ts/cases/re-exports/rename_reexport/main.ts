import { total, report } from "./api";

total([3]);
report();
