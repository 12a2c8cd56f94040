/**
 * What an AI call costs: USD per million input (prompt) and output (completion) tokens, per model id.
 * The built-in table below is a starting point (list prices when written); a deployment overrides or extends it
 * with `VIGIL_AI_PRICES` (JSON `{ "<model>": { "input": <usd>, "output": <usd> } }`). A model is priced by its
 * exact id, else by the longest table key it starts with (so dated snapshots such as `gpt-4o-2024-08-06` take
 * `gpt-4o`'s price); a model the table does not know costs 0 and the ledger row says so (`note: unpriced`).
 */
export interface Price {
  /** USD per million prompt tokens */
  input: number;
  /** USD per million completion tokens */
  output: number;
}

export const DEFAULT_PRICES: Readonly<Record<string, Price>> = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-opus-4': { input: 15, output: 75 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
  'gemini-2.5-pro': { input: 1.25, output: 10 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'mistral-large': { input: 2, output: 6 },
};

export interface Cost {
  cost_usd: number;
  /** null when priced; `unpriced` when the model is in no table (cost 0) */
  note: string | null;
}

export function priceOf(model: string, overrides: Readonly<Record<string, Price>> = {}): Price | undefined {
  const table = { ...DEFAULT_PRICES, ...overrides };
  if (table[model]) return table[model];
  let best: string | undefined;
  for (const key of Object.keys(table)) if (model.startsWith(key) && (!best || key.length > best.length)) best = key;
  return best ? table[best] : undefined;
}

export function costOf(model: string, usage: { prompt_tokens: number; completion_tokens: number }, overrides?: Readonly<Record<string, Price>>): Cost {
  const price = priceOf(model, overrides);
  if (!price) return { cost_usd: 0, note: 'unpriced' };
  const usd = (usage.prompt_tokens * price.input + usage.completion_tokens * price.output) / 1_000_000;
  // the ledger keeps six decimals
  return { cost_usd: Math.round(usd * 1e6) / 1e6, note: null };
}

/** `VIGIL_AI_PRICES` read at start: a sentence naming the problem when it is not a price table. */
export function parsePrices(text: string | undefined): Record<string, Price> | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('VIGIL_AI_PRICES must be JSON: { "<model>": { "input": <USD per million tokens>, "output": <USD per million tokens> } }');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('VIGIL_AI_PRICES must be a JSON object keyed by model id');
  const out: Record<string, Price> = {};
  for (const [model, price] of Object.entries(parsed as Record<string, unknown>)) {
    const p = price as Partial<Price> | null;
    const ok = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
    if (!p || typeof p !== 'object' || !ok(p.input) || !ok(p.output)) {
      throw new Error(`VIGIL_AI_PRICES: the price of ${JSON.stringify(model)} needs "input" and "output", numbers of USD per million tokens, at least 0`);
    }
    out[model] = { input: p.input!, output: p.output! };
  }
  return out;
}
