import { Entry } from "models";
import { today } from "utils/date";

new Entry();
today();
