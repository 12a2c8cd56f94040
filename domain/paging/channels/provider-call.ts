/**
 * One request to a provider through the guarded client (outbound/net/http.ts), answered as the response or as a
 * `failed` SendResult whose reason names the provider and never the address policy's detail (the operator's log
 * has that) nor anything of the request.
 */
import { OutboundError, outboundHttp, type OutboundRequest, type OutboundResponse } from '../../../outbound/net/http.ts';
import type { Services } from '../../../engine/services.ts';
import type { SendResult } from './channel.ts';

/** every provider call's deadline: a page that waits longer is better recorded as failed and escalated */
export const PROVIDER_TIMEOUT_MS = 10_000;

export async function providerCall(services: Services, provider: string, request: Omit<OutboundRequest, 'timeoutMs'> & { timeoutMs?: number }): Promise<{ response: OutboundResponse } | { failed: SendResult }> {
  try {
    const response = await outboundHttp(services).request({ timeoutMs: PROVIDER_TIMEOUT_MS, maxRedirects: 0, maxResponseBytes: 16 * 1024, ...request });
    return { response };
  } catch (error) {
    if (error instanceof OutboundError) return { failed: { status: 'failed', reason: `${provider} ${error.message}` } };
    throw error;
  }
}

/** The answer's JSON object, or null. */
export function jsonOf(response: OutboundResponse): Record<string, unknown> | null {
  try {
    const parsed = JSON.parse(response.body.toString('utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** A provider's refusal in words: its status, and what that status means for the one who set it up. */
export function refusal(provider: string, status: number, meaning?: string): SendResult {
  return { status: 'failed', reason: `${provider} answered ${status}${meaning ? ` (${meaning})` : ''}` };
}
