/** SKELETON — to be filled by the email work: sends the emails due by now (quiet hours ended, digest time). */
import type { Services } from '../../engine/operations/types.ts';

export async function releaseDueEmail(_services: Services, _now: Date): Promise<void> {}
