/**
 * `npm start`: the whole platform from the build (`npm run build` writes dist/), on plain node, with the
 * same environment variables and defaults as `make dev` (deploy/launcher.ts). Compiled to dist/start.js.
 */
import { launchPlatform } from "./launcher.js";

await launchPlatform("build");
