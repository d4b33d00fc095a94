/**
 * The one place samlify is configured: its XML schema validator (every inbound message is checked against
 * the SAML 2.0 schemas before anything reads it). samlify refuses to parse anything until a validator is
 * set, so every module of this folder imports samlify from here.
 */
import * as xmllint from "@authenio/samlify-node-xmllint";
import * as samlify from "samlify";

samlify.setSchemaValidator(xmllint);

export { samlify };
