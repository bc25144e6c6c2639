import { createScaleReader, settledWeight } from './scale.ts';

/**
 * A kitchen scale on USB or RS-232, through the Web Serial API (Chromium on desktops and
 * ChromeOS; absent elsewhere, where the station offers the keypad only). The cook picks the port
 * once (the browser asks); the port is read until the scale reports a stable, positive weight, or
 * `timeoutMs` passes. Most kitchen scales talk at 9600 baud, 8N1, which is what is opened.
 */

type SerialPortLike = {
  open(options: { baudRate: number }): Promise<void>;
  close(): Promise<void>;
  readable: ReadableStream<Uint8Array> | null;
};
type SerialLike = { requestPort(): Promise<SerialPortLike>; getPorts(): Promise<SerialPortLike[]> };

const serial = (): SerialLike | undefined => (navigator as Navigator & { serial?: SerialLike }).serial;

export const hasSerial = () => serial() !== undefined;

/** The settled weight in kg, or null (no port chosen, no stable reading in time). */
export async function readScale(timeoutMs = 15_000, baudRate = 9600): Promise<number | null> {
  const api = serial();
  if (!api) return null;
  // A port allowed before is used again without asking.
  const [known] = await api.getPorts();
  const port = known ?? (await api.requestPort());
  await port.open({ baudRate });
  const reader = port.readable?.getReader();
  if (!reader) {
    await port.close();
    return null;
  }
  const parser = createScaleReader();
  const timer = setTimeout(() => void reader.cancel(), timeoutMs);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return null;
      const kg = settledWeight(parser.push(value));
      if (kg !== null) return kg;
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
    reader.releaseLock();
    await port.close().catch(() => {});
  }
}
