import express from 'express';
import { createServer, IncomingMessage, request, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { expressBornMessages } from './express-born-messages.ts';

let server: Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (running) await new Promise<void>((resolve) => running.close(() => resolve()));
});

function get(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { 'x-probe': 'yes' }, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('expressBornMessages', () => {
  it('makes requests and responses that reach express already in its prototypes, and that express still serves', async () => {
    const app = express();
    app.get('/echo', (req, res) => {
      res.status(201).json({ probe: req.get('x-probe'), path: req.path });
    });
    const bornWith: Array<[boolean, boolean]> = [];
    server = createServer(expressBornMessages(app), app);
    // Runs before express's own listener, so it sees the objects as node made them.
    server.prependListener('request', (req, res) => {
      bornWith.push([Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response]);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;

    const answer = await get(port, '/echo');

    expect(bornWith).toEqual([[true, true]]);
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.text)).toEqual({ probe: 'yes', path: '/echo' });
  });

  it('keeps node’s classes underneath: their constructors run and instanceof holds', () => {
    const app = express();
    const { IncomingMessage: BornRequest, ServerResponse: BornResponse } = expressBornMessages(app);
    const req = new BornRequest(null as never);
    const res = new BornResponse(req);
    expect(req).toBeInstanceOf(IncomingMessage);
    expect(res).toBeInstanceOf(ServerResponse);
    expect(req.headers).toEqual({});
    expect(res.statusCode).toBe(200);
    expect(Object.getPrototypeOf(req)).toBe(app.request);
    expect(Object.getPrototypeOf(res)).toBe(app.response);
  });
});
