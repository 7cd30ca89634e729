// The open pixel's answer: one image with one set of headers, whatever the request (the router's
// own refusals of a malformed pixel URL included), so that nothing can be learned from it.
import type { FastifyReply } from 'fastify';

/** A transparent 1x1 GIF (42 bytes). */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
export const NEVER_CACHED = {
  'cache-control': 'no-store, no-cache, must-revalidate, private, max-age=0',
  pragma: 'no-cache',
  expires: '0',
};
export const PIXEL_PATH = '/t/o/';

export function sendPixel(reply: FastifyReply): FastifyReply {
  return reply
    .code(200)
    .headers({ 'content-type': 'image/gif', ...NEVER_CACHED })
    .send(PIXEL);
}
