/** The API server's limit on the annotations of one object (apimachinery's TotalAnnotationSizeLimitB). */
export const maxAnnotationsBytes = 256 * 1024;

/** The size the API server checks against {@link maxAnnotationsBytes}: the UTF-8 bytes of every key and value. */
export function annotationsSize(annotations: Readonly<Record<string, unknown>>): number {
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    total += Buffer.byteLength(key, 'utf8') + Buffer.byteLength(String(value), 'utf8');
  }
  return total;
}
