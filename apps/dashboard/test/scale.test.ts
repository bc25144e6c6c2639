import { describe, expect, it } from 'vitest';
import { createScaleReader, type ScaleReading, settledWeight } from '../src/station/scale.ts';

/**
 * The scale reader (station/scale.ts) on byte streams laid out as the scales' manuals document
 * them, fed in the chunks a serial port really gives: split anywhere, several frames at once, a
 * frame cut at switch-on.
 */

const ascii = (text: string) => new TextEncoder().encode(text);
const bytes = (...parts: (string | number)[]) => Uint8Array.from(parts.flatMap((p) => (typeof p === 'number' ? [p] : [...ascii(p)])));

/** A Toledo continuous frame: STX, status words A/B/C, 6 digits of weight, 6 of tare, CR, checksum. */
function toledo(weight: string, status: { a: number; b: number; c?: number }, tare = '000000'): Uint8Array {
  const frame = [0x02, status.a, status.b, status.c ?? 0x20, ...ascii(weight), ...ascii(tare), 0x0d];
  // The checksum: the two's complement of the 7 low bits of the sum of every byte before it.
  const sum = frame.reduce((s, b) => s + b, 0);
  return Uint8Array.from([...frame, -sum & 0x7f]);
}
// Status word A: decimal point `XXX.XXX` (bits 0–2 = 101), increment x1 (bit 3), bit 5 set.
const A_3_DECIMALS = 0b0010_1101;
// Status word B: bit 5 set, kg (bit 4); plus motion (bit 3), negative (bit 1), net (bit 0), out of range (bit 2).
const B_KG = 0b0011_0000;

/** Feeds a stream in chunks of `size` bytes and collects every reading. */
function read(stream: Uint8Array, size = 3): ScaleReading[] {
  const reader = createScaleReader();
  const out: ScaleReading[] = [];
  for (let i = 0; i < stream.length; i += size) out.push(...reader.push(stream.subarray(i, i + size)));
  return out;
}

const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const weights = (readings: ScaleReading[]) => readings.map((r) => (r.kind === 'weight' ? [r.kg, r.stable] : r.kind));

describe('Toledo continuous', () => {
  it('reads the weight, its decimal point, motion, sign, net and units, in any chunking', () => {
    const stream = concat(
      toledo('001250', { a: A_3_DECIMALS, b: B_KG | 0x08 }), // 1.250 kg, in motion
      toledo('001255', { a: A_3_DECIMALS, b: B_KG }), // 1.255 kg, stable
      toledo('000300', { a: A_3_DECIMALS, b: B_KG | 0x02 | 0x01 }), // −0.300 kg, net
      toledo('001000', { a: A_3_DECIMALS, b: 0b0010_0000 }), // 1.000 lb
      toledo('000850', { a: 0b0010_1010, b: B_KG, c: 0x21 }), // 850 g (no decimals, grams)
      toledo('999999', { a: A_3_DECIMALS, b: B_KG | 0x04 }), // out of range
    );
    for (const size of [1, 3, 7, 17, stream.length]) {
      expect(weights(read(stream, size)), `chunks of ${size}`).toEqual([
        [1.25, false],
        [1.255, true],
        [-0.3, true],
        [0.453592, true],
        [0.85, true],
        'overload',
      ]);
    }
    const [net] = read(toledo('000300', { a: A_3_DECIMALS, b: B_KG | 0x03 })) as [ScaleReading];
    expect(net).toMatchObject({ kind: 'weight', net: true, format: 'toledo' });
  });

  it('reads the short form (no tare), and skips a frame cut at switch-on and a malformed one', () => {
    const short = Uint8Array.from([0x02, A_3_DECIMALS, B_KG, 0x20, ...ascii('002500'), 0x0d]);
    const cut = bytes('0130', 0x0d); // the tail of a frame whose start was missed
    const bad = Uint8Array.from([0x02, A_3_DECIMALS, B_KG, 0x20, ...ascii('00x500'), 0x0d]);
    expect(weights(read(concat(cut, bad, short)))).toEqual([[2.5, true]]);
  });
});

describe('MT-SICS', () => {
  it('reads stable and dynamic weights and the range errors', () => {
    const stream = bytes('S D      0.512 kg\r\n', 'S S      0.518 kg\r\n', 'S S    518.0 g\r\n', 'S +\r\n', 'S -\r\n', 'S I\r\n');
    expect(weights(read(stream, 5))).toEqual([[0.512, false], [0.518, true], [0.518, true], 'overload', 'underload']);
  });
});

