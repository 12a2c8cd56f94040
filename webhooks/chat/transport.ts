/**
 * `chat`: the transport of a button press or slash command in the chat workspace (handler.ts), named on its
 * Caller and in the audit log beside rest, mcp and console. Declared here, where it is used, so the engine names
 * no part.
 */
declare module '../../engine/auth/caller.ts' {
  interface PartTransports {
    chat: true;
  }
}

export {};
