/** SKELETON — to be filled by the chat work: sends the chat posts held until now (quiet hours). */
import type { Services } from '../../engine/operations/types.ts';

export async function releaseHeldChat(_services: Services, _now: Date): Promise<void> {}
