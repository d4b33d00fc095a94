/** The build's precompression: .br and .gz beside each text file worth it, none for images or tiny files. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { precompressFolder } from "./precompress.js";

const dir = mkdtempSync(join(tmpdir(), "precompress-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("precompressFolder", () => {
  it("writes file.br and file.gz beside every compressible file that shrinks, in every folder", async () => {
    const text = `body { color: #1d4ed8; }\n`.repeat(50);
    mkdirSync(join(dir, "assets"));
    const files = { "assets/app-1a2b.js": `console.log(${JSON.stringify(text)});`, "assets/app-1a2b.css": text, "index.html": `<p>${text}</p>`, "icon.svg": `<svg>${text}</svg>` };
    for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
    writeFileSync(join(dir, "logo.png"), Buffer.alloc(2000, 1));
    writeFileSync(join(dir, "tiny.txt"), "a");
    writeFileSync(join(dir, "assets/app-1a2b.js.map"), `{"mappings":"${"A".repeat(2000)}"}`);

    await precompressFolder(dir);

    for (const [name, body] of Object.entries(files)) {
      expect(brotliDecompressSync(readFileSync(join(dir, `${name}.br`))).toString(), name).toBe(body);
      expect(gunzipSync(readFileSync(join(dir, `${name}.gz`))).toString(), name).toBe(body);
    }
    // Compressed already, not worth it, or never served.
    for (const name of ["logo.png", "tiny.txt", "assets/app-1a2b.js.map"]) {
      expect(existsSync(join(dir, `${name}.br`)), name).toBe(false);
      expect(existsSync(join(dir, `${name}.gz`)), name).toBe(false);
    }
  });
});
