// The FCM sender's only way out to the network, so tests hand it a fake and never call Google.

export interface HttpRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface HttpResponse {
  status: number;
  body: string;
}

export type HttpClient = (request: HttpRequest) => Promise<HttpResponse>;

/** The global fetch with a deadline: a push provider that hangs must not hold the dispatcher. */
export function fetchHttpClient(timeoutMs = 10_000): HttpClient {
  return async (request) => {
    const res = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.status, body: await res.text() };
  };
}
