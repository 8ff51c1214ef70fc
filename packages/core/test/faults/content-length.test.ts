// How a Content-Length header is read, by uWS v20.51 and then by Velox:
// - uWS takes a plain decimal value of up to 18 digits (leading zeros count). uWS v20.30 took at
//   most 9, so a body of 1,000,000,000 bytes or more sent with a Content-Length had its connection
//   closed unanswered; v20.51 frames it, and Velox answers it like any other body (413 over
//   maxBodyLength).
// - Velox reads at most 15 digits; a longer value uWS accepted (16 to 18 digits, a petabyte or
//   more) is answered 400 VELOX_ERR_BAD_FRAMING.
// - Anything else (a sign, hex, an exponent, a list on one line, 19 digits or more) uWS answers
//   itself: its own 400 page, Connection: close, and the connection closed at once. The route has
//   run by then; its response ends as aborted, and an answer it had sent is lost.
import { parseResponses, raw, start } from '@velox/test-utils';
import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../src/index.ts';
import { server } from '../helpers.ts';

const post = (length: string, body = 'hello') => `POST /text HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n${body}`;

describe('Content-Length', () => {
  it('reads a 10-digit length: 1,000,000,001 bytes over maxBodyLength are answered 413 with Connection: close', async () => {
    const app = server({ maxBodyLength: 1024 });
    const ran: string[] = [];
    app.post('/text', async (req, res) => {
      ran.push('POST /text');
      res.send(await req.text());
    });
    const { port } = await start(app);
    // The rest of the body (a gigabyte) is longer than core reads after a refusal, so the answer
    // goes out at once and its chunked end follows when the client stops sending (README,
    // "Refusing a body"): the partial parse reads the answer before that end.
    const { text } = await raw(port, post('1000000001'), { quietMs: 500 });
    const [response, ...more] = parseResponses(text, { partial: true });
    expect(response?.status).toBe(413);
    expect(response?.headers.connection).toBe('close');
    expect(JSON.parse(response!.body)).toMatchObject({ code: ErrorCodes.BODY_TOO_LARGE });
    expect(more).toEqual([]);
    expect(ran).toEqual(['POST /text']);
  });

  it('frames the body by a length with leading zeros, 10 and 11 digits long', async () => {
    const app = server();
    app.post('/text', async (req, res) => res.send(`[${await req.text()}]`));
    const { port } = await start(app);
    for (const length of ['0000000005', '00000000005']) {
      const { text, closed } = await raw(port, post(length));
      expect([length, ...parseResponses(text).map((r) => [r.status, r.body])]).toEqual([length, [200, '[hello]']]);
      expect(closed).toBe(false);
    }
  });

  it('answers a length of 16 to 18 digits with 400 VELOX_ERR_BAD_FRAMING and closes', async () => {
    const app = server();
    app.post('/text', async (req, res) => res.send(await req.text()));
    const { port } = await start(app);
    for (const length of ['9007199254740993', '999999999999999999']) {
      const { text, closed } = await raw(port, post(length), { quietMs: 3000 });
      const [response] = parseResponses(text);
      expect([length, response?.status, response?.headers.connection]).toEqual([length, 400, 'close']);
      expect(JSON.parse(response!.body)).toMatchObject({ code: ErrorCodes.BAD_FRAMING });
      expect(closed).toBe(true);
    }
  });

  it("answers a length that is not plain digits, or has 19 digits or more, with uWS's own 400 and closes at once", async () => {
    const app = server();
    const responses: Array<{ aborted: boolean; finished: boolean }> = [];
    let settled = 0;
    app.post('/text', async (req, res) => {
      responses.push(res);
      try {
        res.send(await req.text());
      } catch {
        // The read fails: as unsafe framing (Velox's own check) or as an abort (uWS closed first).
      }
      settled++;
    });
    const { url, port } = await start(app);
    const lengths = ['+5', '0x5', '5e0', '-5', '5, 5', '9223372036854775807', '000000000000000000005'];
    for (const length of lengths) {
      const { text, closed } = await raw(port, post(length), { quietMs: 3000 });
      const [response, ...more] = parseResponses(text);
      expect([length, response?.status, response?.headers.connection]).toEqual([length, 400, 'close']);
      // uWS's page, not Velox's JSON answer.
      expect(text).toContain('uWebSockets');
      expect(more).toEqual([]);
      expect(closed).toBe(true);
    }
    await expect.poll(() => settled).toBe(lengths.length);
    expect(responses.map((res) => res.aborted || res.finished)).toEqual(lengths.map(() => true));
    expect(await (await fetch(`${url}/text`, { method: 'POST', body: 'hello' })).text()).toBe('hello');
  });
});
