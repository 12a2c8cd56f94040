import { createCipheriv, createDecipheriv, createHash, createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

/** Tokens are high-entropy random strings, so one SHA-256 is a safe lookup hash. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(24).toString('base64url')}`;
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Encrypts secrets the service must use again (provider keys, signing secrets, the webhook token) with
 * AES-256-GCM. Each sealed value carries a keyed digest of its plaintext, so ETags and "did it change"
 * checks never need to decrypt and never expose the value.
 */
export class SecretBox {
  readonly #key: Buffer;
  /** the derived key of each purpose `sign` was asked for (derived once: a list page signs on every request) */
  readonly #purposes = new Map<string, KeyObject>();

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('The secret key must be 32 bytes.');
    this.#key = key;
  }

  digest(plaintext: string): string {
    return createHmac('sha256', this.#key).update(plaintext).digest('base64url').slice(0, 22);
  }

  /**
   * A MAC for something the service hands out and must later trust (a page cursor), under a key of its own per
   * purpose, so it can never equal a secret's digest.
   */
  sign(purpose: string, text: string): string {
    let key = this.#purposes.get(purpose);
    if (!key) {
      key = createSecretKey(createHmac('sha256', this.#key).update(`vigil purpose: ${purpose}`).digest());
      this.#purposes.set(purpose, key);
    }
    return createHmac('sha256', key).update(text).digest('base64url');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', this.digest(plaintext), iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, , iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('Unreadable sealed secret.');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** The keyed digest stored inside a sealed value. */
  static digestOf(sealed: string): string {
    return sealed.split('.')[1] ?? '';
  }
}
