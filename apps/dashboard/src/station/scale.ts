/**
 * Reading a kitchen scale's serial output (USB or RS-232, through the Web Serial API where the
 * browser has it). Scales that stream their weight do so in a handful of formats; this module turns
 * the bytes, in whatever chunks they arrive, into readings. Typing the weight always works: a scale
 * only fills the keypad.
 *
 * The formats, as their manuals document them:
 *
 * - **Toledo continuous** (Mettler Toledo terminals and many others that imitate them, Kern,
 *   Fairbanks, Cardinal): `STX SWA SWB SWC` + 6 digits of weight + 6 digits of tare (absent in the
 *   short form) + `CR`, then an optional checksum byte. Status words as Mettler Toledo documents
 *   them (some imitators move the unit bits: set such a scale to another format). Status word A bits 0–2 place the decimal
 *   point (000 → `XXXX00` … 111 → `X.XXXXX`); status word B: bit 0 net, bit 1 negative, bit 2
 *   out of range, bit 3 in motion, bit 4 kg (else lb); status word C bit 0: grams.
 * - **MT-SICS** (Mettler Toledo balances): `S S     12.345 kg` stable, `S D …` in motion,
 *   `S +` / `S -` over / under the range, `S I` busy.
 * - **Status, mode, weight** (CAS, A&D, and most indicators sold with kitchen platforms):
 *   `ST,GS,+  1.234kg` — `ST` stable, `US` unstable, `OL` overload; `GS` gross, `NT` net; CAS's
 *   22-byte form adds a device id and a lamp byte (`ST,GS,1@,…`).
 * - **Weight, unit, stability mark** (Ohaus, Sartorius and many others): `      12.73 g    ?`,
 *   `+    0.850 kg`; a `?` marks an unstable weight, `H`/`L` over and under load (Sartorius).
 *
 * Lines end in CR, LF or both. Anything else is skipped, so a scale switched on half-way through a
 * frame, or a format not listed, never produces a weight: only a frame that parses does.
 */

export type ScaleReading =
  | { kind: 'weight'; kg: number; stable: boolean; net: boolean; format: ScaleFormat }
  | { kind: 'overload' | 'underload'; format: ScaleFormat };

export type ScaleFormat = 'toledo' | 'mt-sics' | 'status-mode' | 'weight-unit';

const STX = 0x02;
const CR = 0x0d;
const LF = 0x0a;
/** A frame longer than this without an end is noise: dropped, so the buffer cannot grow. */
const MAX_FRAME = 64;

const KG_PER_UNIT: Record<string, number> = { kg: 1, g: 0.001, lb: 0.45359237, oz: 0.028349523125 };

/** The weight in kg to the gram (a kitchen scale's resolution), avoiding 0.30000000000000004. */
const toKg = (value: number, unit: string): number => Math.round(value * (KG_PER_UNIT[unit] as number) * 1e6) / 1e6;

/**
 * A reader for one scale: `push` it each chunk the port gives, it answers the readings completed
 * by that chunk (oldest first).
 */
export function createScaleReader(): { push(chunk: Uint8Array): ScaleReading[] } {
  let buffer: number[] = [];
  return {
    push(chunk) {
      const readings: ScaleReading[] = [];
      for (const byte of chunk) {
        if (byte === STX) {
          // A Toledo frame starts here; whatever was before it is not one.
          const line = buffer;
          buffer = [STX];
          const reading = line.length > 0 && line[0] !== STX ? parseLine(line) : null;
          if (reading) readings.push(reading);
          continue;
        }
        if (byte === CR || byte === LF) {
          if (buffer[0] === STX) {
            const reading = byte === CR ? parseToledo(buffer) : null;
            if (reading) readings.push(reading);
            // The optional checksum byte after CR is not a line of its own: skip one byte after a frame.
            buffer = byte === CR ? [-1] : [];
            continue;
          }
          const reading = parseLine(buffer.filter((b) => b >= 0));
          if (reading) readings.push(reading);
          buffer = [];
          continue;
        }
        if (buffer[0] === -1) {
          // The byte after a Toledo frame's CR: its checksum (or the next frame's first byte, handled above).
          buffer = [];
          continue;
        }
        buffer.push(byte);
        if (buffer.length > MAX_FRAME) buffer = [];
      }
      return readings;
    },
  };
}

