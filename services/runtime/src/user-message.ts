/**
 * The user in a message that carries it twice for one release (docs/adr/0047-one-user-message-between-releases.md):
 * `user` (auth.common.v1.User) and `session_user`, the deprecated SessionUser at the field's previous number,
 * which a replica of the previous release writes alone and reads alone. Every writer and reader of those
 * fields goes through these two functions, so the release after removes `sessionUser` here and in the
 * .proto files and nowhere else.
 */
import type { User } from "@auth-platform/proto/gen/auth/common/v1/user";
import type { SessionUser } from "@auth-platform/proto/gen/auth/session/v1/session";

/** Both wire forms of a user, for a writer of this release: spread into the message. */
export function userFields(user: User): { user: User; sessionUser: SessionUser };
export function userFields(user: User | undefined): { user?: User; sessionUser?: SessionUser };
export function userFields(user: User | undefined): { user?: User; sessionUser?: SessionUser } {
  // SessionUser has User's fields under other numbers: the same object encodes as either.
  return user ? { user, sessionUser: user } : {};
}

/** The user a message carries: `user`, else the deprecated `sessionUser` (a writer of the previous release). */
export function carriedUser(message: { user?: User; sessionUser?: SessionUser }): User | undefined {
  return message.user ?? message.sessionUser;
}
