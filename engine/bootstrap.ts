/**
 * First-start chores: the secret key, the operator token and (on an empty database) a first organization
 * with an `api:admin` key, so a newcomer can call every endpoint right away. Secrets are printed once and
 * only their hashes (or, for the key, nothing but the value itself) are stored.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/sql';
import { generateToken, hashToken } from './crypto.ts';
import type { Database } from './persistence/database.ts';
import { OrganizationEntity, SystemSettingEntity } from './persistence/entities.ts';
import type { Services } from './services.ts';
import { createApiKey, createOrganization } from './admin/organizations.ts';

async function setting(db: Database, key: string): Promise<string | null> {
  const row = (await db.em.fork().findOne(SystemSettingEntity, { key }, { disableIdentityMap: true })) as { value: string } | null;
  return row?.value ?? null;
}

async function storeSetting(db: Database, key: string, value: string): Promise<void> {
  const em = db.em.fork() as EntityManager;
  await em.upsert(SystemSettingEntity, { key, value });
}

/** The secret key cannot open this database's secrets: a sentence for the operator; the service does not start. */
export class SecretKeyRefused extends Error {}

/** What the database keeps to know the key again: an HMAC of a fixed text under the key, never the key. */
const keyCheck = (key: Buffer) => createHmac('sha256', key).update('vigil secret key check').digest('base64url');

/**
 * The key that seals stored secrets: VIGIL_SECRET_KEY (32 bytes, base64), or one minted and kept in the database.
 * The database keeps a check of the key its secrets are sealed with (from the first start that had one): a start
 * with another key, or without the VIGIL_SECRET_KEY the secrets were sealed with, is refused, instead of serving
 * secrets it cannot open (every read of them failing) and sealing new ones with a key the old ones do not share.
 */
export async function secretKey(db: Database, fromEnv: string | undefined): Promise<Buffer> {
  const check = await setting(db, 'secret_key_check');
  let key: Buffer;
  if (fromEnv) {
    key = Buffer.from(fromEnv, 'base64');
    if (key.length !== 32) throw new Error('VIGIL_SECRET_KEY must be 32 bytes, base64-encoded (openssl rand -base64 32).');
  } else {
    const stored = await setting(db, 'secret_key');
    if (stored) key = Buffer.from(stored, 'base64');
    else if (check) throw new SecretKeyRefused('This database\'s secrets are sealed with a VIGIL_SECRET_KEY, and none is set: start with the one used before.');
    else {
      key = randomBytes(32);
      await storeSetting(db, 'secret_key', key.toString('base64'));
    }
  }
  if (!check) await storeSetting(db, 'secret_key_check', keyCheck(key));
  else if (check !== keyCheck(key)) {
    throw new SecretKeyRefused(
      fromEnv
        ? 'VIGIL_SECRET_KEY is not the key this database\'s secrets are sealed with: start with the one used before (secrets sealed with one key cannot be opened with another).'
        : 'VIGIL_SECRET_KEY is not set, and the key this database keeps is not the one its secrets are sealed with: start with the VIGIL_SECRET_KEY used before.',
    );
  }
  return key;
}

/** The operator token's hash; when none is configured or stored, a new token is minted and returned once. */
export async function operatorToken(db: Database, fromEnv: string | undefined): Promise<{ hash: string; minted?: string }> {
  if (fromEnv) return { hash: hashToken(fromEnv) };
  const stored = await setting(db, 'operator_token_hash');
  if (stored) return { hash: stored };
  const minted = generateToken('vigil_op_');
  await storeSetting(db, 'operator_token_hash', hashToken(minted));
  return { hash: hashToken(minted), minted };
}

export interface FirstOrganization {
  id: string;
  apiKey: string;
  webhookUrls: Record<string, string>;
}

export async function firstOrganization(services: Services): Promise<FirstOrganization | null> {
  if ((await services.db.em.fork().count(OrganizationEntity, {})) > 0) return null;
  const org = await createOrganization(services, { name: 'My organization', plan: 'business' });
  const key = await createApiKey(services, String(org.id), { name: 'bootstrap admin key', scopes: ['api:admin'] });
  return { id: String(org.id), apiKey: String(key.key), webhookUrls: org.webhook_urls as Record<string, string> };
}
