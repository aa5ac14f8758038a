/**
 * Just enough PNG decoding (8-bit RGB/RGBA, as Chromium writes screenshots)
 * to compare two screenshots pixel by pixel, without an image library.
 */
import { inflateSync } from 'node:zlib';

export interface Pixels {
  width: number;
  height: number;
  /** Bytes per pixel: 3 (RGB) or 4 (RGBA). */
  channels: number;
  rows: Uint8Array[];
}

export function decodePng(png: Buffer): Pixels {
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 4;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('only 8-bit, non-interlaced PNG');
      channels = data[9] === 6 ? 4 : data[9] === 2 ? 3 : 0;
      if (!channels) throw new Error('only RGB(A) PNG');
    } else if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rows: Uint8Array[] = [];
  let prev = new Uint8Array(stride);
  for (let y = 0, o = 0; y < height; y++) {
    const filter = raw[o++]!;
    const line = new Uint8Array(raw.subarray(o, o + stride));
    o += stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? line[x - channels]! : 0;
      const b = prev[x]!;
      const c = x >= channels ? prev[x - channels]! : 0;
      let add = 0;
      if (filter === 1) add = a;
      else if (filter === 2) add = b;
      else if (filter === 3) add = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        add = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[x] = (line[x]! + add) & 255;
    }
    rows.push(line);
    prev = line;
  }
  return { width, height, channels, rows };
}

/**
 * Coordinates of the pixels that differ by more than `tolerance` in a
 * channel, leaving out the 2px frame and `corner`×`corner` squares at the
 * four corners (the border's edge and the rounded corners blend with the
 * backdrop, which is the host's to paint). A small tolerance absorbs anti-aliasing
 * noise at the edges of scaled images; a style that leaked in (another font,
 * colour or spacing) moves whole glyphs and differs by far more.
 */
export function differingPixels(a: Buffer, b: Buffer, corner = 0, tolerance = 0): [number, number][] {
  const [pa, pb] = [decodePng(a), decodePng(b)];
  if (pa.width !== pb.width || pa.height !== pb.height) return [[-1, -1]];
  const out: [number, number][] = [];
  // The outermost 2px and the corners blend with the backdrop.
  const inCorner = (x: number, y: number) =>
    x < 2 || y < 2 || x >= pa.width - 2 || y >= pa.height - 2 ||
    ((x < corner || x >= pa.width - corner) && (y < corner || y >= pa.height - corner));
  for (let y = 0; y < pa.height; y++) {
    for (let x = 0; x < pa.width; x++) {
      if (inCorner(x, y)) continue;
      for (let c = 0; c < 3; c++) {
        if (Math.abs(pa.rows[y]![x * pa.channels + c]! - pb.rows[y]![x * pb.channels + c]!) > tolerance) {
          out.push([x, y]);
          break;
        }
      }
    }
  }
  return out;
}

/**
 * differingPixels, except that a pixel also counts as the same when `b` has it
 * up to `shift` pixels to the left or right on the same row: what differs
 * beyond a horizontal shift of at most `shift` px.
 */
export function differingBeyondShift(a: Buffer, b: Buffer, shift: number): [number, number][] {
  const [pa, pb] = [decodePng(a), decodePng(b)];
  if (pa.width !== pb.width || pa.height !== pb.height) return [[-1, -1]];
  const same = (x: number, y: number, bx: number) => {
    for (let c = 0; c < 3; c++) if (pa.rows[y]![x * pa.channels + c] !== pb.rows[y]![bx * pb.channels + c]) return false;
    return true;
  };
  const out: [number, number][] = [];
  for (let y = 2; y < pa.height - 2; y++) {
    for (let x = 2; x < pa.width - 2; x++) {
      let found = false;
      for (let dx = 0; dx <= shift && !found; dx++) found = same(x, y, Math.min(pa.width - 1, x + dx)) || same(x, y, Math.max(0, x - dx));
      if (!found) out.push([x, y]);
    }
  }
  return out;
}