describe('status, mode, weight (CAS, A&D and most indicators)', () => {
  it('reads ST/US/OL with gross or net, with and without CAS’s device and lamp bytes', () => {
    const stream = bytes(
      'US,GS,+  1.230kg\r\n',
      'ST,GS,+  1.234kg\r\n',
      'ST,NT,-0000.150kg\r\n',
      'ST,GS,1@,  0012.50kg\r\n', // CAS 22 bytes: device id 1, lamp byte @
      'ST,GS,+  2.50lb\r\n',
      'OL,GS,+  ------kg\r\n',
    );
    expect(weights(read(stream, 4))).toEqual([[1.23, false], [1.234, true], [-0.15, true], [12.5, true], [1.133981, true], 'overload']);
    const [net] = read(bytes('ST,NT,+0000.150kg\r\n')) as [ScaleReading];
    expect(net).toMatchObject({ net: true, format: 'status-mode' });
  });
});

describe('weight, unit, stability mark (Ohaus, Sartorius and others)', () => {
  it('reads a weight with its unit, "?" as unstable, a decimal comma, and H/L as the range', () => {
    const stream = bytes('      12.73 g    ?\r\n', '      12.72 g     \r\n', '+    0.850 kg\r\n', '   1,250 kg\n', 'H\r\n', 'L\r\n');
    expect(weights(read(stream, 6))).toEqual([[0.01273, false], [0.01272, true], [0.85, true], [1.25, true], 'overload', 'underload']);
  });

  it('never reads a weight from noise: binary bytes, text without a unit, an unknown unit, an endless line', () => {
    const stream = concat(
      Uint8Array.from([0xff, 0x00, 0x13, 0x0d]),
      bytes('HELLO\r\n', '12.5\r\n', '12.5 stone\r\n', 'x'.repeat(200), '\r\n'),
      bytes('ST,GS,+  0.400kg\r\n'),
    );
    expect(weights(read(stream, 9))).toEqual([[0.4, true]]);
  });
});

describe('the weight offered to the cook', () => {
  it('is the last reading once stable and above zero; nothing in motion, overloaded or empty', () => {
    expect(settledWeight(read(bytes('US,GS,+  1.230kg\r\n', 'ST,GS,+  1.234kg\r\n')))).toBe(1.234);
    expect(settledWeight(read(bytes('ST,GS,+  1.234kg\r\n', 'US,GS,+  1.300kg\r\n')))).toBeNull();
    expect(settledWeight(read(bytes('ST,GS,+  0.000kg\r\n')))).toBeNull();
    expect(settledWeight(read(bytes('OL,GS,+  ------kg\r\n')))).toBeNull();
    expect(settledWeight([])).toBeNull();
  });
});

