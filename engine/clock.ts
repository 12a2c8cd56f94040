/** The only source of "now" in the service, so expiry and grace periods are tested without waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  #at: number;
  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.#at = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#at);
  }
  advance(ms: number): void {
    this.#at += ms;
  }
  set(at: Date | string): void {
    this.#at = new Date(at).getTime();
  }
}
