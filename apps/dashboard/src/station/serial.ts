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
  getInfo?(): { usbVendorId?: number; usbProductId?: number };
};
type SerialLike = { requestPort(): Promise<SerialPortLike>; getPorts(): Promise<SerialPortLike[]> };

const serial = (): SerialLike | undefined => (navigator as Navigator & { serial?: SerialLike }).serial;

export const hasSerial = () => serial() !== undefined;

/** A settled weight and the scale that gave it. */
export type ScaleWeight = { kg: number; scaleId: string | null };

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/**
 * The scale's id as the browser lets a page know it: the USB vendor and product of the port
 * (`usb:0b67:555e`), or null when the port says nothing (an RS-232 adapter without USB ids). It
 * names the model, not the unit; the record's `source` names the station it was weighed at.
 */
export function scaleIdOf(port: Pick<SerialPortLike, 'getInfo'>): string | null {
  const info = port.getInfo?.() ?? {};
  return info.usbVendorId === undefined ? null : `usb:${hex4(info.usbVendorId)}:${hex4(info.usbProductId ?? 0)}`;
}

/** The settled weight in kg and the scale's id, or null (no port chosen, no stable reading in time). */
export async function readScale(timeoutMs = 15_000, baudRate = 9600): Promise<ScaleWeight | null> {
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
      if (kg !== null) return { kg, scaleId: scaleIdOf(port) };
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
    reader.releaseLock();
    await port.close().catch(() => {});
  }
}
