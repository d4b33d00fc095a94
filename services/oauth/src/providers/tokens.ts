/** The token endpoint's answer, read into ProviderTokens. */
import { type Json, str } from "./http.js";
import type { ProviderTokens } from "./types.js";

export function readTokens(answer: Json, now: Date, scopeSeparator = " "): ProviderTokens {
  const expiresIn = Number(answer.expires_in);
  const refreshExpiresIn = Number(answer.refresh_token_expires_in);
  const scope = str(answer.scope);
  return {
    accessToken: str(answer.access_token),
    refreshToken: str(answer.refresh_token),
    idToken: str(answer.id_token),
    accessTokenExpiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(now.getTime() + expiresIn * 1000) : undefined,
    refreshTokenExpiresAt: Number.isFinite(refreshExpiresIn) && refreshExpiresIn > 0 ? new Date(now.getTime() + refreshExpiresIn * 1000) : undefined,
    scopes: scope ? scope.split(scopeSeparator === "," ? /[ ,]+/ : /[ ,]+/).filter(Boolean) : [],
  };
}
