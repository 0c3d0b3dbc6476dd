// The slice of autocannon's API the bench uses (autocannon ships no types).
declare module 'autocannon' {
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    /** Requests to send in all, instead of a duration; the run ends when every one is answered. */
    amount?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    requests?: Array<
      Request & { setupRequest?: (req: Request, context: Record<string, unknown>) => Request }
    >;
  }
  export interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }
  export interface Result {
    /** `sent`: requests sent, those still unanswered when a timed run ended included. */
    requests: Histogram & { sent: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    '2xx': number;
  }
  /** The running load: an event emitter (`response` per answer: client, status code, bytes, ms). */
  export interface Instance {
    on(event: 'response', listener: (client: unknown, statusCode: number) => void): Instance;
  }
  function autocannon(options: Options): Promise<Result>;
  function autocannon(options: Options, done: (err: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
