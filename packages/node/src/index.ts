export { type AuthClient, type AuthClientOptions, type AuthResult, authOf, createAuthClient, type RequestLike, type SessionInfo, type User } from "./auth-client.js";
export { type SessionCache, sessionCache } from "./session-cache.js";
export { type AppliedEvent, type SessionWatch, type SessionWatchOptions, type WatchedCache, watchSessionEvents } from "./session-watch.js";
