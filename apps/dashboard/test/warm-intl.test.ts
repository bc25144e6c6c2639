import { afterEach, describe, expect, it, vi } from 'vitest';
import { warmIntl } from '../src/warm-intl.ts';

/** A stand-in for the browser's Worker: records what the page does with it, answers when told. */
class FakeWorker {
  static made: FakeWorker[] = [];
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  terminated = false;
  constructor(readonly url: URL | string) {
    FakeWorker.made.push(this);
  }
  terminate() {
    this.terminated = true;
  }
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  FakeWorker.made = [];
});

// The app starts only once warmIntl resolves (src/entry.ts): whatever the worker does, it must.
describe('warmIntl', () => {
  it('resolves when the worker answers, and ends it', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const warmed = warmIntl();
    const [worker] = FakeWorker.made;
    expect(String(worker?.url)).toMatch(/warm-intl\.worker/);
    worker?.onmessage?.(new MessageEvent('message', { data: 'warm' }));
    await warmed;
    expect(worker?.terminated).toBe(true);
  });

  it('resolves, having formatted on the page, when the worker fails', async () => {
    vi.stubGlobal('Worker', FakeWorker);
    const format = vi.spyOn(Intl, 'DateTimeFormat');
    const warmed = warmIntl();
    FakeWorker.made[0]?.onerror?.(new ErrorEvent('error', { message: 'blocked' }));
    await warmed;
    expect(format).toHaveBeenCalledOnce();
    expect(FakeWorker.made[0]?.terminated).toBe(true);
  });

  it('resolves, having formatted on the page, where no worker can be made', async () => {
    vi.stubGlobal(
      'Worker',
      class {
        constructor() {
          throw new DOMException('refused by the page policy', 'SecurityError');
        }
      },
    );
    const format = vi.spyOn(Intl, 'DateTimeFormat');
    await warmIntl();
    expect(format).toHaveBeenCalledOnce();
  });

  it('stops waiting for a worker that never answers after a second, not before', async () => {
    vi.useFakeTimers();
    vi.stubGlobal('Worker', FakeWorker);
    let resolved = false;
    void warmIntl().then(() => {
      resolved = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(resolved).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(resolved).toBe(true);
    expect(FakeWorker.made[0]?.terminated).toBe(true);
  });
});
