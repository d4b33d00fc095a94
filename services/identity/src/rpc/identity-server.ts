/** IdentityService over gRPC: decode, call one use case, encode. */
import { type IdentityServiceServer, IdentityServiceService } from "@auth-platform/proto/gen/auth/identity/v1/identity";
import { AuthError } from "@auth-platform/proto/errors";
import { unary } from "@auth-platform/proto/rpc-server";
import type { ServiceBinding } from "@auth-platform/runtime/grpc-server";
import type { Registry } from "../domain/ports.js";
import { signInEmail, signInUsername } from "../domain/sign-in.js";
import { signUpEmail } from "../domain/sign-up.js";
import { parseJsonObject, toUserMessage } from "./mappers.js";

export function identityService(registry: Registry): ServiceBinding {
  const implementation: IdentityServiceServer = {
    signUpEmail: unary("SignUpEmail", async (req) => {
      let extraFields: Record<string, unknown>;
      try {
        extraFields = parseJsonObject(req.extraFieldsJson);
      } catch {
        throw new AuthError("VALIDATION_ERROR", "Invalid extra fields");
      }
      const { user, session } = await signUpEmail(registry, {
        name: req.name,
        email: req.email,
        password: req.password,
        image: req.image,
        username: req.username,
        displayUsername: req.displayUsername,
        extraFields,
        rememberMe: req.rememberMe,
        client: { ipAddress: req.client?.ipAddress, userAgent: req.client?.userAgent },
      });
      return { user: toUserMessage(user), session };
    }),
    signInEmail: unary("SignInEmail", async (req) => {
      const { user, session } = await signInEmail(registry, {
        email: req.email,
        password: req.password,
        rememberMe: req.rememberMe,
        client: { ipAddress: req.client?.ipAddress, userAgent: req.client?.userAgent },
      });
      return { user: toUserMessage(user), session };
    }),
    signInUsername: unary("SignInUsername", async (req) => {
      const { user, session } = await signInUsername(registry, {
        username: req.username,
        password: req.password,
        rememberMe: req.rememberMe,
        client: { ipAddress: req.client?.ipAddress, userAgent: req.client?.userAgent },
      });
      return { user: toUserMessage(user), session };
    }),
    getUser: unary("GetUser", async (req) => {
      const user = await registry.store.findUserById(req.id);
      if (!user) throw new AuthError("USER_NOT_FOUND");
      return { user: toUserMessage(user) };
    }),
  };
  return {
    definition: IdentityServiceService,
    implementation: implementation as unknown as ServiceBinding["implementation"],
    name: "auth.identity.v1.IdentityService",
  };
}
