/**
 * Prometheus metrics (prom-client), one registry per running service (several run in one test process): HTTP
 * requests by route and status with their latency, webhook deliveries by source, status and outcome, attempts to
 * deliver what Vigil sends out (outbound deliveries, chat messages, emails) by channel and outcome, background
 * jobs by queue and state (read from the queue's table when scraped), and the process's own metrics.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({ name: 'vigil_http_requests_total', help: 'HTTP requests by method, route and status', labelNames: ['method', 'route', 'status'], registers: [this.registry] });
  readonly #latency = new Histogram({
    name: 'vigil_http_request_duration_seconds', help: 'HTTP request latency by method and route', labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [this.registry],
  });
  readonly #webhooks = new Counter({ name: 'vigil_webhook_deliveries_total', help: 'Webhook deliveries by source, status and outcome', labelNames: ['source', 'status', 'outcome'], registers: [this.registry] });

  readonly #sent = new Counter({ name: 'vigil_delivery_attempts_total', help: 'Attempts to deliver what Vigil sends out, by channel and outcome', labelNames: ['channel', 'outcome'], registers: [this.registry] });

  /** `jobCounts` answers the queue's jobs by queue and state when scraped */
  constructor(jobCounts?: () => Promise<{ queue: string; state: string; count: number }[]>) {
    collectDefaultMetrics({ register: this.registry, prefix: 'vigil_' });
    if (jobCounts) {
      new Gauge({
        name: 'vigil_jobs', help: 'Background jobs by queue and state', labelNames: ['queue', 'state'], registers: [this.registry],
        async collect() {
          this.reset();
          for (const row of await jobCounts().catch(() => [])) this.set({ queue: row.queue, state: row.state }, row.count);
        },
      });
    }
  }

  request(method: string, route: string, status: number, seconds: number): void {
    this.#requests.inc({ method, route, status: String(status) });
    this.#latency.observe({ method, route }, seconds);
  }

  /** One attempt to send something out: `channel` such as outbound, chat or email; `outcome` the state it left (delivered, retrying, dead, …). */
  attempt(channel: string, outcome: string): void {
    this.#sent.inc({ channel, outcome });
  }

  /** `outcome` as the delivery log has it; counts folded ("created ×2") and details after ":" dropped, to bound labels */
  webhook(source: string, status: number, outcome: string): void {
    const kind = outcome.replace(/ ×\d+/g, '').split(':')[0]!.split(',')[0]!.trim().slice(0, 40);
    this.#webhooks.inc({ source, status: String(status), outcome: kind });
  }
}
