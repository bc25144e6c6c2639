import { MantineProvider } from '@mantine/core';
import { MAX_PHOTO_BYTES, PHOTO_CONTENT_TYPES } from '@merma/schema';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AttachedPhoto } from '../src/station/flow.ts';
import { PhotoButton } from '../src/station/parts/PhotoButton.tsx';
import { PHOTO_LONG_SIDE, PHOTO_MAX_BYTES, PHOTO_TYPES, preparePhoto } from '../src/station/photo.ts';
import { cssVariablesResolver, themeWithCloseLabel } from '../src/theme.ts';

/**
 * The station's photo of the waste (src/station/photo.ts, parts/PhotoButton.tsx): brought down to
 * 1600 px as JPEG before it is queued, kept as it is when the browser cannot decode it but the
 * server takes its type, refused otherwise; the button that opens the camera, the photo shown
 * attached (its object URL revoked once it is removed), and removed. The real camera input, canvas and upload: apps/server/test/station-browser.test.ts.
 */

/** The photo button as the record's step holds it, noting each change and each busy signal. */
function Recording({ attached, busy }: { attached: (AttachedPhoto | undefined)[]; busy: boolean[] }) {
  const [photo, setPhoto] = useState<AttachedPhoto>();
  return (
    <PhotoButton
      photo={photo}
      onChange={(p) => {
        attached.push(p);
        setPhoto(p);
      }}
      onBusy={(b) => busy.push(b)}
    />
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the station's photo", () => {
  it("takes the server's types and size (repeated for a page that ships no zod)", () => {
    expect(PHOTO_TYPES).toEqual(PHOTO_CONTENT_TYPES);
    expect(PHOTO_MAX_BYTES).toBe(MAX_PHOTO_BYTES);
  });

  it('draws the photo at most 1600 px on its long side and encodes it as JPEG at 0.8', async () => {
    const closed = vi.fn();
    vi.stubGlobal(
      'createImageBitmap',
      vi.fn(async () => ({ width: 4032, height: 3024, close: closed })),
    );
    const drawn: unknown[][] = [];
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockImplementation(
      () => ({ drawImage: (...args: unknown[]) => drawn.push(args) }) as never,
    );
    const encoded: { width: number; height: number; type?: string; quality?: unknown }[] = [];
    const jpeg = new Blob(['small jpeg'], { type: 'image/jpeg' });
    vi.spyOn(HTMLCanvasElement.prototype, 'toBlob').mockImplementation(function (this: HTMLCanvasElement, done, type, quality) {
      encoded.push({ width: this.width, height: this.height, ...(type ? { type } : {}), quality });
      done(jpeg);
    });
    const prepared = await preparePhoto(new File(['a camera photo'], 'IMG_0001.png', { type: 'image/png' }));
    expect(prepared).toEqual({ photo: jpeg });
    expect(encoded).toEqual([{ width: PHOTO_LONG_SIDE, height: 1200, type: 'image/jpeg', quality: 0.8 }]);
    expect(drawn[0]?.slice(1)).toEqual([0, 0, 1600, 1200]);
    expect(closed).toHaveBeenCalledOnce();
  });

  it('keeps a photo it cannot decode when the server takes its type, and refuses one it does not, or one too big', async () => {
    vi.stubGlobal(
      'createImageBitmap',
      vi.fn(async () => {
        throw new DOMException('The source image could not be decoded.', 'InvalidStateError');
      }),
    );
    const webp = new File(['webp bytes'], 'a.webp', { type: 'image/webp' });
    expect(await preparePhoto(webp)).toEqual({ photo: webp });
    expect(await preparePhoto(new File(['gif'], 'a.gif', { type: 'image/gif' }))).toEqual({ problem: 'unreadable' });
    expect(await preparePhoto(new File(['heic'], 'a.heic', { type: '' }))).toEqual({ problem: 'unreadable' });
    const huge = new File([new Uint8Array(PHOTO_MAX_BYTES + 1)], 'a.jpg', { type: 'image/jpeg' });
    expect(await preparePhoto(huge)).toEqual({ problem: 'tooBig' });
  });

  it('opens the camera from its button, shows the photo attached, and removes it', async () => {
    // This DOM decodes no image: the photo is kept as taken.
    const revoked = vi.spyOn(URL, 'revokeObjectURL');
    const busy: boolean[] = [];
    const attached: (AttachedPhoto | undefined)[] = [];
    render(
      <MantineProvider theme={themeWithCloseLabel('Close')} cssVariablesResolver={cssVariablesResolver}>
        <Recording attached={attached} busy={busy} />
      </MantineProvider>,
    );
    // A file picker lets any file through, whatever the input's `accept` says.
    const user = userEvent.setup({ pointerEventsCheck: PointerEventsCheckLevel.Never, applyAccept: false });
    const input = (await screen.findByTestId('photo-input')) as HTMLInputElement;
    expect(input).toHaveAttribute('type', 'file');
    expect(input).toHaveAttribute('accept', 'image/jpeg,image/png,image/webp');
    expect(input).toHaveAttribute('capture', 'environment');
    expect(input.hidden).toBe(true);
    const opened = vi.fn();
    input.addEventListener('click', opened);
    await user.click(screen.getByRole('button', { name: 'Photo' }));
    expect(opened).toHaveBeenCalledOnce();

    const photo = new File(['jpeg bytes'], 'IMG_0001.jpg', { type: 'image/jpeg' });
    await user.upload(input, photo);
    await screen.findByRole('img', { name: 'Photo attached' });
    expect(attached).toEqual([{ blob: photo }]);
    expect(busy).toEqual([true, false]);
    expect(screen.queryByRole('button', { name: 'Photo' })).toBeNull();
    // Shown small, by an object URL of the photo, revoked once it is removed.
    await waitFor(() =>
      expect(screen.getByRole('img', { name: 'Photo attached' })).toHaveAttribute('src', expect.stringMatching(/^blob:/)),
    );
    const thumbnail = screen.getByRole('img', { name: 'Photo attached' }).getAttribute('src');

    await user.click(screen.getByRole('button', { name: 'Remove photo' }));
    expect(attached).toEqual([{ blob: photo }, undefined]);
    expect(screen.queryByRole('img', { name: 'Photo attached' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Photo' })).toBeInTheDocument();
    expect(revoked).toHaveBeenCalledWith(thumbnail);

    // A file that is no photo the server takes: said, and nothing attached.
    await user.upload(input, new File(['gif'], 'a.gif', { type: 'image/gif' }));
    await screen.findByRole('alert');
    expect(screen.getByRole('alert')).toHaveTextContent('That photo could not be read: take another.');
    expect(attached).toEqual([{ blob: photo }, undefined]);
  });
});
