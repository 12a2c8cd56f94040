/** A fake AWS for SNS tests: a signing certificate made here, messages signed as SNS signs them, and the fetches. */
import { createSign } from 'node:crypto';
import { generate } from 'selfsigned';
import type { SnsHttp } from '../../webhooks/sns-trust.ts';

export type Envelope = Record<string, unknown>;

export const CERT_URL = 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-test.pem';
export const sns = await generate([{ name: 'commonName', value: 'sns.amazonaws.com' }], { keySize: 2048, algorithm: 'sha256' });
export const impostor = await generate([{ name: 'commonName', value: 'sns.amazonaws.com' }], { keySize: 2048, algorithm: 'sha256' });

/** What SNS signs: fixed keys in order, `<key>\n<value>\n` each (Subject only when present). */
export function sign(envelope: Envelope, version = '1', key = sns.private): Envelope {
  const keys = envelope.Type === 'Notification'
    ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
    : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  const text = keys.filter((k) => typeof envelope[k] === 'string').map((k) => `${k}\n${envelope[k]}\n`).join('');
  const signature = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256').update(text, 'utf8').sign(key, 'base64');
  return { ...envelope, SignatureVersion: version, Signature: signature, SigningCertURL: CERT_URL };
}

/** The HTTP client Vigil is given: serves the certificate, answers confirmations as `confirm` says; records every URL. */
export interface FakeAws {
  /** every URL Vigil fetched */
  fetched: string[];
  /** how the next confirmation answers */
  confirm: () => { status: number } | Error;
  http: SnsHttp;
}

export function fakeAws(): FakeAws {
  const aws: FakeAws = {
    fetched: [],
    confirm: () => ({ status: 200 }),
    http: async (url) => {
      aws.fetched.push(url);
      if (url === CERT_URL) return { ok: true, status: 200, text: async () => sns.cert };
      const answer = aws.confirm();
      if (answer instanceof Error) throw answer;
      return { ok: answer.status < 300, status: answer.status, text: async () => '<ConfirmSubscriptionResponse/>' };
    },
  };
  return aws;
}
