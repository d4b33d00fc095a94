/** `make dev`: the whole platform from its TypeScript sources on the embedded defaults (deploy/launcher.ts). */
import { launchPlatform } from "./launcher.js";

await launchPlatform("source");
