/**
 * The one place samlify is configured: its XML schema validator (every inbound message is checked against
 * the SAML 2.0 schemas before anything reads it). samlify refuses to parse anything until a validator is
 * set, so every module of this folder imports samlify from here.
 *
 * The validator is libxml2's xmllint compiled to WebAssembly (xmllint-wasm), run in a worker thread that
 * ends with each message: its memory goes with it. (An in-process build of libxml2 kept every message's
 * memory, about 1.5 MiB of RSS per sign-in, and a process listener per call.)
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import * as samlify from "samlify";
import { validateXML } from "xmllint-wasm";

/** The SAML 2.0 protocol schema and what it imports, as the samlify-xmllint-wasm package ships them. */
const SCHEMA_DIR = join(dirname(createRequire(import.meta.url).resolve("@authenio/samlify-xmllint-wasm/package.json")), "build", "schemas");
const PROTOCOL = "saml-schema-protocol-2.0.xsd";
const IMPORTED = ["datatypes.dtd", "saml-schema-assertion-2.0.xsd", "xmldsig-core-schema.xsd", "XMLSchema.dtd", "xenc-schema.xsd"];

let schemas: { schema: { fileName: string; contents: string }; preload: { fileName: string; contents: string }[] } | undefined;
const read = (fileName: string) => ({ fileName, contents: readFileSync(join(SCHEMA_DIR, fileName), "utf8") });

/** Workers at once: each holds up to 32 MiB of WebAssembly memory while it runs; the rest wait their turn. */
const MAX_WORKERS = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  // A finishing worker hands its slot straight to the next in line, so the count never overshoots.
  if (running >= MAX_WORKERS) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

/** Resolves for a message valid against the schemas; rejects otherwise (samlify then refuses the message). */
export async function validateAgainstSamlSchemas(xml: string): Promise<true> {
  schemas ??= { schema: read(PROTOCOL), preload: IMPORTED.map(read) };
  const { schema, preload } = schemas;
  const result = await inTurn(() => validateXML({ xml: [{ fileName: "message.xml", contents: xml }], schema: [schema], preload }));
  if (!result.valid) throw new Error("ERR_INVALID_XML: the message does not follow the SAML 2.0 schemas");
  return true;
}

samlify.setSchemaValidator({ validate: validateAgainstSamlSchemas });

export { samlify };
