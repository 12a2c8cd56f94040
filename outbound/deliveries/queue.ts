/** The queue outbound deliveries are worked on, shared by who enqueues (publish.ts), works (deliver.ts) and rescues (sweep.ts) them. */
export const OUTBOUND_QUEUE = 'outbound-deliveries';

/** Jobs of one destination share a group: the worker bounds how many of a group run at once (deliver.ts). */
export const destinationGroup = (organizationId: string, configId: string) => `${organizationId}/${configId}`;
