// The native engine's framing (go/serve_native.go): little-endian, each length counting the bytes after it.
//
//   request:  u32 length | u32 id | u8 operation | i32 handle | payload
//   answer:   u32 length | u32 id | payload

const REQUEST_HEADER = 4 + 4 + 1 + 4;
const ANSWER_HEADER = 4 + 4;

export function requestFrame(id: number, operation: number, handle: number, payload: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(REQUEST_HEADER + payload.length);
  frame.writeUInt32LE(REQUEST_HEADER - 4 + payload.length, 0);
  frame.writeUInt32LE(id, 4);
  frame.writeUInt8(operation, 8);
  frame.writeInt32LE(handle, 9);
  frame.set(payload, REQUEST_HEADER);
  return frame;
}

export interface AnswerFrame {
  id: number;
  payload: Uint8Array;
}

/**
 * Reads one answer from a stream read synchronously, `read(n)` giving exactly n bytes or undefined at the stream's
 * end; undefined when the stream ends before the whole answer.
 */
export function readAnswerFrame(read: (length: number) => Uint8Array | undefined): AnswerFrame | undefined {
  const header = read(ANSWER_HEADER);
  if (header === undefined) return undefined;
  const view = Buffer.from(header.buffer, header.byteOffset, header.byteLength);
  const payload = read(view.readUInt32LE(0) - (ANSWER_HEADER - 4));
  return payload === undefined ? undefined : { id: view.readUInt32LE(4), payload };
}

/** Cuts answers out of a byte stream as it arrives, in any chunks. */
export class AnswerReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** The answers complete with this chunk, in order. */
  push(chunk: Buffer): AnswerFrame[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const answers: AnswerFrame[] = [];
    let buffered = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    while (buffered.length >= ANSWER_HEADER) {
      const length = buffered.readUInt32LE(0);
      if (buffered.length < 4 + length) break;
      // A copy of its own, so that holding the answer does not hold the rest of the stream.
      answers.push({
        id: buffered.readUInt32LE(4),
        payload: new Uint8Array(buffered.subarray(ANSWER_HEADER, 4 + length)),
      });
      buffered = buffered.subarray(4 + length);
    }
    this.pending = buffered.length > 0 ? [buffered] : [];
    this.pendingBytes = buffered.length;
    return answers;
  }
}
