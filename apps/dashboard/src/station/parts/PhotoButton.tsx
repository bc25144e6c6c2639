import { Button, Center, Group, Stack, Text } from '@mantine/core';
import { IconCamera, IconPhotoCheck } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AttachedPhoto } from '../flow.ts';
import { PHOTO_MAX_BYTES, PHOTO_TYPES, preparePhoto } from '../photo.ts';
import classes from '../station.module.css';

/**
 * An optional photo of the waste, in one tap: the button opens the tablet's camera (a file input
 * with `capture`, which a browser without a camera answers with its file picker). The photo is
 * brought down on the tablet (photo.ts) and shown small, with a button to remove it.
 *
 * The input itself is `hidden` rather than visually hidden: the button is the one control a cook
 * or a screen reader meets, and a hidden file input still opens the camera when the button clicks
 * it. `onBusy` says when a photo is being prepared, so the record is not saved without it.
 */
export function PhotoButton({
  photo,
  onChange,
  onBusy,
}: {
  photo: AttachedPhoto | undefined;
  onChange: (photo: AttachedPhoto | undefined) => void;
  onBusy: (busy: boolean) => void;
}) {
  const { t } = useTranslation('station');
  const input = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<'idle' | 'preparing' | 'unreadable' | 'tooBig'>('idle');
  const thumbnail = useObjectUrl(photo && 'blob' in photo ? photo.blob : undefined);
  // A photo kept as taken that this browser cannot show either: said in words, without a picture.
  const [unshown, setUnshown] = useState<string>();
  // A photo still being prepared when the step is left (the record saved, or started over) is dropped.
  const mounted = useRef(true);
  const busy = useRef(onBusy);
  busy.current = onBusy;
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      busy.current(false);
    };
  }, []);

  const taken = async (file: File) => {
    setState('preparing');
    busy.current(true);
    const prepared = await preparePhoto(file);
    if (!mounted.current) return;
    busy.current(false);
    if ('problem' in prepared) {
      setState(prepared.problem);
      return;
    }
    setState('idle');
    onChange({ blob: prepared.photo });
  };

  return (
    <Stack gap={4}>
      <input
        ref={input}
        type="file"
        accept={PHOTO_TYPES.join(',')}
        capture="environment"
        hidden
        data-testid="photo-input"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          // Cleared, so that the same picture chosen again after removing it is a change too.
          e.currentTarget.value = '';
          if (file) void taken(file);
        }}
      />
      {photo ? (
        // The photo itself says it is attached (and, to a screen reader, its name): beside it, only
        // the way to remove it, so the row fits the keypad's narrow column in either orientation.
        <Group gap="sm" wrap="nowrap">
          {thumbnail && unshown !== thumbnail ? (
            <img src={thumbnail} alt={t('station.photo.attached')} className={classes.thumbnail} onError={() => setUnshown(thumbnail)} />
          ) : (
            <Center className={classes.thumbnail} role="img" aria-label={t('station.photo.attached')}>
              <IconPhotoCheck size={32} aria-hidden />
            </Center>
          )}
          <Button variant="default" size="lg" h={56} style={{ flex: 1 }} onClick={() => onChange(undefined)}>
            {t('station.photo.remove')}
          </Button>
        </Group>
      ) : (
        <Button
          variant="default"
          size="lg"
          h={56}
          leftSection={<IconCamera size={22} aria-hidden />}
          loading={state === 'preparing'}
          onClick={() => {
            setState('idle');
            input.current?.click();
          }}
        >
          {t('station.photo.take')}
        </Button>
      )}
      {(state === 'unreadable' || state === 'tooBig') && !photo && (
        <Text size="sm" c="red.9" role="alert">
          {t(`station.photo.${state}`, { mb: PHOTO_MAX_BYTES / (1024 * 1024) })}
        </Text>
      )}
    </Stack>
  );
}

/**
 * An object URL of `photo` while it is shown, revoked when the photo changes or leaves the screen
 * (the record saved, the photo removed). The pages' policy allows `img-src blob:` for it
 * (apps/server/src/http/page-policy.ts). Undefined for a photo already uploaded: its stable address
 * answers only an API key, so it is shown in words.
 */
function useObjectUrl(photo: Blob | undefined): string | undefined {
  const [shown, setShown] = useState<{ photo: Blob; url: string }>();
  useEffect(() => {
    if (!photo) return;
    const url = URL.createObjectURL(photo);
    setShown({ photo, url });
    return () => URL.revokeObjectURL(url);
  }, [photo]);
  return photo && shown?.photo === photo ? shown.url : undefined;
}
