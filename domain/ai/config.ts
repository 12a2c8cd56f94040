/** The AI part's deployment settings (`VIGIL_AI_*`, read in bin/env.ts), declared on the engine's ServiceConfig. */
import type { Price } from './prices.ts';

/**
 * the deployment's own ("platform") AI provider: an OpenAI-compatible endpoint, used when an organization's own
 * providers do not answer (never under `own_providers_only`); its `model` is also the platform default model that
 * a provider row's null or `auto` model stands for
 */
export interface AiSettings {
  baseUrl: string;
  apiKey?: string;
  model?: string;
}

declare module '../../engine/config.ts' {
  interface ServiceConfig {
    /** the platform AI provider (`VIGIL_AI_BASE_URL`, `VIGIL_AI_API_KEY`, `VIGIL_AI_MODEL`); absent: none */
    ai?: AiSettings;
    /** USD per million input and output tokens per model id (`VIGIL_AI_PRICES`), over the built-in table */
    aiPrices?: Record<string, Price>;
  }
}
