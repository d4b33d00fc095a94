/**
 * The one place samlify is loaded and configured: its XML schema validator (every inbound message is checked
 * against the SAML 2.0 schemas before anything reads it). samlify refuses to parse anything until a validator
 * is set, so every module of this folder gets samlify from here. It is loaded by the first SAML call, not at
 * start-up: with the XML and crypto packages under it, it is about 22 MiB of resident memory that a
 * deployment without a SAML provider never needs.
 *
 * The validator is libxml2's xmllint compiled to WebAssembly, in long-lived worker threads
 * (schema-validator.ts): a message costs milliseconds, and its memory goes with its own instance.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { schemaValidator } from "./schema-validator.js";

/** The SAML 2.0 protocol schema and what it imports, as the samlify-xmllint-wasm package ships them. */
const SCHEMA_DIR = join(dirname(createRequire(import.meta.url).resolve("@authenio/samlify-xmllint-wasm/package.json")), "build", "schemas");
const PROTOCOL = "saml-schema-protocol-2.0.xsd";
const IMPORTED = ["datatypes.dtd", "saml-schema-assertion-2.0.xsd", "xmldsig-core-schema.xsd", "XMLSchema.dtd", "xenc-schema.xsd"];
const read = (fileName: string) => ({ fileName, contents: readFileSync(join(SCHEMA_DIR, fileName), "utf8") });

/** Two workers: each holds up to 32 MiB of WebAssembly memory while it checks a message. */
const validator = schemaValidator({ schema: () => read(PROTOCOL), preload: () => IMPORTED.map(read), workers: 2 });

/** Resolves for a message valid against the schemas; rejects otherwise (samlify then refuses the message). */
export async function validateAgainstSamlSchemas(xml: string): Promise<true> {
  if (!(await validator.isValid(xml))) throw new Error("ERR_INVALID_XML: the message does not follow the SAML 2.0 schemas");
  return true;
}

export type Samlify = typeof import("samlify");

let library: Promise<Samlify> | undefined;

/** samlify, with the schema validator set: loaded once, by the first caller. */
export function loadSamlify(): Promise<Samlify> {
  library ??= import("samlify").then((samlify) => {
    samlify.setSchemaValidator({ validate: validateAgainstSamlSchemas });
    return samlify;
  });
  return library;
}
