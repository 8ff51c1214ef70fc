// Shared by the session suite's servers.

/** 48 characters: @velox/session and @fastify/session want at least 32. */
export const SESSION_SECRET = 'velox-benchmark-session-secret-0123456789abcdef';
