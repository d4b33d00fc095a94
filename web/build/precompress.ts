/**
 * Precompression of the built web app: a Brotli (.br) and a gzip (.gz) copy beside each compressible file
 * (scripts, styles, pages, SVG, JSON, text), written once at build time at the highest levels, so the
 * production server (web/server/web-server.ts) sends them as they are and never compresses per request.
 * A copy that is not smaller than its file (a tiny file) is not written; the server sends the file itself.
 * node:zlib does it all: a Vite plugin for it would add a dependency for a loop over a folder.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Plugin } from "vite";

/** The extensions worth compressing: text. Images but SVG and fonts (woff2) are compressed already. */
export const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".html", ".svg", ".json", ".txt", ".xml", ".webmanifest"]);

/** The encodings written, with their file suffixes, in the server's order of preference. */
export const PRECOMPRESSED = [
  { encoding: "br", suffix: ".br" },
  { encoding: "gzip", suffix: ".gz" },
] as const;

/** Writes file.br and file.gz beside every compressible file under dir; returns the files compressed. */
export function precompressFolder(dir: string): string[] {
  const done: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !COMPRESSIBLE.has(extname(entry.name))) continue;
    const path = join(entry.parentPath, entry.name);
    const body = readFileSync(path);
    const br = brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    });
    const gz = gzipSync(body, { level: constants.Z_BEST_COMPRESSION });
    if (br.length < body.length) writeFileSync(`${path}.br`, br);
    if (gz.length < body.length) writeFileSync(`${path}.gz`, gz);
    done.push(path);
  }
  return done;
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
      handler: () => void precompressFolder(outDir),
    },
  };
}
