import { Container, Loader, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import classes from '../sign.module.css';
import { SignHeader } from './SignHeader.tsx';

/** A link's page: the header (whose page, what is signed, the language) and the main column. */
export function LinkFrame({ subtitle, children }: { subtitle: string; children: ReactNode }) {
  return (
    <div className={classes.page}>
      <SignHeader subtitle={subtitle} />
      <Container size={760} className={classes.main} component="main">
        {children}
      </Container>
    </div>
  );
}

/** While the document is read through the link. */
export function Loading({ text }: { text: string }) {
  return (
    <Stack align="center" py="xl" role="status">
      <Loader aria-hidden />
      <Text size="lg">{text}</Text>
    </Stack>
  );
}
