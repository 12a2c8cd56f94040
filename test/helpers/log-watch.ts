/**
 * Every test service logs (at debug, into memory) and is watched: each secret the suite stores (every value the
 * service seals: provider keys, signing secrets, bot tokens, webhook tokens, …) and each credential the harness
 * mints is remembered, and closing the service fails when any log line holds one. So the whole suite is also a
 * check that no secret reaches a log line, whatever path wrote it. TEST_LOG_LEVEL=<level> also prints the lines.
 */
import type { SecretBox } from '../../engine/crypto.ts';
import { createLogger, type Logger } from '../../engine/logger.ts';

/** Shorter values would match by chance (and no stored secret is this short). */
const MIN_SECRET = 8;

export class LogWatch {
  readonly #lines: string[] = [];
  readonly #secrets = new Set<string>();
  readonly log: Logger;

  constructor() {
    const echo = process.env.TEST_LOG_LEVEL && process.env.TEST_LOG_LEVEL !== 'silent';
    this.log = createLogger('debug', {
      write: (line: string) => {
        this.#lines.push(line);
        if (echo) process.stdout.write(line);
      },
    });
  }

  remember(secret: string): void {
    if (secret.length >= MIN_SECRET) this.#secrets.add(secret);
  }

  /** Remembers every value `box` seals from now on. */
  watchSeals(box: SecretBox): void {
    const seal = box.seal.bind(box);
    box.seal = (plaintext: string) => {
      this.remember(plaintext);
      return seal(plaintext);
    };
  }

  /** The messages of the lines that hold a remembered secret, each secret in them masked. */
  leaks(): string[] {
    const found: string[] = [];
    for (const line of this.#lines) {
      const held = [...this.#secrets].filter((secret) => line.includes(secret));
      if (held.length === 0) continue;
      let msg = String((JSON.parse(line) as { msg?: unknown }).msg ?? 'a log line');
      for (const secret of held) msg = msg.replaceAll(secret, '[secret]');
      found.push(msg);
    }
    return found;
  }
}
