// Requests Node's HTTP parser refuses before Koa sees them (headers too large, a malformed or too
// slow request head) are answered in the JSON envelope too; Node's own answers have no body.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../core/app-error.js';
import { envelope } from './error-middleware.js';

function refusalOf(err: NodeJS.ErrnoException): AppError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('HEADERS_TOO_LARGE', 'Request headers are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT', 'The request took too long to arrive');
    default:
      return new AppError('VALIDATION_ERROR', 'Malformed HTTP request');
  }
}

/** The server's `clientError` listener: one JSON answer, then the connection is closed. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // A peer that left, or a socket already answered, gets nothing more.
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const refusal = refusalOf(err);
  const body = JSON.stringify(envelope('', refusal));
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
