/**
 * SCIM's own error answer (RFC 7644 §3.12): an IdP reads `status` (a string) and `scimType`, not our catalogue
 * codes, so the SCIM routes answer in this format (docs/adr/0070-scim-provisioning.md).
 */

export const SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

/** The `scimType` keywords of RFC 7644 §3.12 table 9 that this implementation answers. */
export type ScimType = "invalidFilter" | "tooMany" | "uniqueness" | "mutability" | "invalidSyntax" | "invalidPath" | "noTarget" | "invalidValue" | "invalidVers";

export interface ScimErrorBody {
  schemas: [typeof SCIM_ERROR_SCHEMA];
  status: string;
  scimType?: ScimType;
  detail: string;
}

/** A refusal in SCIM terms: the HTTP status, the optional `scimType` and a detail safe to show the IdP's admin. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
    this.name = "ScimError";
  }

  body(): ScimErrorBody {
    return { schemas: [SCIM_ERROR_SCHEMA], status: String(this.status), ...(this.scimType ? { scimType: this.scimType } : {}), detail: this.detail };
  }
}

export const badRequest = (scimType: ScimType, detail: string) => new ScimError(400, detail, scimType);
export const notFound = (resource: "User" | "Group" | "Schema" | "ResourceType") => new ScimError(404, `${resource} not found`);
export const conflict = (detail: string) => new ScimError(409, detail, "uniqueness");
export const preconditionFailed = () => new ScimError(412, "The resource has changed since the version given in If-Match");