describe('framing, formats and flags, each on its own', () => {
  const frame = (over: Partial<{ weight: string; b: number; c: number }> = {}) =>
    toledo(over.weight ?? '001255', { a: A_3_DECIMALS, b: over.b ?? B_KG, ...(over.c === undefined ? {} : { c: over.c }) });

  it('says which format each reading came in, gross or net, and nothing more', () => {
    expect(read(frame())).toEqual([{ kind: 'weight', kg: 1.255, stable: true, net: false, format: 'toledo' }]);
    expect(read(bytes('S S      0.518 kg\r\n'))).toEqual([{ kind: 'weight', kg: 0.518, stable: true, net: false, format: 'mt-sics' }]);
    expect(read(bytes('S +\r\n'))).toEqual([{ kind: 'overload', format: 'mt-sics' }]);
    expect(read(bytes('ST,GS,+  1.234kg\r\n'))).toEqual([{ kind: 'weight', kg: 1.234, stable: true, net: false, format: 'status-mode' }]);
    expect(read(bytes('OL,GS,+  9.999kg\r\n'))).toEqual([{ kind: 'overload', format: 'status-mode' }]);
    expect(read(bytes('OL,NT,+  ------kg\r\n'))).toEqual([{ kind: 'overload', format: 'status-mode' }]);
    expect(read(bytes('+    0.850 kg\r\n'))).toEqual([{ kind: 'weight', kg: 0.85, stable: true, net: false, format: 'weight-unit' }]);
    expect(read(bytes('+    0.850 kg N\r\n'))).toEqual([{ kind: 'weight', kg: 0.85, stable: true, net: true, format: 'weight-unit' }]);
    expect(read(bytes('+    0.850 kg NET\r\n'))).toMatchObject([{ net: true }]);
    expect(read(bytes('+    0.850 kg G\r\n'))).toMatchObject([{ net: false }]);
    expect(read(bytes('H\r\n'))).toEqual([{ kind: 'overload', format: 'weight-unit' }]);
    expect(read(bytes('L\r\n'))).toEqual([{ kind: 'underload', format: 'weight-unit' }]);
  });

  it('reads a Toledo frame out of range below zero as an underload', () => {
    expect(read(frame({ b: B_KG | 0x04 | 0x02 }))).toEqual([{ kind: 'underload', format: 'toledo' }]);
    expect(read(frame({ b: B_KG | 0x04 }))).toEqual([{ kind: 'overload', format: 'toledo' }]);
  });

  it('reads a line that a Toledo frame follows without a line end, and skips a Toledo frame a new one cuts', () => {
    expect(weights(read(concat(bytes('S S      0.518 kg'), frame())))).toEqual([
      [0.518, true],
      [1.255, true],
    ]);
    const cutShort = Uint8Array.from([0x02, A_3_DECIMALS, B_KG, 0x20, ...ascii('0012')]);
    expect(weights(read(concat(cutShort, frame()), 1))).toEqual([[1.255, true]]);
  });

  it("skips the checksum byte after a Toledo frame's CR, so the line after it reads whole", () => {
    // The checksum of this frame is a printable byte; the line right after it must not start with it.
    const stream = concat(frame(), bytes('S S      0.518 kg\r\n'));
    expect(weights(read(stream, 1))).toEqual([
      [1.255, true],
      [0.518, true],
    ]);
    // A Toledo frame ended by LF is not a frame; the line after it reads.
    const lf = Uint8Array.from([0x02, A_3_DECIMALS, B_KG, 0x20, ...ascii('001255'), ...ascii('000000'), 0x0a]);
    expect(weights(read(concat(lf, bytes('S S      0.518 kg\r\n'))))).toEqual([[0.518, true]]);
  });

  it('reads a Toledo frame of 10 or 16 bytes only', () => {
    const withTare = (tare: string) => Uint8Array.from([0x02, A_3_DECIMALS, B_KG, 0x20, ...ascii('001255'), ...ascii(tare), 0x0d]);
    expect(weights(read(withTare('')))).toEqual([[1.255, true]]);
    expect(weights(read(withTare('000000')))).toEqual([[1.255, true]]);
    expect(read(withTare('00'))).toEqual([]);
    expect(read(withTare('0000000'))).toEqual([]);
  });

  it('reads a line of 64 bytes, and drops one longer as noise (the buffer cannot grow)', () => {
    const line = (length: number) => bytes(`12.5 kg${' '.repeat(length - 7)}`, '\r\n');
    expect(weights(read(line(64)))).toEqual([[12.5, true]]);
    expect(read(line(65))).toEqual([]);
  });

  it('counts the 64 bytes afresh after each line end, Toledo frame and dropped noise: nothing left over shortens the next line', () => {
    // A line of exactly 64 bytes (and its line end) reads whatever came before it; a byte kept from
    // the line, frame or noise before would push it over the limit, and the weight would be lost.
    const full = bytes(`12.5 kg${' '.repeat(57)}`, '\r\n');
    expect(full.length).toBe(66);
    const lf = Uint8Array.from([0x02, A_3_DECIMALS, B_KG, 0x20, ...ascii('001255'), ...ascii('000000'), 0x0a]);
    for (const [before, readings] of [
      [full, [[12.5, true]]], // another full line
      [frame(), [[1.255, true]]], // a Toledo frame and its checksum byte
      [lf, []], // a Toledo frame ended by LF (not read)
      [bytes('x'.repeat(65)), []], // noise dropped at its 65th byte, no line end
    ] as const) {
      for (const size of [1, 5, 200]) expect(weights(read(concat(before, full), size))).toEqual([...readings, [12.5, true]]);
    }
  });

  it('reads a line with a NUL or other control byte in it as noise, not a weight', () => {
    expect(read(bytes('12.5 kg', 0x00, '\r\n'))).toEqual([]);
    expect(read(bytes(0x00, '12.5 kg\r\n'))).toEqual([]);
    expect(read(bytes('12.5', 0x07, ' kg\r\n'))).toEqual([]);
    // The same line without it reads.
    expect(weights(read(bytes('12.5 kg\r\n')))).toEqual([[12.5, true]]);
  });
});
