import { words } from "text-utils";
import { countWords } from "text-utils/lib/count";

words("a b");
countWords("a b c");
