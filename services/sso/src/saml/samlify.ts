/**
 * The one place samlify is configured: its XML schema validator (every inbound message is checked against
 * the SAML 2.0 schemas before anything reads it). samlify refuses to parse anything until a validator is
 * set, so every module of this folder imports samlify from here.
 *
 * The validator (node-xmllint, libxml2 compiled to 4 MB of asm.js) is loaded on the first message it
 * checks, not when the service starts: parsing it cost every boot of the service (each whole-platform
 * test suite, each process) about 0.85 s of CPU though most never see a SAML message. A validator that
 * fails to load rejects, and samlify then refuses the message.
 */
import * as samlify from "samlify";

type SchemaValidator = typeof import("@authenio/samlify-node-xmllint");

let validator: Promise<SchemaValidator> | undefined;

samlify.setSchemaValidator({
  validate: async (xml: string) => {
    validator ??= import("@authenio/samlify-node-xmllint");
    return (await validator).validate(xml);
  },
});

export { samlify };
