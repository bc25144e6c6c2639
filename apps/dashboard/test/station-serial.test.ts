import { afterEach, describe, expect, it, vi } from 'vitest';
import { hasSerial, readScale } from '../src/station/serial.ts';

/**
 * The scale through Web Serial (station/serial.ts), with a port that plays a recorded byte
 * stream of an MT-SICS scale, split where a serial port splits it: the reading settles on the
 * first stable weight, and the port is closed again whatever happens.
 */

type FakePort = {
  opened: number[];
  closed: number;
  open(o: { baudRate: number }): Promise<void>;
  close(): Promise<void>;
  readable: ReadableStream<Uint8Array>;
  getInfo?(): { usbVendorId?: number; usbProductId?: number };
};

function portPlaying(chunks: string[]): FakePort {
  const encoder = new TextEncoder();
  const port: FakePort = {
    opened: [],
    closed: 0,
    async open({ baudRate }) {
      port.opened.push(baudRate);
    },
    async close() {
      port.closed++;
    },
    readable: new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        // The scale keeps talking; the reader stops at the first stable weight.
      },
    }),
  };
  return port;
}

function withSerial(port: FakePort | undefined, known = false) {
  Object.defineProperty(navigator, 'serial', {
    configurable: true,
    value: port && {
      getPorts: async () => (known ? [port] : []),
      requestPort: async () => port,
    },
  });
}

afterEach(() => {
  Reflect.deleteProperty(navigator, 'serial');
});

describe('reading the scale', () => {
  it('fills in the first stable weight, at 9600 baud, and closes the port', async () => {
    const port = portPlaying(['S D      0.5', '12 kg\r\nS D      0.518 kg\r\nS S', '      0.518 kg\r\n', 'S S      0.600 kg\r\n']);
    withSerial(port);
    expect(hasSerial()).toBe(true);
    // A port that gives no USB ids (an RS-232 adapter): the scale is not named.
    expect(await readScale(2_000)).toEqual({ kg: 0.518, scaleId: null });
    expect(port.opened).toEqual([9600]);
    expect(port.closed).toBe(1);
  });

  it('names the scale by the USB vendor and product its port tells', async () => {
    const port = { ...portPlaying(['S S      2.250 kg\r\n']), getInfo: () => ({ usbVendorId: 0x0eb8, usbProductId: 0x2200 }) };
    withSerial(port);
    expect(await readScale(2_000)).toEqual({ kg: 2.25, scaleId: 'usb:0eb8:2200' });
  });

  it('gives nothing when no stable weight comes in time, and still closes the port', async () => {
    const port = portPlaying(['S D      0.512 kg\r\n', 'S D      0.530 kg\r\n']);
    withSerial(port, true);
    expect(await readScale(200)).toBeNull();
    expect(port.closed).toBe(1);
  });

  it('releases the port’s stream and stops its clock once the weight is read, so the port can be read again', async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const cleared = vi.spyOn(globalThis, 'clearTimeout');
    try {
      const port = portPlaying(['S S      1.000 kg\r\n']);
      withSerial(port);
      expect(await readScale(2_000)).toEqual({ kg: 1, scaleId: null });
      // A stream still locked to the finished reader could never be read by the next weighing.
      expect(port.readable.locked).toBe(false);
      // The timeout's timer, cleared: left running, it would cancel a reader already released.
      const index = timers.mock.calls.findIndex(([, ms]) => ms === 2_000);
      expect(index).toBeGreaterThanOrEqual(0);
      expect(cleared).toHaveBeenCalledWith(timers.mock.results[index]?.value);
    } finally {
      timers.mockRestore();
      cleared.mockRestore();
    }
  });

  it('gives nothing from a port that has no stream to read, and closes it', async () => {
    const port = portPlaying([]);
    Object.defineProperty(port, 'readable', { value: null });
    withSerial(port);
    expect(await readScale(200)).toBeNull();
    expect(port.opened).toEqual([9600]);
    expect(port.closed).toBe(1);
  });

  it('is absent where the browser has no Web Serial: the keypad alone', async () => {
    withSerial(undefined);
    Reflect.deleteProperty(navigator, 'serial');
    expect(hasSerial()).toBe(false);
    expect(await readScale(100)).toBeNull();
  });
});