/** Bits 0–2 of status word A: where the decimal point is, as a power of ten to multiply the six digits by. */
const TOLEDO_SCALE = [100, 10, 1, 0.1, 0.01, 0.001, 0.0001, 0.00001];

function parseToledo(frame: number[]): ScaleReading | null {
  // STX, three status words, six digits of weight (then six of tare, or none in the short form).
  if (frame.length !== 10 && frame.length !== 16) return null;
  const [, a, b, c] = frame as [number, number, number, number];
  const digits = String.fromCharCode(...frame.slice(4, 10));
  // Leading blanks are allowed where a terminal blanks leading zeros.
  if (!/^ *\d+$/.test(digits)) return null;
  if (b & 0x04) return { kind: (b & 0x02) !== 0 ? 'underload' : 'overload', format: 'toledo' };
  const value = Number(digits.trim()) * (TOLEDO_SCALE[a & 0x07] as number) * ((b & 0x02) !== 0 ? -1 : 1);
  const unit = (c & 0x01) !== 0 ? 'g' : (b & 0x10) !== 0 ? 'kg' : 'lb';
  return { kind: 'weight', kg: toKg(value, unit), stable: (b & 0x08) === 0, net: (b & 0x01) !== 0, format: 'toledo' };
}

const NUMBER = String.raw`([+-]?)\s*(\d+(?:[.,]\d+)?|[.,]\d+)`;
const UNIT = '(kg|g|lb|oz)';
const MT_SICS = new RegExp(String.raw`^S\s+([SD])\s+${NUMBER}\s*${UNIT}$`, 'i');
const MT_SICS_RANGE = /^S\s+([+-])$/;
const STATUS_MODE = new RegExp(String.raw`^(ST|US|OL),(GS|NT),(?:[^,]{1,2},)?\s*${NUMBER}\s*${UNIT}$`, 'i');
const STATUS_MODE_OVERLOAD = /^OL,(GS|NT)/i;
const WEIGHT_UNIT = new RegExp(String.raw`^${NUMBER}\s*${UNIT}(?:\s+(\?))?(?:\s+(?:NET|N|G|GS|NT))?$`, 'i');
const SARTORIUS_RANGE = /^([HL])$/;

const numberOf = (sign: string, digits: string) => Number(digits.replace(',', '.')) * (sign === '-' ? -1 : 1);

function parseLine(bytes: number[]): ScaleReading | null {
  if (bytes.length === 0) return null;
  // (A line with control or binary bytes in it matches none of the patterns below: noise.)
  const line = String.fromCharCode(...bytes).trim();
  let m = MT_SICS.exec(line);
  if (m) {
    return {
      kind: 'weight',
      kg: toKg(numberOf(m[2] as string, m[3] as string), (m[4] as string).toLowerCase()),
      stable: (m[1] as string).toUpperCase() === 'S',
      net: false,
      format: 'mt-sics',
    };
  }
  m = MT_SICS_RANGE.exec(line);
  if (m) return { kind: m[1] === '+' ? 'overload' : 'underload', format: 'mt-sics' };
  m = STATUS_MODE.exec(line);
  if (m) {
    const status = (m[1] as string).toUpperCase();
    if (status === 'OL') return { kind: 'overload', format: 'status-mode' };
    return {
      kind: 'weight',
      kg: toKg(numberOf(m[3] as string, m[4] as string), (m[5] as string).toLowerCase()),
      stable: status === 'ST',
      net: (m[2] as string).toUpperCase() === 'NT',
      format: 'status-mode',
    };
  }
  if (STATUS_MODE_OVERLOAD.test(line)) return { kind: 'overload', format: 'status-mode' };
  m = WEIGHT_UNIT.exec(line);
  if (m) {
    return {
      kind: 'weight',
      kg: toKg(numberOf(m[1] as string, m[2] as string), (m[3] as string).toLowerCase()),
      stable: m[4] !== '?',
      net: /\b(NET|N|NT)$/i.test(line),
      format: 'weight-unit',
    };
  }
  m = SARTORIUS_RANGE.exec(line);
  if (m) return { kind: m[1] === 'H' ? 'overload' : 'underload', format: 'weight-unit' };
  return null;
}

/**
 * The weight to offer the cook: the last reading of a stream once it is stable and above zero
 * (a scale in motion, overloaded or empty offers nothing).
 */
export function settledWeight(readings: readonly ScaleReading[]): number | null {
  const last = readings.at(-1);
  return last?.kind === 'weight' && last.stable && last.kg > 0 ? last.kg : null;
}
