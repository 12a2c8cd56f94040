/** The queue chat messages are sent on (send.ts), and the group its jobs share per organization. */
export const CHAT_QUEUE = 'chat-messages';

/** One organization's messages share a group: at most a few go to its workspace at once (its rate limits are per workspace). */
export const chatGroup = (organizationId: string) => `chat/${organizationId}`;
