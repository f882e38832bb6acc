import { nextId } from "~shared/ids";

nextId();
