import { login } from "@app/services/auth";

login("ann");
