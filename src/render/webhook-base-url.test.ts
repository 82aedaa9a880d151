import { describe, expect, it } from 'vitest';
import { parseWebhookBaseUrl } from './webhook-base-url.ts';

describe('parseWebhookBaseUrl', () => {
  it.each([
    ['https://127.0.0.1:8443', 'https://127.0.0.1:8443'],
    ['https://crdgate.example.com:9443/', 'https://crdgate.example.com:9443'],
    ['https://crdgate.example.com', 'https://crdgate.example.com'],
    ['https://[::1]:8443', 'https://[::1]:8443'],
  ])('accepts %s as %s', (text, expected) => {
    expect(parseWebhookBaseUrl(text)).toBe(expected);
  });

  it.each([
    ['http://127.0.0.1:8443', /must use https/],
    ['127.0.0.1:8443', /must use https|not a URL/],
    ['https://127.0.0.1:8443/webhooks', /must not have a path/],
    ['https://127.0.0.1:8443?x=1', /query or fragment/],
    ['https://127.0.0.1:8443/#top', /query or fragment/],
    ['https://admin:secret@127.0.0.1:8443', /user name or password/],
    ['not a url', /not a URL/],
  ])('refuses %s', (text, message) => {
    expect(() => parseWebhookBaseUrl(text)).toThrow(message);
  });
});
