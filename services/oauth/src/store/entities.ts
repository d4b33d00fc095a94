/** The oauth service's table: social sign-in states (one record per state). */
import { defineEntity, p } from "@mikro-orm/core";

export const SignInStateEntity = defineEntity({
  name: "SignInState",
  tableName: "oauth_state",
  properties: {
    state: p.string().primary(),
    providerId: p.string(),
    codeVerifier: p.string(),
    nonce: p.string(),
    callbackUrl: p.text(),
    errorUrl: p.text().nullable(),
    newUserUrl: p.text().nullable(),
    linkUserId: p.string().nullable(),
    linkEmail: p.string().nullable(),
    expiresAt: p.datetime().index(),
    createdAt: p.datetime(),
  },
});

export type SignInStateRow = InstanceType<typeof SignInStateEntity.class>;
