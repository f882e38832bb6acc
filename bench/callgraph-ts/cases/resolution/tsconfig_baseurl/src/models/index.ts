import { today } from "utils/date";

export class Entry {
  created = today();
}
