/**
 * Precompression of the built web app: a Brotli (.br) and a gzip (.gz) copy beside each compressible file
 * (scripts, styles, pages, SVG, JSON, text), written once at build time at the highest levels, so the
 * production server (web/server/web-server.ts) sends them as they are and never compresses per request.
 * A copy that is not smaller than its file (a tiny file) is not written; the server sends the file itself.
 * node:zlib does it all: a Vite plugin for it would add a dependency for a loop over a folder.
 */
import { readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip as gzipCallback } from "node:zlib";
import type { Plugin } from "vite";

const brotli = promisify(brotliCompress);
const gzip = promisify(gzipCallback);

/** The extensions worth compressing: text. Images but SVG and fonts (woff2) are compressed already. */
export const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".html", ".svg", ".json", ".txt", ".xml", ".webmanifest"]);

/** The encodings written, with their file suffixes, in the server's order of preference. */
export const PRECOMPRESSED = [
  { encoding: "br", suffix: ".br" },
  { encoding: "gzip", suffix: ".gz" },
] as const;

/**
 * Writes file.br and file.gz beside every compressible file under dir; returns the files compressed. The
 * files are compressed at once, on libuv's thread pool (zlib's asynchronous calls), not one by one on the
 * main thread: Brotli's highest level takes about a second for the app's main script.
 */
export async function precompressFolder(dir: string): Promise<string[]> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && COMPRESSIBLE.has(extname(entry.name)))
    .map((entry) => join(entry.parentPath, entry.name));
  await Promise.all(
    files.map(async (path) => {
      const body = await readFile(path);
      const [br, gz] = await Promise.all([
        brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
        gzip(body, { level: constants.Z_BEST_COMPRESSION }),
      ]);
      if (br.length < body.length) await writeFile(`${path}.br`, br);
      if (gz.length < body.length) await writeFile(`${path}.gz`, gz);
    }),
  );
  return files;
}

/** `vite build` only: precompresses the output folder once everything (public/ files too) is written. */
export function precompressPlugin(): Plugin {
  let outDir = "";
  return {
    name: "precompress",
    apply: "build",
    configResolved: (config) => {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle: {
      order: "post",
      handler: async () => void (await precompressFolder(outDir)),
    },
  };
}
